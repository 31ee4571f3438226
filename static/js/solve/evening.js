// A paper game's evening: the boards checked one after another (referee.js), the points
// each player scored on each, and the running totals, ranked. The whole evening travels in
// a link, /solve/#paper=<code>: its boards, lists, dictionary and rule, compressed with
// CompressionStream("deflate-raw") where the browser has it (else plain JSON), in base64url.
// Nothing in it is secret; the page that opens it checks every board again.

import { h } from "../lib/dom.js";
import { gettext } from "../lib/i18n.js";
import { tableHead } from "../lib/table.js";
import { ordinal } from "../room/format.js";

export const PAPER_PREFIX = "#paper=";
// The code's first letter says how the rest is written.
const DEFLATED = "z";
const PLAIN = "j";

/** A name as players are told apart (the server ignores case). */
export function nameKey(name) {
  return String(name).trim().toLocaleLowerCase();
}

export class Evening {
  constructor() {
    this.dictionary = null;
    this.minLength = null;
    this.cancel = true;
    // Each board: {board (text), players: [{name, words}] as sent, answer (the check's)}.
    this.boards = [];
  }

  /** Every player of the evening, ranked by their total: {name, points (per board, null
   * where they did not play), total, rank}. */
  standings() {
    const rows = new Map();
    this.boards.forEach((entry, index) => {
      if (!entry.answer) return;
      for (const player of entry.answer.players) {
        const key = nameKey(player.name);
        if (!rows.has(key)) rows.set(key, { name: player.name, points: this.boards.map(() => null), total: 0 });
        const row = rows.get(key);
        row.points[index] = player.points;
        row.total += player.points;
      }
    });
    const ranked = [...rows.values()].sort((a, b) => b.total - a.total);
    ranked.forEach((row, index) => {
      row.rank = index > 0 && ranked[index - 1].total === row.total ? ranked[index - 1].rank : index + 1;
    });
    return ranked;
  }

  /** A player's total over the evening. */
  total(name) {
    const row = this.standings().find((entry) => nameKey(entry.name) === nameKey(name));
    return row ? row.total : 0;
  }

  /** What the link carries. */
  toJSON() {
    const data = {
      dictionary: this.dictionary,
      cancel: this.cancel,
      boards: this.boards.map((entry) => ({ board: entry.board, players: entry.players })),
    };
    if (this.minLength) data.min_length = this.minLength;
    return data;
  }
}

/** The totals table: rank, player, points on each board, total. */
export function totalsTable(evening) {
  const rows = evening.standings();
  const boards = evening.boards.map((_, index) => index + 1);
  const head = tableHead([
    { text: "#", class: "rank" },
    { text: gettext("Player") },
    ...boards.map((number) => ({ text: String(number), class: "num board-points" })),
    { text: gettext("Total"), class: "num" },
  ]);
  // Each board's column is read out as "Board 2", shown as "2" (a phone has little width).
  head.querySelectorAll(".board-points").forEach((cell, index) => {
    cell.replaceChildren(
      h("span", { "aria-hidden": "true", text: String(boards[index]) }),
      h("span", { class: "visually-hidden", text: gettext("Board %(number)s", { number: boards[index] }) }),
    );
  });
  const body = rows.map((row) =>
    h(
      "tr",
      { class: row.rank === 1 && row.total > 0 ? "winner" : null, dataset: { player: row.name } },
      h("td", { class: "rank" }, row.rank === 1 && row.total > 0 ? h("span", { class: "trophy", "aria-hidden": "true", text: "★ " }) : null, ordinal(row.rank)),
      h("th", { scope: "row", class: "who" }, h("span", { class: "nickname", text: row.name })),
      ...row.points.map((points) => h("td", { class: "num board-points", text: points === null ? "–" : String(points) })),
      h("td", { class: "num total-points", text: String(row.total) }),
    ),
  );
  return h("div", { class: "table-scroll" }, h("table", { class: "scoreboard solve-totals" }, head, h("tbody", {}, ...body)));
}

// ------------------------------------------------------------------ the link

function toBase64Url(bytes) {
  let binary = "";
  for (let start = 0; start < bytes.length; start += 0x8000) {
    binary += String.fromCharCode(...bytes.subarray(start, start + 0x8000));
  }
  return btoa(binary).replace(/\+/g, "-").replace(/\//g, "_").replace(/=+$/, "");
}

function fromBase64Url(text) {
  const binary = atob(text.replace(/-/g, "+").replace(/_/g, "/"));
  return Uint8Array.from(binary, (char) => char.charCodeAt(0));
}

async function transform(bytes, stream) {
  const piped = new Blob([bytes]).stream().pipeThrough(stream);
  return new Uint8Array(await new Response(piped).arrayBuffer());
}

/** The evening as the code after #paper=. */
export async function encodeEvening(evening) {
  const bytes = new TextEncoder().encode(JSON.stringify(evening.toJSON()));
  if (typeof CompressionStream === "function") {
    try {
      return DEFLATED + toBase64Url(await transform(bytes, new CompressionStream("deflate-raw")));
    } catch {
      // a browser without deflate-raw: the plain text below
    }
  }
  return PLAIN + toBase64Url(bytes);
}

/** An evening's data from its code, or null when the code is none (cut short, mistyped). */
export async function decodeEvening(code) {
  try {
    let bytes = fromBase64Url(code.slice(1));
    if (code[0] === DEFLATED) bytes = await transform(bytes, new DecompressionStream("deflate-raw"));
    else if (code[0] !== PLAIN) return null;
    const data = JSON.parse(new TextDecoder().decode(bytes));
    if (!data || !Array.isArray(data.boards)) return null;
    const boards = data.boards.filter((entry) => entry && typeof entry.board === "string" && Array.isArray(entry.players));
    return {
      dictionary: typeof data.dictionary === "string" ? data.dictionary : null,
      cancel: data.cancel !== false,
      minLength: Number.isInteger(data.min_length) ? data.min_length : null,
      boards: boards.map((entry) => ({
        board: entry.board,
        players: entry.players
          .filter((player) => player && typeof player.name === "string")
          .map((player) => ({ name: player.name, words: Array.isArray(player.words) ? player.words.map(String) : [] })),
      })),
    };
  } catch {
    return null;
  }
}
