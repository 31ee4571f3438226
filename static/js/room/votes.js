// House rules: the room votes on a challenged word. Each challenge shows how its votes
// stand; a voter (online when it was made, not the challenger) votes Accept or Decline and
// may change their vote while it is open; the host may also rule at once on another
// player's challenge, never on their own (docs/api.md, "House rules: challenges").
//
// The server never says which way someone voted, so this page remembers its own votes
// (per room, in localStorage) to highlight them; a vote made elsewhere shows as "voted".

import { h } from "../lib/dom.js";
import { gettext, ngettext } from "../lib/i18n.js";
import { load, save } from "../lib/storage.js";

const NO_VOTES = { voters: [], voted: [], accept: 0, decline: 0, needed: 0 };

/** "2 of 3 votes to accept · 1 to decline", or why nobody votes. */
export function votesText(votes) {
  const { voters, accept, decline, needed } = votes || NO_VOTES;
  if (!voters.length) return gettext("Nobody else was online to vote on it");
  const declines = decline ? gettext(" · %(count)s to decline", { count: decline }) : "";
  return ngettext("%(accept)s of %(count)s vote to accept", "%(accept)s of %(count)s votes to accept", needed, { accept }) + declines;
}

export class ChallengeVotes {
  constructor(code, { onVote, onRule }) {
    this.key = `boggle.votes.${code}`;
    this.onVote = onVote;
    this.onRule = onRule;
    const stored = load(this.key, {});
    this.mine = stored && typeof stored === "object" ? stored : {}; // challenge id → accept
    this.sentVotes = new Map(); // challenge id → accept, sent and not yet answered
    this.sentRulings = new Set(); // challenge ids the host ruled on, not yet answered
  }

  /** The server took my vote. */
  confirmed(challenge) {
    if (!challenge || !this.sentVotes.has(challenge.id)) return;
    this.mine[challenge.id] = this.sentVotes.get(challenge.id);
    this.sentVotes.delete(challenge.id);
    save(this.key, this.mine);
  }

  /** A vote or ruling was refused (the notice says why): the buttons work again. */
  failed() {
    const waiting = this.sentVotes.size + this.sentRulings.size;
    this.sentVotes.clear();
    this.sentRulings.clear();
    return waiting > 0;
  }

  clear() {
    this.sentVotes.clear();
    this.sentRulings.clear();
  }

  /** What a challenge's line shows after its text: the outcome, or the votes and buttons. */
  status(store, challenge, redraw) {
    const votes = challenge.votes || NO_VOTES;
    if (challenge.status === "accepted") {
      return h("span", { class: "challenge-status accepted", text: gettext("Accepted ✓") });
    }
    if (challenge.status === "declined") {
      return h("span", { class: "challenge-status declined", text: gettext("Declined") });
    }
    const ended = Boolean(store.state.standing);
    const word = challenge.word.toUpperCase();
    const isMine = challenge.player_id === store.you;
    let note = "";
    if (ended) note = gettext("Still open when the game ended");
    else if (!votes.voters.length) note = store.isHost && !isMine ? "" : gettext("It stays open");
    else if (isMine && votes.voters.length) note = gettext("The others vote");
    else if (!votes.voters.includes(store.you) && !(store.isHost && !isMine)) note = gettext("Waiting for the votes");
    const parts = [
      h(
        "span",
        { class: "challenge-status pending vote-count" },
        votesText(votes),
        note ? h("span", { class: "vote-note", text: ` · ${note}` }) : null,
      ),
    ];
    if (!ended && votes.voters.includes(store.you)) parts.push(this.voteButtons(challenge, word, redraw, store.you));
    if (!ended && store.isHost && !isMine) parts.push(this.ruleButtons(challenge, word, redraw));
    return h("span", { class: "challenge-votes" }, ...parts);
  }

  voteButtons(challenge, word, redraw, you) {
    const id = challenge.id;
    const sending = this.sentVotes.has(id);
    const choice = sending ? this.sentVotes.get(id) : this.mine[id];
    // Voted from another device or before a reload this page does not remember.
    const votedElsewhere = choice === undefined && (challenge.votes.voted || []).includes(you);
    const vote = (accept) => {
      if (this.onVote(id, accept)) {
        this.sentVotes.set(id, accept);
        redraw();
      }
    };
    const button = (accept) => {
      const pressed = choice === accept;
      return h("button", {
        type: "button",
        class: `button small vote-button${pressed ? " primary" : ""}`,
        "aria-pressed": pressed ? "true" : "false",
        "aria-label": accept ? gettext("Vote to accept %(word)s", { word }) : gettext("Vote to decline %(word)s", { word }),
        dataset: { focusKey: `vote-${accept ? "accept" : "decline"}:${id}` },
        on: { click: () => vote(accept) },
        text: accept ? gettext("Accept") : gettext("Decline"),
      });
    };
    return h(
      "span",
      { class: "challenge-actions vote-buttons", role: "group", "aria-label": gettext("Your vote on %(word)s", { word }) },
      h("span", { class: "vote-label", text: sending ? gettext("Sending…") : votedElsewhere ? gettext("You voted; change:") : gettext("Your vote:") }),
      button(true),
      button(false),
    );
  }

  ruleButtons(challenge, word, redraw) {
    const id = challenge.id;
    const waiting = this.sentRulings.has(id);
    const rule = (accept) => {
      if (this.onRule(id, accept)) {
        this.sentRulings.add(id);
        redraw();
      }
    };
    return h(
      "span",
      { class: "challenge-actions rule-buttons", role: "group", "aria-label": gettext("Rule on %(word)s as the host", { word }) },
      h("span", { class: "vote-label", text: gettext("As host:") }),
      h("button", {
        type: "button",
        class: "button small",
        "aria-label": gettext("Accept %(word)s", { word }),
        title: gettext("Decide now, whatever the votes"),
        dataset: { focusKey: `accept:${id}` },
        disabled: waiting,
        on: { click: () => rule(true) },
        text: gettext("Accept"),
      }),
      h("button", {
        type: "button",
        class: "button small",
        "aria-label": gettext("Decline %(word)s", { word }),
        title: gettext("Decide now, whatever the votes"),
        dataset: { focusKey: `decline:${id}` },
        disabled: waiting,
        on: { click: () => rule(false) },
        text: gettext("Decline"),
      }),
    );
  }
}
