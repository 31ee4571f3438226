// "Play this board", under a solved board's words: a solo round on it at once (POST
// /api/practice) or a room for friends whose first round plays it (POST /api/rooms), with
// the board's dictionary. The Solve page asks for no nickname until the player chooses to
// play; the field remembers the last one used in this browser (lib/storage.js).

import { ApiError, postJSON } from "../lib/api.js";
import { showText } from "../lib/dom.js";
import { gettext } from "../lib/i18n.js";
import { load, save, NICKNAME_KEY } from "../lib/storage.js";

export class PlayBoard {
  /** `el`: {toggle, form, nickname, solo, room, error}; `board()`: {text, dictionary,
   * minLength} of the board solved. */
  constructor(el, { board }) {
    this.el = el;
    this.board = board;
    el.toggle.addEventListener("click", () => this.open(el.form.hidden));
    el.solo.addEventListener("click", () => this.play("/api/practice", el.solo));
    el.room.addEventListener("click", () => this.play("/api/rooms", el.room));
    el.form.addEventListener("submit", (event) => {
      event.preventDefault();
      this.play("/api/practice", el.solo);
    });
  }

  open(show) {
    this.el.form.hidden = !show;
    this.el.toggle.setAttribute("aria-expanded", String(show));
    if (!show) return;
    if (!this.el.nickname.value) this.el.nickname.value = load(NICKNAME_KEY, "") || "";
    this.el.nickname.focus();
  }

  async play(url, button) {
    const board = this.board();
    const nickname = this.el.nickname.value.trim();
    if (!board) return;
    if (!nickname) {
      this.setError(gettext("Pick a nickname first."));
      this.el.nickname.focus();
      return;
    }
    const settings = { dictionary: board.dictionary };
    if (board.minLength) settings.min_length = board.minLength;
    const label = button.textContent;
    this.el.solo.disabled = true;
    this.el.room.disabled = true;
    button.textContent = gettext("Creating…");
    this.setError("");
    try {
      const { room } = await postJSON(url, { nickname, board: board.text, settings });
      save(NICKNAME_KEY, nickname);
      window.location.assign(`/r/${room.code}/`);
    } catch (error) {
      this.setError(error instanceof ApiError ? error.message : gettext("Something went wrong. Please try again."));
      this.el.solo.disabled = false;
      this.el.room.disabled = false;
      button.textContent = label;
    }
  }

  setError(text) {
    showText(this.el.error, text);
  }
}
