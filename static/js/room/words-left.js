// "Words left" during a round: a chip that opens counts per word length of the board's
// common words the player has not found yet (the server sends counts, never the words).

import { h } from "../lib/dom.js";
import { gettext, ngettext } from "../lib/i18n.js";

/** Rows per length: {length, total, common, left, commonLeft}, the player's finds taken off. */
export function wordsLeft(counts, words) {
  const found = new Map();
  const foundCommon = new Map();
  if (!counts.verdicts_hidden) {
    for (const entry of words) {
      if (!entry.accepted) continue;
      const n = entry.word.length;
      found.set(n, (found.get(n) || 0) + 1);
      if (entry.common) foundCommon.set(n, (foundCommon.get(n) || 0) + 1);
    }
  }
  return counts.by_length.map((row) => ({
    length: row.length,
    total: row.total,
    common: row.common,
    left: Math.max(0, row.total - (found.get(row.length) || 0)),
    commonLeft: Math.max(0, row.common - (foundCommon.get(row.length) || 0)),
  }));
}

export class WordsLeftView {
  constructor(anchor) {
    this.open = false;
    this.counts = null;
    this.words = [];
    this.button = h("button", {
      type: "button",
      id: "words-left-chip",
      class: "words-left-chip",
      "aria-expanded": "false",
      "aria-controls": "words-left-panel",
      on: { click: () => this.toggle() },
    });
    this.panel = h("div", { id: "words-left-panel", class: "words-left-panel", hidden: true });
    this.root = h("div", { class: "words-left" }, this.button, this.panel);
    anchor.after(this.root);
  }

  toggle() {
    this.open = !this.open;
    this.draw();
  }

  render(counts, words) {
    this.counts = counts;
    this.words = words;
    this.root.hidden = !counts;
    if (counts) this.draw();
  }

  draw() {
    const counts = this.counts;
    const rows = wordsLeft(counts, this.words);
    const hidden = counts.verdicts_hidden;
    // With verdicts hidden nothing is taken off: `left` and `commonLeft` are the board's counts.
    const commonLeft = rows.reduce((sum, row) => sum + row.commonLeft, 0);
    const rareLeft = rows.reduce((sum, row) => sum + row.left - row.commonLeft, 0);
    this.button.textContent = `${gettext("Words left")}: ${commonLeft} ${this.open ? "▴" : "▾"}`;
    this.button.setAttribute("aria-expanded", String(this.open));
    this.panel.hidden = !this.open;
    if (!this.open) return;
    const items = rows
      .filter((row) => row.common)
      .map((row) =>
        h(
          "li",
          { class: row.commonLeft ? "" : "done", dataset: { length: row.length } },
          hidden
            ? gettext("%(count)s letters: %(total)s on the board", { count: row.length, total: row.common })
            : gettext("%(count)s letters: %(left)s left", { count: row.length, left: row.commonLeft }),
        ),
      );
    this.panel.replaceChildren(
      h("ul", { class: "words-left-list" }, ...items),
      h("p", {
        class: "hint",
        text: `${ngettext("and %(count)s rare word", "and %(count)s rare words", rareLeft)}. ${gettext("Counts of words most players know; every valid word scores.")}`,
      }),
    );
  }
}
