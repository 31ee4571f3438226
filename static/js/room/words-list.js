// What both views of an ended round draw alike: the room's results (results.js, which adds
// challenges, votes and meanings) and the read-only round page (round/view.js). The
// scoreboard, everyone's words, every word on the board by length, and the board whose path
// lights when a word is picked. A view extends RoundWords and says who "you" are, what a
// player is called, and what its chips and caption add.

import { h } from "../lib/dom.js";
import { gettext, ngettext } from "../lib/i18n.js";
import { tableHead } from "../lib/table.js";
import { BoardView } from "./board.js";
import { countedWords, ordinal, percentText, pointsText, reasonText, roundRanks, wordsText } from "./format.js";
import { resultTeam, teamMark } from "./teams.js";

// Groups with at most this many missed words show them open.
const OPEN_MISSED_UP_TO = 15;

const PROMPT = () => gettext("Pick a word to see it on the board.");

export class RoundWords {
  /** `body` holds the drawn results; `this.results` is set by the view before it draws. */
  constructor(body) {
    this.body = body;
    this.results = null;
    this.selected = null;
  }

  /** The player reading the page (null when nobody is: the read-only page). */
  get you() {
    return null;
  }

  /** A player's name as this view shows it. */
  nickname(id) {
    return String(id);
  }

  /** What follows a player's name on the scoreboard (the room's reactions). */
  scoreExtra(_entry) {
    return null;
  }

  /** What follows a picked word's caption (the room's "What does it mean?"). */
  captionExtra(_word) {
    return null;
  }

  /** The board card; picking a word shows its path and worth here. */
  boardCard(results, label) {
    const boardBox = h("div", { class: "results-board" });
    this.caption = h("p", { class: "selected-word", "aria-live": "polite", text: PROMPT() });
    this.board = new BoardView(boardBox, { label });
    this.board.setBoard(results.round);
    return h("section", { class: "card board-card", "aria-label": gettext("The board") }, boardBox, this.caption);
  }

  /** In a teams round, a player's team (its shape, number and name), else nothing. */
  teamBadge(results, playerId) {
    const team = resultTeam(results, playerId);
    return team ? teamMark(team, { short: true, className: "team-badge" }) : null;
  }

  /** Ranks, round and total points, each share of the maximum; `extra` goes under the table. */
  scoreboard(results, extra = null) {
    const ranks = roundRanks(results.players, results.round);
    const rows = results.players.map((entry, index) => {
      const rank = ranks[index];
      const mine = entry.id === this.you;
      const note = gettext("%(words)s · %(share)s of max", { words: wordsText(countedWords(entry)), share: percentText(entry.share_of_max) });
      return h(
        "tr",
        { class: mine ? "mine" : null },
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
          mine ? h("span", { class: "badge you", text: gettext("you") }) : null,
          this.teamBadge(results, entry.id),
          h(
            "span",
            { class: "share-of-max" },
            h("span", { class: "share-bar", "aria-hidden": "true" }, h("span", { style: `width:${Math.min(100, entry.share_of_max * 100)}%` })),
            h("span", { class: "share-note", text: note }),
          ),
          this.scoreExtra(entry),
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
        tableHead([
          { text: "#", class: "rank" },
          { text: gettext("Player") },
          { text: gettext("Round"), class: "num" },
          { text: gettext("Total"), class: "num" },
        ]),
        h("tbody", {}, ...rows),
      ),
      extra,
    );
  }

  /**
   * Each player's words, cancelled duplicates struck, refused ones apart. `accepted` holds
   * words counted on challenge (so marked); `refusedExtras(entry, word)` adds to a refused chip.
   */
  playersWords(results, { accepted = new Set(), refusedExtras = () => [] } = {}) {
    const sections = results.players.map((entry) => {
      const chips = entry.words.map((word) => {
        let note = word.cancelled ? gettext("duplicate · 0") : `+${word.points}`;
        if (accepted.has(word.word)) note += ` · ${gettext("accepted on challenge")}`;
        return this.chip(word.word, word.path, { note, struck: word.cancelled, kind: word.cancelled ? "cancelled" : "good" });
      });
      const refused = entry.rejected.map((word) =>
        h(
          "li",
          { class: "chip rejected", dataset: { word: word.word } },
          h("s", { class: "chip-word", text: word.word }),
          h("span", { class: "chip-note", text: reasonText(word, results.round) }),
          ...refusedExtras(entry, word),
        ),
      );
      return h(
        "section",
        { class: "player-words", dataset: { playerId: entry.id } },
        h(
          "h3",
          {},
          h("span", { class: "nickname", text: entry.nickname }),
          this.teamBadge(results, entry.id),
          h("span", { class: "muted", text: ` · ${pointsText(entry.round_points)}` }),
        ),
        chips.length ? h("ul", { class: "chips" }, ...chips) : h("p", { class: "hint", text: gettext("No words this round.") }),
        refused.length ? h("div", { class: "refused" }, h("h4", { text: gettext("Did not count") }), h("ul", { class: "chips" }, ...refused)) : null,
      );
    });
    return h(
      "section",
      { class: "card", "aria-labelledby": "players-words-title" },
      h("h2", { id: "players-words-title", text: gettext("Everyone's words") }),
      ...sections,
    );
  }

  /** Every word on the board, longest first; a found word's note is `foundNote(entry)`. */
  allWords(results, foundNote) {
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
      // Unfound rare words (not among the words most players know) go apart, below.
      const missed = words.filter((entry) => !entry.found_by.length && entry.common !== false);
      const detail = gettext(" · %(points)s each · %(found)s of %(all)s found", {
        points: pointsText(words[0].points),
        found: found.length,
        all: words.length,
      });
      const foundChips = found.map((entry) =>
        this.chip(entry.word, entry.path, {
          note: `+${entry.points} · ${foundNote(entry)}`,
          kind: entry.found_by.includes(this.you) ? "mine" : "found",
        }),
      );
      return h(
        "section",
        { class: "word-group", dataset: { length } },
        h("h3", {}, gettext("%(count)s letters", { count: length }), h("span", { class: "muted", text: detail })),
        foundChips.length ? h("ul", { class: "chips" }, ...foundChips) : null,
        missed.length
          ? h(
              "details",
              { class: "missed", open: missed.length <= OPEN_MISSED_UP_TO },
              h("summary", {}, gettext("Nobody found (%(count)s)", { count: missed.length })),
              h("ul", { class: "chips" }, ...missed.map((entry) => this.chip(entry.word, entry.path, { kind: "missed", note: `+${entry.points}` }))),
            )
          : null,
      );
    });
    return h(
      "section",
      { class: "card all-words", "aria-labelledby": "all-words-title" },
      h("h2", { id: "all-words-title", text: ngettext("All %(count)s word", "All %(count)s words", results.word_count) }),
      results.word_count ? null : h("p", { class: "hint", text: gettext("No words fit this board.") }),
      ...sections,
      this.rareWords(results),
    );
  }

  /** Unfound words few players know, longest first, collapsed: "and 143 rare words". */
  rareWords(results) {
    const rare = results.solution
      .filter((entry) => entry.common === false && !entry.found_by.length)
      .sort((a, b) => b.word.length - a.word.length || a.word.localeCompare(b.word));
    if (!rare.length) return null;
    return h(
      "details",
      { class: "missed rare-words" },
      h("summary", {}, ngettext("and %(count)s rare word", "and %(count)s rare words", rare.length)),
      h("ul", { class: "chips" }, ...rare.map((entry) => this.chip(entry.word, entry.path, { kind: "missed", note: `+${entry.points}` }))),
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
        dataset: { word },
        on: { click: () => this.select(button, word, path, detail) },
      },
      struck ? h("s", { class: "chip-word", text: word }) : h("span", { class: "chip-word", text: word }),
      note ? h("span", { class: "chip-note", text: note }) : null,
      // The name read out starts with what the chip shows (speech input says what it sees).
      h("span", { class: "visually-hidden", text: `: ${detail}` }),
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

  /** Light a word's path and say what it was worth; picking it again clears the board. */
  select(button, word, path, detail) {
    for (const pressed of this.body.querySelectorAll(".chip-button[aria-pressed=true]")) {
      pressed.setAttribute("aria-pressed", "false");
    }
    if (this.selected === button) {
      this.selected = null;
      this.board.highlight([]);
      this.caption.textContent = PROMPT();
      return;
    }
    this.selected = button;
    button.setAttribute("aria-pressed", "true");
    this.board.highlight(path || [], "show");
    const extra = this.captionExtra(word);
    this.caption.replaceChildren(h("strong", { class: "caption-word", text: word }), h("span", { text: ` · ${detail}` }), ...(extra ? [extra] : []));
  }

  /** "Ann", "Ann and Bob", "Ann, Bob and Kim". */
  names(ids) {
    const names = ids.map((id) => this.nickname(id));
    if (names.length < 2) return names.join("");
    return gettext("%(names)s and %(last)s", { names: names.slice(0, -1).join(", "), last: names[names.length - 1] });
  }
}
