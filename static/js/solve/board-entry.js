// The board typed die by die: a size choice and a grid of cells. A cell takes a letter and
// moves on to the next; Q is the Qu die ("qu" too); on 6x6 the two-letter faces (In, Th,
// Er, He, An) are typed as their two letters, and Space moves on after a lone T (a T die,
// then an H die). Backspace in an empty cell goes back, the arrows move around the grid,
// and a whole board pasted into any cell (or anywhere on the page: main.js) fills the grid.
// A photo's reading lands here too (photo.js): its doubtful dice are outlined and marked
// "?" until typed over, so correcting a reading is the same gesture as typing a board.

import { h, showText } from "../lib/dom.js";
import { gettext, ngettext } from "../lib/i18n.js";
import { faceText } from "../room/format.js";
import { BLOCKED, SIDES, TWO_LETTER_FACES, boardText, isFace, parseBoard, plainLetters } from "./board-text.js";

// Letters that begin a two-letter face of a 6x6 board (Qu aside): such a cell waits for
// the next key before moving on.
const PREFIXES = new Set(TWO_LETTER_FACES.filter((face) => face !== "qu").map((face) => face[0]));
// What ends a die while typing: Space (a phone's keyboard sends it in the text), commas…
const SEPARATOR = /[\s,;/.]/;

/**
 * The dice a run of typed characters makes, from one cell on: `faces`, and whether the last
 * one may still grow (`open`: a lone Q, or on 6x6 a letter that starts a two-letter face),
 * and whether the run ended with a separator (`moveOn`).
 */
function typedFaces(text, side) {
  const faces = [];
  let open = false;
  let moveOn = false;
  const chars = [...plainLetters(text)];
  for (let index = 0; index < chars.length; index += 1) {
    const char = chars[index];
    if (SEPARATOR.test(char)) {
      open = false;
      moveOn = true;
      continue;
    }
    if (!/[a-z#]/.test(char)) continue;
    moveOn = false;
    const next = chars[index + 1];
    const last = next === undefined;
    if (char === "q") {
      faces.push("qu");
      if (next === "u") index += 1;
      open = last; // a lone Q at the end: its U may follow
    } else if (side === 6 && !last && TWO_LETTER_FACES.includes(char + next)) {
      faces.push(char + next);
      index += 1;
      open = false;
    } else {
      faces.push(char);
      open = side === 6 && last && PREFIXES.has(char);
    }
  }
  return { faces, open, moveOn };
}

export class BoardEntry {
  /**
   * `elements`: {sizes (the radios' box), grid, note, error}. `onChange()` after any edit;
   * `onSubmit()` when Enter asks for the board.
   */
  constructor(elements, { onChange = () => {}, onSubmit = () => {} } = {}) {
    this.el = elements;
    this.onChange = onChange;
    this.onSubmit = onSubmit;
    this.side = 4;
    this.inputs = [];
    for (const radio of this.radios()) {
      radio.addEventListener("change", () => {
        if (radio.checked) this.setSide(Number(radio.value.split("x")[0]), { keep: true });
      });
    }
    const checked = this.radios().find((radio) => radio.checked);
    this.setSide(checked ? Number(checked.value.split("x")[0]) : 4, { keep: false });
  }

  radios() {
    return [...this.el.sizes.querySelectorAll("input[type=radio]")];
  }

  /** The faces typed (lower case, "" for an empty cell), row by row. */
  get faces() {
    return this.inputs.map((input) => input.dataset.face || "");
  }

  get isEmpty() {
    return this.faces.every((face) => !face);
  }

  // ------------------------------------------------------------------ the grid

  /** Draw a `side` x `side` grid; `keep`: the dice typed stay where they fit. */
  setSide(side, { keep = true, faces = null, doubtful = null } = {}) {
    const before = keep ? this.faces : [];
    const beforeSide = this.side;
    this.side = SIDES.includes(side) ? side : 4;
    for (const radio of this.radios()) radio.checked = radio.value === `${this.side}x${this.side}`;
    this.el.grid.style.setProperty("--cols", this.side);
    this.el.grid.dataset.size = `${this.side}x${this.side}`;
    this.inputs = [];
    const cells = [];
    for (let row = 0; row < this.side; row += 1) {
      for (let col = 0; col < this.side; col += 1) {
        const index = row * this.side + col;
        const input = h("input", {
          type: "text",
          class: "die-input",
          autocapitalize: "characters",
          autocomplete: "off",
          autocorrect: "off",
          spellcheck: "false",
          enterkeyhint: "go",
          dataset: { row, col, index },
        });
        this.inputs.push(input);
        cells.push(h("div", { class: "die-cell" }, input));
        this.listen(input);
        let face = faces ? faces[index] : "";
        if (!faces && row < beforeSide && col < beforeSide) face = before[row * beforeSide + col] || "";
        this.setFace(input, face || "", Boolean(doubtful && doubtful[index]));
      }
    }
    this.el.grid.replaceChildren(...cells);
    this.el.grid.setAttribute("aria-label", gettext("The dice, %(side)s by %(side)s", { side: this.side }));
    this.setError("");
    this.setNote("");
    this.onChange();
  }

  /** Fill the grid with a board (a photo's reading, a pasted board): `doubtful` marks the
   * dice to check, row by row. */
  fill(side, faces, doubtful = null) {
    this.setSide(side, { keep: false, faces, doubtful });
    this.setNote(this.doubtfulCount() ? this.doubtfulNote() : "");
  }

  clear() {
    this.setSide(this.side, { keep: false });
    this.setNote("");
  }

  /** Show a face in a cell: its die's text ("Qu", "Th"), marked doubtful or not. */
  setFace(input, face, doubtful = false, { open = false } = {}) {
    input.dataset.face = face;
    // A Q waiting for its U shows as typed; it is the Qu die once the typing moves on.
    input.value = open && face === "qu" ? "Q" : face === BLOCKED ? BLOCKED : faceText(face);
    input.classList.toggle("invalid", Boolean(face) && !isFace(face));
    this.markDoubtful(input, doubtful);
  }

  markDoubtful(input, doubtful) {
    const cell = input.parentElement;
    const place = { row: Number(input.dataset.row) + 1, col: Number(input.dataset.col) + 1 };
    if (cell) {
      cell.classList.toggle("doubtful", doubtful);
      const mark = cell.querySelector(".doubt-mark");
      if (doubtful && !mark) cell.append(h("span", { class: "doubt-mark", "aria-hidden": "true", text: "?" }));
      if (!doubtful && mark) mark.remove();
    }
    input.setAttribute(
      "aria-label",
      doubtful ? gettext("Row %(row)s, die %(col)s (doubtful: check it)", place) : gettext("Row %(row)s, die %(col)s", place),
    );
  }

  doubtfulCount() {
    return this.el.grid.querySelectorAll(".die-cell.doubtful").length;
  }

  doubtfulNote() {
    const count = this.doubtfulCount();
    return ngettext("Check the die marked ? against the real board.", "Check the %(count)s dice marked ? against the real board.", count);
  }

  // ------------------------------------------------------------------ typing

  listen(input) {
    input.addEventListener("focus", () => input.select()); // typing replaces the die
    input.addEventListener("input", () => this.typed(input));
    input.addEventListener("keydown", (event) => this.key(event, input));
    input.addEventListener("blur", () => this.settle(input));
    input.addEventListener("paste", (event) => {
      const text = event.clipboardData ? event.clipboardData.getData("text") : "";
      if (!text) return;
      event.preventDefault();
      const board = parseBoard(text);
      if (board) {
        this.fill(board.side, board.faces);
        this.inputs[this.inputs.length - 1].focus();
        return;
      }
      this.typed(input, text);
    });
  }

  /** What was typed into `input` (or pasted: `text`) spread over the cells from there. */
  typed(input, text = input.value) {
    const start = Number(input.dataset.index);
    const { faces, open, moveOn } = typedFaces(text, this.side);
    if (!faces.length) {
      // Only a separator: the die keeps its face and the typing moves on; else emptied.
      if (moveOn && input.dataset.face) {
        this.setFace(input, input.dataset.face);
        this.focusCell(start + 1);
      } else {
        this.setFace(input, "");
      }
      this.afterEdit();
      return;
    }
    let index = start;
    faces.forEach((face, offset) => {
      if (index >= this.inputs.length) return;
      const last = offset === faces.length - 1;
      // In the board's last die a Q is the Qu die at once: a U typed after it is dropped.
      const final = face === "qu" && index === this.inputs.length - 1;
      this.setFace(this.inputs[index], face, false, { open: last && open && !final });
      index += 1;
    });
    const lastIndex = Math.min(index, this.inputs.length) - 1;
    if (open && !moveOn) {
      // The last die may still grow (Q, or T before an H on 6x6): the caret stays after it.
      const target = this.inputs[lastIndex];
      if (target !== document.activeElement) target.focus();
      const end = target.value.length;
      target.setSelectionRange(end, end);
    } else {
      this.focusCell(lastIndex + 1, lastIndex);
    }
    this.afterEdit();
  }

  /** A cell left with an open face (a lone Q: the Qu die) shows it as final. */
  settle(input) {
    if (input.dataset.face) this.setFace(input, input.dataset.face, input.parentElement.classList.contains("doubtful"));
  }

  afterEdit() {
    this.setError("");
    if (!this.doubtfulCount()) this.setNote("");
    else this.setNote(this.doubtfulNote());
    this.onChange();
  }

  /** Focus cell `index`; past the last one, keep `fallback` focused (the board is typed). */
  focusCell(index, fallback = null) {
    const target = this.inputs[index] || (fallback !== null ? this.inputs[fallback] : null);
    if (target) target.focus();
  }

  key(event, input) {
    const index = Number(input.dataset.index);
    const side = this.side;
    // A die holds a letter or two: the arrows always move from die to die.
    const moves = { ArrowLeft: -1, ArrowRight: 1, ArrowUp: -side, ArrowDown: side };
    if (event.key in moves && !event.altKey && !event.metaKey && !event.shiftKey) {
      const target = this.inputs[index + moves[event.key]];
      event.preventDefault();
      if (target) target.focus();
    } else if (event.key === "Backspace" && !input.value) {
      // An empty die: go back and empty the one before, as a word field deletes a letter.
      const previous = this.inputs[index - 1];
      event.preventDefault();
      if (previous) {
        this.setFace(previous, "");
        previous.focus();
        this.afterEdit();
      }
    } else if (event.key === "Enter") {
      event.preventDefault();
      this.settle(input);
      this.onSubmit();
    }
  }

  // ------------------------------------------------------------------ reading it back

  /** The board typed as board text, or null after saying what is missing. */
  read() {
    const faces = this.faces;
    const empty = faces.findIndex((face) => !face);
    if (empty >= 0) {
      const count = faces.filter((face) => !face).length;
      this.setError(ngettext("One die is still empty.", "%(count)s dice are still empty.", count));
      this.inputs[empty].focus();
      return null;
    }
    const wrong = faces.findIndex((face) => !isFace(face));
    if (wrong >= 0) {
      this.setError(gettext("A die shows one letter, Qu, or on a 6x6 board In, Th, Er, He or An."));
      this.inputs[wrong].focus();
      return null;
    }
    return boardText(faces, this.side);
  }

  setError(text) {
    showText(this.el.error, text);
  }

  setNote(text) {
    const tips = this.side === 6
      ? gettext("In, Th, Er, He and An are one die: type both letters (Space moves on after a lone T). # is a blank square.")
      : gettext("Each die moves on to the next; Q is the Qu die.");
    this.el.note.textContent = text || tips;
    this.el.note.classList.toggle("doubt-note", Boolean(text));
  }
}
