// Spelling a word on the board with a mouse, a finger or a pen (pointer events):
// - drag across dice: only a free die next to the last one extends the path, moving back
//   onto the previous die takes the last one off, releasing submits;
// - tap-tap: tap dice one by one, tap the last one again (or press Submit) to submit;
//   tapping a die of the path cuts the path back to it, tapping elsewhere starts anew.

import { canExtend } from "./paths.js";

export class BoardInput {
  /**
   * `board` is a BoardView; `onChange(path)` after every change of the path;
   * `onSubmit(path)` when a gesture submits it.
   */
  constructor(board, { onChange, onSubmit }) {
    this.board = board;
    this.onChange = onChange;
    this.onSubmit = onSubmit;
    this.enabled = false;
    this.path = [];
    this.gesture = null;
    const target = board.element;
    target.addEventListener("pointerdown", (event) => this.down(event));
    target.addEventListener("pointermove", (event) => this.move(event));
    target.addEventListener("pointerup", (event) => this.up(event));
    target.addEventListener("pointercancel", () => this.cancel());
    target.addEventListener("lostpointercapture", () => this.cancel());
    // A long press must not open the context menu or start a text selection.
    target.addEventListener("contextmenu", (event) => event.preventDefault());
  }

  setEnabled(enabled) {
    this.enabled = enabled;
    if (!enabled) {
      this.gesture = null;
      this.setPath([]);
    }
  }

  /** Replace the path from outside (typing highlights, clearing after a submit). */
  setPath(path, notify = false) {
    this.path = path;
    if (notify) this.onChange(this.path);
  }

  down(event) {
    if (!this.enabled || this.gesture || (event.pointerType === "mouse" && event.button !== 0)) return;
    const cell = this.board.cellAt(event.clientX, event.clientY, false);
    if (cell === null) return;
    event.preventDefault();
    const { faces, cols } = this.board;
    if (faces[cell] === "#") return;
    const path = this.path;
    const last = path[path.length - 1];
    let action;
    if (path.length && cell === last) {
      action = "last";
    } else if (path.length && canExtend(path, cell, faces, cols)) {
      action = "extend";
      this.path = [...path, cell];
    } else if (path.includes(cell)) {
      action = "cut";
      this.path = path.slice(0, path.indexOf(cell) + 1);
    } else {
      action = "start";
      this.path = [cell];
    }
    this.gesture = { id: event.pointerId, action, moved: false };
    try {
      this.board.element.setPointerCapture(event.pointerId);
    } catch {
      // capture is a nicety: without it a release outside the board just cancels
    }
    if (action !== "last") this.onChange(this.path);
  }

  move(event) {
    const gesture = this.gesture;
    if (!gesture || event.pointerId !== gesture.id) return;
    const cell = this.board.cellAt(event.clientX, event.clientY, true);
    if (cell === null) return;
    const path = this.path;
    const last = path[path.length - 1];
    if (cell === last) return;
    if (path.length > 1 && cell === path[path.length - 2]) {
      this.path = path.slice(0, -1);
    } else if (canExtend(path, cell, this.board.faces, this.board.cols)) {
      this.path = [...path, cell];
    } else {
      return;
    }
    gesture.moved = true;
    this.onChange(this.path);
  }

  up(event) {
    const gesture = this.gesture;
    if (!gesture || event.pointerId !== gesture.id) return;
    this.gesture = null;
    if ((gesture.moved && this.path.length > 1) || (!gesture.moved && gesture.action === "last")) {
      const path = this.path;
      this.path = [];
      this.onSubmit(path);
    }
  }

  cancel() {
    // Capture lost after a normal release: nothing was left to do.
    this.gesture = null;
  }
}
