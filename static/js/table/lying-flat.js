// Table play (issue 32): a screen or a tablet lying flat in the middle of the table, the
// players around it entering their words on their phones. As real dice lie, each letter
// faces its own way (turned by 0, 90, 180 or 270 degrees, never mirrored), so nobody has
// the "right" side; letters that read as another one when turned (M/W, N/Z) are
// underlined, as on real dice. The turns come from the round's number and board: a reload
// (or a second table screen) shows the same ones. Remembered in this browser.

import { h } from "../lib/dom.js";
import { gettext } from "../lib/i18n.js";
import { load, save } from "../lib/storage.js";

export const FLAT_KEY = "boggle.table.flat";
export const TURNS = [0, 90, 180, 270];
// Letters that turned read as another letter; real dice underline them.
export const AMBIGUOUS = new Set(["M", "W", "N", "Z"]);

/** 32-bit FNV-1a of a string, its bits mixed once more (turns come from its low bits). */
function hash(text) {
  let value = 0x811c9dc5;
  for (let i = 0; i < text.length; i += 1) {
    value ^= text.charCodeAt(i);
    value = Math.imul(value, 0x01000193);
  }
  value ^= value >>> 16;
  value = Math.imul(value, 0x45d9f3b);
  value ^= value >>> 16;
  return value >>> 0;
}

/** The turn (degrees) of each die of a round's board (`number`, `board`), by cell. */
export function turnsOf({ number, board }, cells) {
  return Array.from({ length: cells }, (_, cell) => TURNS[hash(`${number}:${board}:${cell}`) % TURNS.length]);
}

export class LyingFlat {
  /** `board`: the table's BoardView. `element` is the switch, for the page to place. */
  constructor(board) {
    this.board = board;
    this.flat = Boolean(load(FLAT_KEY, false));
    this.appliedDice = null;
    this.appliedFlat = null;
    this.input = h("input", {
      type: "checkbox",
      id: "table-flat",
      checked: this.flat,
      on: { change: () => this.setFlat(this.input.checked) },
    });
    this.element = h(
      "label",
      { class: "check table-flat-toggle", for: "table-flat" },
      this.input,
      h(
        "span",
        {},
        gettext("Lying flat: letters face every way"),
        h("small", { text: gettext("For a screen lying on the table: nobody has the right side.") }),
      ),
    );
  }

  setFlat(flat) {
    this.flat = Boolean(flat);
    this.input.checked = this.flat;
    save(FLAT_KEY, this.flat);
    this.apply();
  }

  /** Turn the board's dice (or straighten them). Cheap when nothing changed: call it
   * whenever the board may have been drawn again. Dice face down have no letter to turn. */
  apply() {
    const { board } = this;
    const dice = board.dice;
    if (this.appliedDice === dice && this.appliedFlat === this.flat) return;
    this.appliedDice = dice;
    this.appliedFlat = this.flat;
    board.element.classList.toggle("lying-flat", this.flat);
    const turns = this.flat && board.shown ? turnsOf(board.shown, dice.length) : [];
    dice.forEach((die, cell) => {
      const face = die.dataset.face || "";
      const turned = this.flat && face !== "" && face !== "#";
      if (turned) die.dataset.turn = String(turns[cell]);
      else delete die.dataset.turn;
      die.classList.toggle("ambiguous", turned && AMBIGUOUS.has(face.toUpperCase()));
    });
  }
}
