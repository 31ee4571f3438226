// Draws a board of dice and lights a path on it (numbered dice and a line, so the path
// never depends on colour alone). Input is handled elsewhere (board-input.js).
//
// The board can be shown turned by quarter turns (`turn`), as players turn a real tray to
// see it from another side: the dice move, their letters stay upright. Everything outside
// this view (paths, words, input) speaks of the board's own cells, as the server does;
// only where a die is drawn, and which die a point on the screen is, are turned here.

import { h, svg } from "../lib/dom.js";
import { gettext } from "../lib/i18n.js";
import { faceText } from "./format.js";

// A pointer counts as on a die within this fraction of a cell from its centre: dragging
// diagonally then passes the corners between dice without touching their neighbours.
const HIT_RADIUS = 0.42;

export class BoardView {
  constructor(container, { label = gettext("Board") } = {}) {
    this.container = container;
    this.label = label;
    this.key = null;
    this.shown = null;
    this.faces = [];
    this.rows = 0;
    this.cols = 0;
    this.dice = [];
    this.path = [];
    this.turns = 0; // quarter turns clockwise, 0 to 3
    this.concealedText = null;
    this.grid = h("div", { class: "board-grid" });
    this.line = svg("polyline", { class: "path-line" });
    this.overlay = svg("svg", { class: "board-path", "aria-hidden": "true", preserveAspectRatio: "none" });
    this.overlay.append(this.line);
    this.element = h("div", { class: "board", role: "img" }, this.grid, this.overlay);
    container.replaceChildren(this.element);
  }

  /** Show `round`'s board (rows, cols, grid); `concealed` shows dice face down (no letter in
   * the page), `concealedText` says why to a screen reader (by default: being shaken). */
  setBoard(round, { concealed = false, concealedText = null } = {}) {
    const key = `${round.number}:${round.board}:${concealed}:${concealedText}`;
    if (key === this.key) return;
    this.key = key;
    this.shown = { number: round.number, board: round.board };
    this.rows = round.rows;
    this.cols = round.cols;
    // A round not started yet comes without its letters (grid null): dice face down.
    this.faces = round.grid ? round.grid.flat() : new Array(round.rows * round.cols).fill("");
    this.element.classList.toggle("concealed", concealed);
    this.element.dataset.size = `${this.rows}x${this.cols}`;
    this.dice = this.faces.map((face, cell) => {
      const text = concealed ? "" : faceText(face);
      return h(
        "div",
        {
          class: `die${face === "#" && !concealed ? " blocked" : ""}${text.length > 1 ? " double" : ""}`,
          dataset: { cell, face: concealed ? "" : face },
        },
        h("span", { class: "face" }, text ? [text[0], text.length > 1 ? h("small", { text: text.slice(1) }) : null] : null),
        h("span", { class: "order", "aria-hidden": "true" }),
      );
    });
    this.concealedText = concealed ? concealedText || gettext("%(board)s: the dice are being shaken", { board: this.label }) : null;
    this.path = [];
    this.layOut();
  }

  /** Show the board turned `turns` quarter turns clockwise from how it was rolled. */
  turn(turns) {
    const normal = ((turns % 4) + 4) % 4;
    if (normal === this.turns) return;
    this.turns = normal;
    this.layOut();
  }

  /** Rows and columns as shown: a quarter turn swaps them. */
  shownSize() {
    return this.turns % 2 ? { rows: this.cols, cols: this.rows } : { rows: this.rows, cols: this.cols };
  }

  /** Where the board's `cell` is drawn, as [row, column] of the board as shown. */
  shownAt(cell) {
    const row = Math.floor(cell / this.cols);
    const col = cell % this.cols;
    switch (this.turns) {
      case 1: return [col, this.rows - 1 - row];
      case 2: return [this.rows - 1 - row, this.cols - 1 - col];
      case 3: return [this.cols - 1 - col, row];
      default: return [row, col];
    }
  }

  /** The board's cell drawn at [row, column] of the board as shown. */
  cellShownAt(row, col) {
    switch (this.turns) {
      case 1: return (this.rows - 1 - col) * this.cols + row;
      case 2: return (this.rows - 1 - row) * this.cols + (this.cols - 1 - col);
      case 3: return col * this.cols + (this.cols - 1 - row);
      default: return row * this.cols + col;
    }
  }

  /** Put the dice where the turn draws them, then the path and the description. */
  layOut() {
    const shown = this.shownSize();
    this.element.style.setProperty("--cols", shown.cols);
    this.element.style.setProperty("--rows", shown.rows);
    this.element.dataset.turns = String(this.turns);
    this.overlay.setAttribute("viewBox", `0 0 ${shown.cols} ${shown.rows}`);
    const order = [];
    for (let row = 0; row < shown.rows; row += 1) {
      for (let col = 0; col < shown.cols; col += 1) order.push(this.dice[this.cellShownAt(row, col)]);
    }
    this.grid.replaceChildren(...order);
    this.element.setAttribute("aria-label", this.concealedText || this.describe());
    this.highlight(this.path, this.element.dataset.tone || "active");
  }

  /** `round`'s board at clock phase `phase` (timer.js): the dice face down until the clock
   * starts, as the countdown is for getting ready, not for a head start on the letters.
   * Cheap when nothing changed (setBoard keeps the same board). */
  showRound(round, phase) {
    this.setBoard(round, {
      concealed: phase === "preparing" || phase === "countdown",
      concealedText: phase === "countdown" ? gettext("%(board)s: the letters show when the round starts", { board: this.label }) : null,
    });
  }

  /** Whether the board drawn is `round`'s (face up or down). */
  shows(round) {
    return Boolean(this.shown && round && this.shown.number === round.number && this.shown.board === round.board);
  }

  /** The board row by row as shown (turned, if it is). */
  describe() {
    const shown = this.shownSize();
    const rows = [];
    for (let row = 0; row < shown.rows; row += 1) {
      const faces = [];
      for (let col = 0; col < shown.cols; col += 1) faces.push(this.faces[this.cellShownAt(row, col)]);
      const dice = faces.map((face) => faceText(face) || gettext("blocked")).join(" ");
      rows.push(gettext("row %(number)s: %(dice)s", { number: row + 1, dice }));
    }
    return gettext("%(board)s, %(rows)s by %(cols)s. %(dice)s.", {
      board: this.label,
      rows: shown.rows,
      cols: shown.cols,
      dice: rows.join("; "),
    });
  }

  /** Light `path` (cell numbers in order); `tone` styles it: active, good, bad, show. */
  highlight(path, tone = "active") {
    this.path = path || [];
    this.element.dataset.tone = tone;
    this.dice.forEach((die, cell) => {
      const at = this.path.indexOf(cell);
      die.classList.toggle("on", at >= 0);
      die.classList.toggle("last", at >= 0 && at === this.path.length - 1);
      die.querySelector(".order").textContent = at >= 0 ? String(at + 1) : "";
    });
    const points = this.path.map((cell) => {
      const [row, col] = this.shownAt(cell);
      return `${col + 0.5},${row + 0.5}`;
    });
    this.line.setAttribute("points", points.join(" "));
    this.overlay.classList.toggle("visible", this.path.length > 1);
  }

  /** The die under a screen point, or null off the board; `strict` also gives null near
   * the corners between dice (for dragging). */
  cellAt(clientX, clientY, strict = true) {
    const rect = this.grid.getBoundingClientRect();
    const shown = this.shownSize();
    if (!shown.cols || !rect.width) return null;
    const cellWidth = rect.width / shown.cols;
    const cellHeight = rect.height / shown.rows;
    const x = (clientX - rect.left) / cellWidth;
    const y = (clientY - rect.top) / cellHeight;
    const col = Math.floor(x);
    const row = Math.floor(y);
    if (col < 0 || row < 0 || col >= shown.cols || row >= shown.rows) return null;
    const dx = x - (col + 0.5);
    const dy = y - (row + 0.5);
    if (strict && Math.hypot(dx, dy) > HIT_RADIUS) return null;
    return this.cellShownAt(row, col);
  }
}
