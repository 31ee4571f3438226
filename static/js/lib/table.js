// Tables of players (scores, stats, standings): the header row every one of them repeats.

import { h } from "./dom.js";

/** A <thead> with one row of column headers; each column is { text, class } (class optional). */
export function tableHead(columns) {
  return h("thead", {}, h("tr", {}, ...columns.map((column) => h("th", { scope: "col", class: column.class, text: column.text }))));
}
