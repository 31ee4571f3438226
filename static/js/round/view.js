// An ended round's results, read-only (the page a shared link opens): the board, the
// scoreboard, each player's words and every word on the board by length. Picking a word
// lights its path on the board. It offers no action: no votes, challenges or rounds.

import { h } from "../lib/dom.js";
import { gettext, ngettext } from "../lib/i18n.js";
import { BoardView } from "../room/board.js";
import { countedWords, ordinal, percentText, pointsText, roundRanks } from "../room/format.js";

// Groups with at most this many missed words show them open.
const OPEN_MISSED_UP_TO = 15;

export class RoundView {
  constructor(body, results) {
    this.body = body;
    this.results = results;
    this.selected = null;
    this.nicknames = new Map(results.players.map((entry) => [entry.id, entry.nickname]));
  }

  /** The line under the title: how much the board held. */
  summary() {
    const { word_count: count, max_points: points } = this.results;
    return ngettext("The board had %(count)s word worth %(points)s.", "The board had %(count)s words worth %(points)s.", count, {
      points: pointsText(points),
    });
  }

  render() {
    const results = this.results;
    const boardBox = h("div", { class: "results-board" });
    const prompt = gettext("Pick a word to see it on the board.");
    this.caption = h("p", { class: "selected-word", "aria-live": "polite", text: prompt });
    this.prompt = prompt;
    const boardCard = h("section", { class: "card board-card", "aria-label": gettext("The board") }, boardBox, this.caption);
    this.board = new BoardView(boardBox, { label: gettext("Round %(number)s's board", { number: results.round.number }) });
    this.board.setBoard(results.round);
    this.body.replaceChildren(
      h("div", { class: "results-layout" }, this.scoreboard(), boardCard, this.playersWords(), this.allWords()),
    );
  }

  scoreboard() {
    const ranks = roundRanks(this.results.players);
    const rows = this.results.players.map((entry, index) => {
      const counted = countedWords(entry);
      const note = ngettext("%(count)s word · %(share)s of max", "%(count)s words · %(share)s of max", counted, {
        share: percentText(entry.share_of_max),
      });
      return h(
        "tr",
        {},
        h(
          "td",
          { class: "rank" },
          ranks[index] === 1 && entry.round_points > 0 ? h("span", { class: "trophy", "aria-hidden": "true", text: "★ " }) : null,
          ordinal(ranks[index]),
        ),
        h(
          "th",
          { scope: "row", class: "who" },
          h("span", { class: "nickname", text: entry.nickname }),
          h(
            "span",
            { class: "share-of-max" },
            h("span", { class: "share-bar", "aria-hidden": "true" }, h("span", { style: `width:${Math.min(100, entry.share_of_max * 100)}%` })),
            h("span", { class: "share-note", text: note }),
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
    );
  }

  playersWords() {
    const sections = this.results.players.map((entry) => {
      const chips = entry.words.map((word) =>
        this.chip(word.word, word.path, {
          note: word.cancelled ? gettext("duplicate · 0") : `+${word.points}`,
          struck: word.cancelled,
          kind: word.cancelled ? "cancelled" : "good",
        }),
      );
      const refused = entry.rejected.map((word) =>
        h(
          "li",
          { class: "chip rejected", dataset: { word: word.word } },
          h("s", { class: "chip-word", text: word.word }),
          h("span", { class: "chip-note", text: word.reason }),
        ),
      );
      return h(
        "section",
        { class: "player-words", dataset: { playerId: entry.id } },
        h("h3", {}, h("span", { class: "nickname", text: entry.nickname }), h("span", { class: "muted", text: ` · ${pointsText(entry.round_points)}` })),
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

  allWords() {
    const groups = new Map();
    for (const entry of this.results.solution) {
      const length = entry.word.length;
      if (!groups.has(length)) groups.set(length, []);
      groups.get(length).push(entry);
    }
    const sections = [...groups.keys()]
      .sort((a, b) => b - a)
      .map((length) => {
        const words = groups.get(length).sort((a, b) => a.word.localeCompare(b.word));
        const found = words.filter((entry) => entry.found_by.length);
        const missed = words.filter((entry) => !entry.found_by.length);
        const heading = gettext("%(length)s letters", { length });
        const detail = gettext(" · %(points)s each · %(found)s of %(total)s found", {
          points: pointsText(words[0].points),
          found: found.length,
          total: words.length,
        });
        return h(
          "section",
          { class: "word-group", dataset: { length } },
          h("h3", {}, heading, h("span", { class: "muted", text: detail })),
          found.length
            ? h("ul", { class: "chips" }, ...found.map((entry) => this.chip(entry.word, entry.path, { note: this.names(entry.found_by), kind: "found" })))
            : null,
          missed.length
            ? h(
                "details",
                { class: "missed", open: missed.length <= OPEN_MISSED_UP_TO },
                h("summary", {}, gettext("Nobody found (%(count)s)", { count: missed.length })),
                h("ul", { class: "chips" }, ...missed.map((entry) => this.chip(entry.word, entry.path, { kind: "missed" }))),
              )
            : null,
        );
      });
    const count = this.results.word_count;
    return h(
      "section",
      { class: "card all-words", "aria-labelledby": "all-words-title" },
      h("h2", { id: "all-words-title", text: ngettext("All %(count)s word", "All %(count)s words", count) }),
      count ? null : h("p", { class: "hint", text: gettext("No words fit this board.") }),
      ...sections,
    );
  }

  /** A word as a button that lights its path; `struck` words are crossed out. */
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
    const entry = this.results.solution.find((item) => item.word === word);
    if (!entry) return gettext("not on the board");
    const points = pointsText(entry.points);
    const finders = entry.found_by;
    if (!finders.length) return gettext("%(points)s; nobody found it", { points });
    if (finders.length > 1 && this.results.round.cancel_duplicates) {
      return gettext("%(points)s, but found by %(names)s, so it scores for nobody", { points, names: this.names(finders) });
    }
    return gettext("%(points)s, found by %(names)s", { points, names: this.names(finders) });
  }

  select(button, word, path, detail) {
    for (const pressed of this.body.querySelectorAll(".chip-button[aria-pressed=true]")) pressed.setAttribute("aria-pressed", "false");
    if (this.selected === button) {
      this.selected = null;
      this.board.highlight([]);
      this.caption.textContent = this.prompt;
      return;
    }
    this.selected = button;
    button.setAttribute("aria-pressed", "true");
    this.board.highlight(path || [], "show");
    this.caption.replaceChildren(h("strong", { class: "caption-word", text: word }), h("span", { text: ` · ${detail}` }));
  }

  /** "Ann", "Ann and Bob", "Ann, Bob and Kim". */
  names(ids) {
    const names = ids.map((id) => this.nicknames.get(id) || gettext("someone"));
    if (names.length < 2) return names.join("");
    return gettext("%(names)s and %(last)s", { names: names.slice(0, -1).join(", "), last: names[names.length - 1] });
  }
}
