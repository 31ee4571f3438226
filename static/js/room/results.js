// A finished round: the scoreboard (round and running totals, share of the maximum),
// everyone's words with cancelled and refused ones marked, every word on the board by
// length with the ones nobody found set apart. Picking a word lights its path.
// House rules: a player challenges a word of theirs the dictionary refused, the room
// votes on it (votes.js; the host may rule on others' challenges), and an accepted word
// counts (marked so in words, not colour).

import { h } from "../lib/dom.js";
import { gettext } from "../lib/i18n.js";
import { countedWords, ordinal, percentText, pointsText, reasonText, roundRanks, wordsText } from "./format.js";
import { BoardView } from "./board.js";
import { meaningButton } from "./definitions.js";
import { replayButton } from "./replay.js";
import { shareResultsButton } from "./share-results.js";
import { shareRoundButtons } from "./share-round.js";
import { ChallengeVotes } from "./votes.js";

// Groups with at most this many missed words show them open.
const OPEN_MISSED_UP_TO = 15;

export class ResultsView {
  constructor(root, { store, onNextRound, onChallenge = () => false, onRule = () => false, onVote = () => false }) {
    this.root = root;
    this.store = store;
    this.title = root.querySelector("#results-title");
    this.summary = root.querySelector("#results-summary");
    this.nextButton = root.querySelector("#next-round");
    this.nextWait = root.querySelector("#next-wait");
    this.body = root.querySelector("#results-body");
    this.results = null;
    this.selected = null;
    this.onChallenge = onChallenge;
    this.onRule = onRule;
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
    const ended = Boolean(store.state.standing);
    this.nextButton.hidden = !store.isHost || ended;
    this.nextWait.hidden = store.isHost || ended;
    this.nextWait.textContent = host ? gettext("Waiting for %(nickname)s to start the next round.", { nickname: host.nickname }) : gettext("Waiting for a host.");
    this.nextButton.textContent = gettext("Start round %(number)s", { number: results.round.number + 1 });
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
    this.title.textContent = gettext("Round %(number)s results", { number: results.round.number });
    this.summary.textContent = this.summaryText(store, results);
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
    return gettext("You scored %(points)s: %(share)s of the maximum. %(total)s", {
      points: pointsText(me.round_points),
      share: percentText(me.share_of_max),
      total,
    });
  }

  build(store, results) {
    const boardBox = h("div", { class: "results-board" });
    this.caption = h("p", { class: "selected-word", "aria-live": "polite", text: gettext("Pick a word to see it on the board.") });
    const boardCard = h(
      "section",
      { class: "card board-card", "aria-label": gettext("The board") },
      boardBox,
      this.caption,
    );
    this.board = new BoardView(boardBox, { label: gettext("This round's board") });
    this.board.setBoard(results.round);
    const focused = document.activeElement && this.body.contains(document.activeElement)
      ? document.activeElement.dataset.focusKey
      : null;
    this.body.replaceChildren(
      h(
        "div",
        { class: "results-layout" },
        this.scoreboard(store, results),
        boardCard,
        this.playersWords(store, results),
        this.allWords(store, results),
        // Not in the board card: that one sticks to the top of a phone's screen.
        h(
          "section",
          { class: "card replay-card", "aria-label": gettext("Share and play again") },
          shareResultsButton(results),
          shareRoundButtons(store.state.code, results.round.number),
          replayButton(store, results),
        ),
      ),
    );
    if (focused) {
      const again = this.body.querySelector(`[data-focus-key="${CSS.escape(focused)}"]`);
      // The button is gone (the challenge was sent or ruled): keep the keyboard nearby.
      const fallback = this.body.querySelector("#challenges-title");
      (again && !again.disabled ? again : fallback || this.title).focus();
    }
  }

  scoreboard(store, results) {
    const ranks = roundRanks(results.players);
    const rows = results.players.map((entry, index) => {
      const rank = ranks[index];
      const counted = countedWords(entry);
      return h(
        "tr",
        { class: entry.id === store.you ? "mine" : "" },
        h(
          "td",
          { class: "rank" },
          rank === 1 && entry.round_points > 0 ? h("span", { class: "trophy", "aria-hidden": "true", text: "★ " }) : null,
          ordinal(rank),
        ),
        h(
          "th",
          { scope: "row", class: "who" },
          h("span", { class: "nickname", text: entry.nickname }),
          entry.id === store.you ? h("span", { class: "badge you", text: gettext("you") }) : null,
          h(
            "span",
            { class: "share-of-max" },
            h("span", { class: "share-bar", "aria-hidden": "true" }, h("span", { style: `width:${Math.min(100, entry.share_of_max * 100)}%` })),
            h("span", { class: "share-note", text: gettext("%(words)s · %(share)s of max", { words: wordsText(counted), share: percentText(entry.share_of_max) }) }),
          ),
        ),
        h("td", { class: "num", text: entry.round_points }),
        h("td", { class: "num total", text: entry.total_points }),
      );
    });
    return h(
      "section",
      { class: "card scoreboard-card", "aria-labelledby": "scores-title" },
      h("h2", { id: "scores-title", text: gettext("Scores") }),
      h(
        "table",
        { class: "scoreboard" },
        h(
          "thead",
          {},
          h(
            "tr",
            {},
            h("th", { scope: "col", class: "rank", text: "#" }),
            h("th", { scope: "col", text: gettext("Player") }),
            h("th", { scope: "col", class: "num", text: gettext("Round") }),
            h("th", { scope: "col", class: "num", text: gettext("Total") }),
          ),
        ),
        h("tbody", {}, ...rows),
      ),
      this.challengeList(store, results),
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

  playersWords(store, results) {
    const accepted = this.acceptedWords(results);
    const challenged = new Map(
      this.challenges(results).map((item) => [`${item.player_id}:${item.word}`, item]),
    );
    const sections = results.players.map((entry) => {
      const chips = entry.words.map((word) => {
        let note = word.cancelled ? gettext("duplicate · 0") : `+${word.points}`;
        if (accepted.has(word.word)) note += ` · ${gettext("accepted on challenge")}`;
        return this.chip(word.word, word.path, {
          note,
          struck: word.cancelled,
          kind: word.cancelled ? "cancelled" : "good",
        });
      });
      const refused = entry.rejected.map((word) =>
        h(
          "li",
          { class: "chip rejected", dataset: { word: word.word } },
          h("s", { class: "chip-word", text: word.word }),
          h("span", { class: "chip-note", text: reasonText(word) }),
          meaningButton(word.word, results.round.dictionary, { compact: true }),
          entry.id === store.you ? this.challengeControl(store, results, word, challenged.get(`${entry.id}:${word.word}`)) : null,
        ),
      );
      return h(
        "section",
        { class: "player-words", dataset: { playerId: entry.id } },
        h(
          "h3",
          {},
          h("span", { class: "nickname", text: entry.nickname }),
          h("span", { class: "muted", text: ` · ${pointsText(entry.round_points)}` }),
        ),
        chips.length ? h("ul", { class: "chips" }, ...chips) : h("p", { class: "hint", text: gettext("No words this round.") }),
        refused.length
          ? h("div", { class: "refused" }, h("h4", { text: gettext("Did not count") }), h("ul", { class: "chips" }, ...refused))
          : null,
      );
    });
    return h(
      "section",
      { class: "card", "aria-labelledby": "players-words-title" },
      h("h2", { id: "players-words-title", text: gettext("Everyone's words") }),
      ...sections,
    );
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

  allWords(store, results) {
    const groups = new Map();
    for (const entry of results.solution) {
      const length = entry.word.length;
      if (!groups.has(length)) groups.set(length, []);
      groups.get(length).push(entry);
    }
    const lengths = [...groups.keys()].sort((a, b) => b - a);
    const sections = lengths.map((length) => {
      const words = groups.get(length).sort((a, b) => a.word.localeCompare(b.word));
      const found = words.filter((entry) => entry.found_by.length);
      const missed = words.filter((entry) => !entry.found_by.length);
      const points = words[0].points;
      const foundChips = found.map((entry) =>
        this.chip(entry.word, entry.path, {
          note: entry.found_by.map((id) => (id === store.you ? gettext("you") : this.store.nickname(id))).join(", "),
          kind: entry.found_by.includes(store.you) ? "mine" : "found",
        }),
      );
      const missedChips = missed.map((entry) =>
        this.chip(entry.word, entry.path, { kind: "missed" }),
      );
      return h(
        "section",
        { class: "word-group", dataset: { length } },
        h(
          "h3",
          {},
          gettext("%(count)s letters", { count: length }),
          h("span", {
            class: "muted",
            text: gettext(" · %(points)s each · %(found)s of %(all)s found", {
              points: pointsText(points),
              found: found.length,
              all: words.length,
            }),
          }),
        ),
        foundChips.length ? h("ul", { class: "chips" }, ...foundChips) : null,
        missedChips.length
          ? h(
              "details",
              { class: "missed", open: missedChips.length <= OPEN_MISSED_UP_TO },
              h("summary", {}, gettext("Nobody found (%(count)s)", { count: missedChips.length })),
              h("ul", { class: "chips" }, ...missedChips),
            )
          : null,
      );
    });
    return h(
      "section",
      { class: "card all-words", "aria-labelledby": "all-words-title" },
      h("h2", { id: "all-words-title", text: gettext("All %(words)s", { words: wordsText(results.word_count) }) }),
      results.word_count ? null : h("p", { class: "hint", text: gettext("No words fit this board.") }),
      ...sections,
    );
  }

  /** A word as a button that lights its path; `struck` words are crossed out and labelled. */
  chip(word, path, { note = "", struck = false, kind = "" }) {
    const detail = this.detail(word);
    const button = h(
      "button",
      {
        type: "button",
        class: "chip-button",
        "aria-pressed": "false",
        "aria-label": `${word}: ${detail}`,
        dataset: { word },
        on: { click: () => this.select(button, word, path, detail) },
      },
      struck ? h("s", { class: "chip-word", text: word }) : h("span", { class: "chip-word", text: word }),
      note ? h("span", { class: "chip-note", text: note }) : null,
    );
    return h("li", { class: `chip ${kind}` }, button);
  }

  /** What a word was worth this round, and to whom. */
  detail(word) {
    const results = this.results;
    const entry = results.solution.find((item) => item.word === word);
    if (!entry) return gettext("not on the board");
    const points = pointsText(entry.points);
    const finders = entry.found_by;
    if (!finders.length) return gettext("%(points)s; nobody found it", { points });
    if (finders.length > 1 && results.round.cancel_duplicates) {
      return gettext("%(points)s, but found by %(names)s, so it scores for nobody", { points, names: this.names(finders) });
    }
    return gettext("%(points)s, found by %(names)s", { points, names: this.names(finders) });
  }

  select(button, word, path, detail) {
    for (const pressed of this.body.querySelectorAll(".chip-button[aria-pressed=true]")) {
      pressed.setAttribute("aria-pressed", "false");
    }
    if (this.selected === button) {
      this.selected = null;
      this.board.highlight([]);
      this.caption.textContent = gettext("Pick a word to see it on the board.");
      return;
    }
    this.selected = button;
    button.setAttribute("aria-pressed", "true");
    this.board.highlight(path || [], "show");
    this.caption.replaceChildren(h("strong", { class: "caption-word", text: word }), h("span", { text: ` · ${detail}` }), meaningButton(word, this.results.round.dictionary));
  }

  /** "Ann", "Ann and you", "Ann, Bob and you". */
  names(ids) {
    const names = ids.map((id) => (id === this.store.you ? gettext("you") : this.store.nickname(id)));
    if (names.length < 2) return names.join("");
    return gettext("%(names)s and %(last)s", { names: names.slice(0, -1).join(", "), last: names[names.length - 1] });
  }
}
