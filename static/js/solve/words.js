// Every word on a solved board (GET /api/solve's answer): the count and the most points
// the board gives, then the words by length, longest first, with the points each. Words
// most players know come first; rare ones are folded under each length. Filters narrow the
// list by length, first letters and letters inside. A word's chip lights its path on the
// board pane (board-pane.js); tapped again, it opens the word's meaning.

import { h } from "../lib/dom.js";
import { gettext, ngettext } from "../lib/i18n.js";
import { pointsText, wordsText } from "../room/format.js";
import { PaneWords } from "./board-pane.js";
import { plainLetters } from "./board-text.js";

/** Only the letters of a filter field, as the words are stored ("Qu" is q, u). */
function filterText(value) {
  return plainLetters(value).replace(/[^a-z]/g, "");
}

export class WordsView {
  /** `el`: {title, summary, filters, length, start, contains, count, clear, groups}. */
  constructor(el, pane) {
    this.el = el;
    this.pane = pane;
    this.answer = null;
    this.byWord = new Map();
    this.chips = new PaneWords(el.groups, pane, (word) => this.detail(word));
    el.filters.addEventListener("submit", (event) => event.preventDefault());
    for (const field of [el.length, el.start, el.contains]) field.addEventListener("input", () => this.draw());
    el.clear.addEventListener("click", () => {
      this.resetFilters();
      this.draw();
      el.start.focus();
    });
  }

  resetFilters() {
    this.el.length.value = "";
    this.el.start.value = "";
    this.el.contains.value = "";
  }

  /** Show a new answer; the filters start empty. */
  render(answer) {
    this.answer = answer;
    this.byWord = new Map(answer.words.map((entry) => [entry.word, entry]));
    this.el.title.textContent = ngettext("%(count)s word", "%(count)s words", answer.word_count);
    this.el.summary.textContent = answer.word_count
      ? gettext("Worth %(points)s in all. Common words first; rare ones are folded under each length.", {
          points: pointsText(answer.max_points),
        })
      : gettext("No words fit this board.");
    const lengths = [...new Set(answer.words.map((entry) => entry.word.length))].sort((a, b) => a - b);
    this.el.length.replaceChildren(
      new Option(gettext("All lengths"), ""),
      ...lengths.map((length) => new Option(gettext("%(count)s letters", { count: length }), String(length))),
    );
    this.resetFilters();
    this.el.filters.hidden = !answer.word_count;
    this.draw();
  }

  /** What a word is worth, said with its chip and under the board. */
  detail(word) {
    const entry = this.byWord.get(word);
    if (!entry) return "";
    const points = pointsText(entry.points);
    return entry.common ? gettext("%(points)s, a common word", { points }) : gettext("%(points)s, a rare word", { points });
  }

  /** The words the filters let through. */
  shown() {
    const length = Number(this.el.length.value) || 0;
    const start = filterText(this.el.start.value);
    const inside = filterText(this.el.contains.value);
    return this.answer.words.filter(
      (entry) =>
        (!length || entry.word.length === length) &&
        (!start || entry.word.startsWith(start)) &&
        (!inside || entry.word.includes(inside)),
    );
  }

  draw() {
    const answer = this.answer;
    if (!answer) return;
    const words = this.shown();
    const filtering = words.length !== answer.words.length;
    this.el.clear.hidden = !filtering;
    this.el.count.hidden = !answer.word_count;
    this.el.count.textContent = filtering
      ? gettext("Showing %(shown)s of %(all)s.", { shown: wordsText(words.length), all: answer.words.length })
      : "";
    if (answer.word_count && !words.length) {
      this.el.groups.replaceChildren(h("p", { class: "hint solve-no-match", text: gettext("No word matches these filters.") }));
      return;
    }
    const groups = new Map();
    for (const entry of words) {
      const length = entry.word.length;
      if (!groups.has(length)) groups.set(length, []);
      groups.get(length).push(entry);
    }
    const lengths = [...groups.keys()].sort((a, b) => b - a);
    this.el.groups.replaceChildren(...lengths.map((length) => this.group(length, groups.get(length), filtering)));
  }

  /** One length's words: "6 letters · 3 pts each · 12 words", common ones, rare ones folded
   * (open while filtering: what matched shows). */
  group(length, entries, filtering) {
    const sorted = [...entries].sort((a, b) => a.word.localeCompare(b.word));
    const common = sorted.filter((entry) => entry.common);
    const rare = sorted.filter((entry) => !entry.common);
    const chip = (entry, kind) => this.chips.chip(entry.word, entry.path, { note: `+${entry.points}`, kind });
    const detail = gettext(" · %(points)s each · %(words)s", { points: pointsText(entries[0].points), words: wordsText(entries.length) });
    return h(
      "section",
      { class: "word-group", dataset: { length } },
      h("h3", {}, gettext("%(count)s letters", { count: length }), h("span", { class: "muted", text: detail })),
      common.length ? h("ul", { class: "chips" }, ...common.map((entry) => chip(entry, "common"))) : null,
      rare.length
        ? h(
            "details",
            { class: "rare-group", open: filtering || !common.length },
            h("summary", {}, ngettext("%(count)s rare word", "%(count)s rare words", rare.length)),
            h("ul", { class: "chips" }, ...rare.map((entry) => chip(entry, "rare"))),
          )
        : null,
    );
  }
}
