// A finished round: the scoreboard (round and running totals, share of the maximum),
// everyone's words with cancelled and refused ones marked, every word on the board by
// length with the ones nobody found set apart. Picking a word lights its path.
// House rules: a player challenges a word of theirs the dictionary refused, the room
// votes on it (votes.js; the host may rule on others' challenges), and an accepted word
// counts (marked so in words, not colour). What the read-only round page draws alike
// (scoreboard, words, the board's paths) is in words-list.js.

import { h } from "../lib/dom.js";
import { gettext } from "../lib/i18n.js";
import { countedWords, nextRoundText, percentText, pointsText, roundInGame, wordsText } from "./format.js";
import { meaningButton } from "./definitions.js";
import { emojiTray } from "./reactions.js";
import { hintsUsedText } from "./hints.js";
import { replayButton } from "./replay.js";
import { shareResultsButton } from "./share-results.js";
import { shareRoundButtons } from "./share-round.js";
import { teamBanner } from "./team.js";
import { chessOutcomeText } from "./chess.js";
import { resultTeam, teamName, teamRanking } from "./teams.js";
import { ChallengeVotes } from "./votes.js";
import { RoundWords } from "./words-list.js";

// A co-op round's words nobody found show open up to this many.
const OPEN_NOBODY_FOUND_UP_TO = 12;

export class ResultsView extends RoundWords {
  constructor(root, { store, onNextRound, onChallenge = () => false, onRule = () => false, onVote = () => false, onReact = () => false }) {
    super(root.querySelector("#results-body"));
    this.root = root;
    this.store = store;
    this.title = root.querySelector("#results-title");
    this.summary = root.querySelector("#results-summary");
    this.nextButton = root.querySelector("#next-round");
    this.nextWait = root.querySelector("#next-wait");
    this.nextLength = root.querySelector("#next-length");
    this.onChallenge = onChallenge;
    this.onRule = onRule;
    this.onReact = onReact;
    this.votes = new ChallengeVotes(store.state.code, { onVote, onRule });
    // Requests sent and not yet answered ("word:zzz", "rule:3"): their buttons wait.
    this.sending = new Set();
    this.nextButton.addEventListener("click", () => onNextRound());
  }

  render(store) {
    const results = store.state.results;
    if (!results) return;
    const host = store.player(store.state.host_id);
    // Once the host ended the game no round follows (standing.js shows the final standing).
    // A daily board's room plays one round: daily-room.js offers the leaderboard and practice.
    const ended = Boolean(store.state.standing) || Boolean(store.state.daily);
    this.nextButton.hidden = !store.isHost || ended;
    this.nextWait.hidden = store.isHost || ended;
    this.nextWait.textContent = host ? gettext("Waiting for %(nickname)s to start the next round.", { nickname: host.nickname }) : gettext("Waiting for a host.");
    this.nextButton.textContent = gettext("Start round %(number)s", { number: roundInGame(results.round) + 1 });
    // The shrinking clock: how long that round will be.
    this.nextLength.textContent = ended ? "" : nextRoundText(store.state.settings);
    this.nextLength.hidden = !this.nextLength.textContent;
    // Redraw when the results change, or the host did (the host's ruling buttons move).
    if (results === this.results && store.state.host_id === this.hostId) return;
    this.hostId = store.state.host_id;
    const newRound = !this.results || this.results.round.number !== results.round.number;
    this.results = results;
    this.selected = null;
    if (newRound) {
      this.sending.clear();
      this.votes.clear();
    }
    this.title.textContent = gettext("Round %(number)s results", { number: roundInGame(results.round) });
    // Practice rooms: "Hints: 2 (−2 pts)." after the score, which they came off (hints.js).
    // Chess-clock rounds: who won first (chess.js).
    const outcome = chessOutcomeText(results, (id) => store.nickname(id), store.you);
    this.summary.textContent = [outcome, this.summaryText(store, results), hintsUsedText(results, store.you)].filter(Boolean).join(" ");
    this.build(store, results);
  }

  /** A challenge or ruling the server refused: its buttons work again (the notice says why). */
  failed() {
    const votesWaited = this.votes.failed();
    if ((!this.sending.size && !votesWaited) || !this.results) return;
    this.sending.clear();
    this.build(this.store, this.results);
  }

  /** The server took my vote: remember it (highlighted), and show the new counts. */
  voted(challenge) {
    this.votes.confirmed(challenge);
    if (this.results) this.build(this.store, this.results);
  }

  /** The round's challenges, and the words the host accepted. */
  challenges(results) {
    return results.challenges || [];
  }

  acceptedWords(results) {
    return new Set(this.challenges(results).filter((item) => item.status === "accepted").map((item) => item.word));
  }

  summaryText(store, results) {
    const me = results.players.find((entry) => entry.id === store.you);
    const total = gettext("The board had %(words)s worth %(points)s.", {
      words: wordsText(results.word_count),
      points: pointsText(results.max_points),
    });
    if (!me) return total;
    const team = results.teams ? results.teams.find((row) => row.team === resultTeam(results, me.id)) : null;
    if (team) {
      // Teams: my team's points first (the ranking is above the players'), then mine.
      return [
        gettext("%(team)s scored %(points)s this round.", { team: teamName(team.team), points: pointsText(team.round_points) }),
        gettext("You scored %(points)s: %(share)s of the maximum. %(total)s", {
          points: pointsText(me.round_points),
          share: percentText(me.share_of_max),
          total,
        }),
      ].join(" ");
    }
    if (results.team) {
      // Co-op: the team's result is the banner's; here, my part in it.
      return gettext("You found %(words)s for the team. %(total)s", { words: wordsText(countedWords(me)), total });
    }
    // One share, the scoreboard's; what the common words were worth comes as points, so
    // that a broad list's maximum does not read as failure (a second share confused).
    const board =
      results.common_max_points && results.common_max_points < results.max_points
        ? gettext("The board had %(words)s worth %(points)s; its common words alone were worth %(common)s.", {
            words: wordsText(results.word_count),
            points: pointsText(results.max_points),
            common: pointsText(results.common_max_points),
          })
        : total;
    return gettext("You scored %(points)s: %(share)s of the maximum. %(total)s", {
      points: pointsText(me.round_points),
      share: percentText(me.share_of_max),
      total: board,
    });
  }

  build(store, results) {
    // Until the whole results arrive (store.completeResults), the scores and my own words.
    const complete = results.complete !== false;
    const boardCard = this.boardCard(results, gettext("This round's board"));
    const challenged = new Map(this.challenges(results).map((item) => [`${item.player_id}:${item.word}`, item]));
    const focused = document.activeElement && this.body.contains(document.activeElement)
      ? document.activeElement.dataset.focusKey
      : null;
    // (replaceChildren would write a null as "null": the optional parts are filtered.)
    const parts = [
      // Co-op: whether the team reached its goal (the words nobody found: under the board).
      results.team ? teamBanner(results.team) : null,
      // Teams: the teams ranked, above the players.
      results.teams
        ? teamRanking(results.teams, { nickname: (id) => this.nickname(id), mine: resultTeam(results, store.you) })
        : null,
      h(
        "div",
        { class: "results-layout" },
        this.scoreboard(results, this.challengeList(store, results)),
        boardCard,
        results.team && complete ? this.nobodyFound(results) : null,
        this.playersWords(complete ? results : { ...results, players: results.players.filter((entry) => entry.id === store.you) }, {
          accepted: this.acceptedWords(results),
          refusedExtras: (entry, word) => this.refusedExtras(store, results, challenged, entry, word),
        }),
        complete
          ? this.allWords(results, (entry) => entry.found_by.map((id) => this.nickname(id)).join(", "))
          : h("section", { class: "card all-words loading-words", role: "status" }, h("p", { class: "hint", text: gettext("Loading everyone's words…") })),
        // Not in the board card: that one sticks to the top of a phone's screen.
        complete
          ? h(
              "section",
              { class: "card replay-card", "aria-label": gettext("Share and play again") },
              shareResultsButton(results),
              shareRoundButtons(store.state.code, results.round.number),
              replayButton(store, results),
            )
          : null,
      ),
    ];
    this.body.replaceChildren(...parts.filter(Boolean));
    if (focused) {
      const again = this.body.querySelector(`[data-focus-key="${CSS.escape(focused)}"]`);
      // The button is gone (the challenge was sent or ruled): keep the keyboard nearby.
      const fallback = this.body.querySelector("#challenges-title");
      (again && !again.disabled ? again : fallback || this.title).focus();
    }
  }

  /** A co-op round's words nobody found, longest first, each lighting its path on the
   * board card above (sticky on a phone); folded when there are many. */
  nobodyFound(results) {
    const missed = results.solution
      .filter((entry) => !entry.found_by.length)
      .sort((a, b) => b.word.length - a.word.length || a.word.localeCompare(b.word));
    const title = gettext("Words nobody found (%(count)s)", { count: missed.length });
    if (!missed.length) {
      return h(
        "section",
        { class: "card team-missed-card", "aria-labelledby": "team-missed-title" },
        h("h2", { id: "team-missed-title", text: title }),
        h("p", { class: "team-all-found", text: gettext("The team found every word on the board!") }),
      );
    }
    return h(
      "section",
      { class: "card team-missed-card", "aria-labelledby": "team-missed-title" },
      h(
        "details",
        { class: "missed team-missed", open: missed.length <= OPEN_NOBODY_FOUND_UP_TO },
        h("summary", {}, h("h2", { id: "team-missed-title", text: title })),
        h("ul", { class: "chips" }, ...missed.map((entry) => this.chip(entry.word, entry.path, { kind: "missed", note: `+${entry.points}` }))),
      ),
    );
  }

  /** Open and decided challenges, for everyone; voters vote and the host rules here. */
  challengeList(store, results) {
    const challenges = this.challenges(results);
    if (!challenges.length) return null;
    const items = challenges.map((challenge) => {
      const word = challenge.word.toUpperCase();
      const text =
        challenge.player_id === store.you
          ? gettext("You challenge %(word)s", { word })
          : gettext("%(nickname)s challenges %(word)s", { nickname: challenge.nickname, word });
      const status = this.votes.status(store, challenge, () => this.build(store, results));
      return h(
        "li",
        { class: `challenge ${challenge.status}`, dataset: { challengeId: challenge.id, word: challenge.word } },
        h("span", { class: "challenge-text", text }),
        status,
      );
    });
    return h(
      "section",
      { class: "challenges", "aria-labelledby": "challenges-title" },
      h("h3", { id: "challenges-title", tabindex: "-1", text: gettext("Challenges") }),
      h("ul", { class: "challenge-list", "aria-live": "polite" }, ...items),
    );
  }

  /** A refused word's meaning button and, for my own, its challenge (`challenged` by "player:word"). */
  refusedExtras(store, results, challenged, entry, word) {
    return [
      meaningButton(word.word, results.round.dictionary, { compact: true }),
      entry.id === store.you ? this.challengeControl(store, results, word, challenged.get(`${entry.id}:${word.word}`)) : null,
    ];
  }

  /** For one of my refused words: a Challenge button, or how its challenge stands. */
  challengeControl(store, results, word, challenge) {
    if (challenge) {
      const text = {
        pending: gettext("challenged"),
        accepted: gettext("accepted on challenge"),
        declined: gettext("declined on challenge"),
      }[challenge.status];
      return h("span", { class: `chip-note challenge-note ${challenge.status}`, text: `· ${text || challenge.status}` });
    }
    if (word.verdict !== "not_in_dictionary" || store.state.standing) return null;
    const key = `word:${word.word}`;
    return h("button", {
      type: "button",
      class: "button small challenge-button",
      "aria-label": gettext("Challenge %(word)s: ask the room to count it", { word: word.word.toUpperCase() }),
      dataset: { focusKey: `challenge:${word.word}` },
      disabled: this.sending.has(key),
      text: this.sending.has(key) ? gettext("Sending…") : gettext("Challenge"),
      on: {
        click: () => {
          if (this.onChallenge(word.word, results.round.number)) {
            this.sending.add(key);
            this.build(store, results);
          }
        },
      },
    });
  }

  get you() {
    return this.store.you;
  }

  /** Me as "you", anyone else by nickname. */
  nickname(id) {
    return id === this.store.you ? gettext("you") : this.store.nickname(id);
  }

  /** A picked word's "What does it mean?" button, and the emoji for a word someone found. */
  captionExtra(word) {
    const meaning = meaningButton(word, this.results.round.dictionary);
    const found = this.results.players.some((entry) => entry.words.some((item) => item.word === word));
    if (!found || this.store.you === null || this.results.players.length < 2) return meaning;
    const shown = word.toUpperCase();
    const tray = emojiTray({
      className: "word-reactions",
      label: (item) => gettext("%(reaction)s: react to %(word)s", { reaction: item.label(), word: shown }),
      onPick: (emoji) => this.onReact({ emoji, word }),
    });
    return h("span", { class: "caption-extras" }, meaning, tray);
  }

  /** Another player's score takes a reaction: a button beside their name opens a row of
   * the emoji under theirs (the whole table's width: a phone's name column is narrow). */
  scoreExtra(entry) {
    if (this.store.you === null || entry.id === this.store.you) return null;
    const button = h(
      "button",
      {
        type: "button",
        class: "react-toggle",
        "aria-expanded": "false",
        "aria-label": gettext("React to %(nickname)s's score", { nickname: entry.nickname }),
        title: gettext("React"),
      },
      h("span", { "aria-hidden": "true", text: "☺" }),
    );
    const close = () => {
      button.setAttribute("aria-expanded", "false");
      const open = button.closest("tr").nextElementSibling;
      if (open && open.classList.contains("react-row")) open.remove();
    };
    button.addEventListener("click", () => {
      const row = button.closest("tr");
      const wasOpen = button.getAttribute("aria-expanded") === "true";
      for (const other of row.parentElement.querySelectorAll(".react-toggle[aria-expanded=true]")) other.click();
      if (wasOpen) return;
      const tray = emojiTray({
        label: (item) => gettext("%(reaction)s: react to %(nickname)s's score", { reaction: item.label(), nickname: entry.nickname }),
        onPick: (emoji) => {
          this.onReact({ emoji, player_id: entry.id });
          close();
          button.focus();
        },
      });
      row.after(h("tr", { class: "react-row" }, h("td", { colspan: String(row.children.length) }, tray)));
      button.setAttribute("aria-expanded", "true");
      tray.querySelector("button").focus();
    });
    return button;
  }

}
