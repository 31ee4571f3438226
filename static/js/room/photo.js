// "Board from a photo" and "Type a board", between rounds: a player uploads a photo of the
// real board (the phone's camera opens directly), the server reads it (board.reading, then
// board.read or board.unreadable for everyone in the room), and an editable grid shows the
// dice. Doubtful dice get an outline and a "?" (never colour alone). The host corrects the
// grid and sends it with set_board; the next round plays it.

import { capitalise } from "../lib/api.js";
import { h } from "../lib/dom.js";
import { gettext, ngettext } from "../lib/i18n.js";
import { faceText } from "./format.js";

// Why a photo could not be read, by the code of the room's board.unreadable event (its
// message is English, as the whole room gets it): photos/reading.py, docs/api.md.
const PHOTO_FAILURES = {
  unavailable: () => gettext("reading boards from photos is not available on this server right now"),
  cluttered: () =>
    gettext(
      "no board stands out among the dice-like things in this photo; clear the table around the board, or come closer so that the board fills the frame",
    ),
  no_grid: () => gettext("no grid of dice found; fill the frame with the board, from straight above, in good light"),
  dice_too_small: () =>
    gettext("the dice are too small in this photo; move closer: the board should fill most of the photo"),
  dice_count: (event) =>
    gettext(
      "found %(found)s dice, expected %(expected)s; take the photo from straight above with the whole board in view",
      { found: event.found, expected: (event.expected || []).join(", ") },
    ),
  no_board: () => gettext("no board of dice found; take the photo from straight above with the whole board in view"),
  not_an_image: () => gettext("the file is not an image (JPEG, PNG, WebP, ...)"),
  damaged: () => gettext("the image is damaged and cannot be decoded"),
  too_large: () => gettext("the image is too large to read"),
  too_small: () => gettext("the image is too small to hold a readable board"),
  lost: () => gettext("the photo was lost on the server; please upload it again"),
  failed: () => gettext("the photo could not be read; please try another"),
};

const POLL_MS = 2000;
const POLL_GIVE_UP_MS = 120000;

export class PhotoView {
  constructor(elements, { code, store, onUseBoard }) {
    this.el = elements;
    this.code = code;
    this.store = store;
    this.onUseBoard = onUseBoard;
    this.photoId = null; // the photo this page is waiting for (uploaded here)
    this.shownPhotoId = null;
    this.pollTimer = null;
    this.grid = null; // {rows, cols}
    this.el.photoButton.addEventListener("click", () => this.el.input.click());
    this.el.input.addEventListener("change", () => {
      const file = this.el.input.files && this.el.input.files[0];
      if (file) this.upload(file);
      this.el.input.value = "";
    });
    this.el.typeButton.addEventListener("click", () => this.openEmpty());
    this.el.cancel.addEventListener("click", () => this.closeGrid());
    this.el.form.addEventListener("submit", (event) => {
      event.preventDefault();
      this.useBoard();
    });
  }

  render(store) {
    const host = store.isHost;
    this.el.typeButton.hidden = !host;
    this.el.useButton.hidden = !host;
    this.el.hostNote.hidden = host;
    for (const input of this.el.grid.querySelectorAll("input")) input.readOnly = !host;
    const next = store.state.settings && store.state.settings.next_board;
    this.el.next.hidden = !next;
    this.el.next.textContent = next ? gettext("The next round plays this board: %(board)s.", { board: next.toUpperCase() }) : "";
  }

  // ------------------------------------------------------------------ uploading

  async upload(file) {
    this.setError("");
    this.setStatus(gettext("Sending the photo (%(size)s MB)…", { size: (file.size / 1e6).toFixed(1) }), true);
    const body = new FormData();
    body.append("photo", file);
    let response;
    let data = null;
    try {
      response = await fetch(`/api/rooms/${this.code}/photos`, { method: "POST", body, credentials: "same-origin" });
    } catch {
      this.failed(gettext("Could not reach the server. Check your connection and try again."));
      return;
    }
    try {
      data = await response.json();
    } catch {
      // not JSON: a proxy's error page
    }
    if (!response.ok) {
      const message =
        data && data.error
          ? data.error.message
          : response.status === 413
            ? gettext("The photo is too large.")
            : gettext("The server answered %(status)s. Please try again.", { status: response.status });
      this.failed(message);
      return;
    }
    this.photoId = data.photo.id;
    this.setStatus(gettext("Reading the board…"), true);
    this.poll(Date.now());
  }

  /** The room's events may be missed (a dropped socket): ask for the photo too. */
  poll(startedAt) {
    window.clearTimeout(this.pollTimer);
    const photoId = this.photoId;
    if (photoId === null) return;
    this.pollTimer = window.setTimeout(async () => {
      if (this.photoId !== photoId) return;
      try {
        const response = await fetch(`/api/rooms/${this.code}/photos/${photoId}`, { credentials: "same-origin" });
        const data = await response.json();
        const photo = data.photo;
        if (photo && photo.status === "read") this.showReading({ photo_id: photo.id, ...photo.result });
        else if (photo && photo.status === "failed") this.unreadable({ photo_id: photo.id, message: photo.error });
      } catch {
        // try again below
      }
      if (this.photoId === photoId && Date.now() - startedAt < POLL_GIVE_UP_MS) this.poll(startedAt);
      else if (this.photoId === photoId) this.failed(gettext("Reading the photo is taking too long. Please try again."));
    }, POLL_MS);
  }

  /**
   * The room state's photo (after a load, a reload or a reconnect): the photo still being
   * read, or read and not yet used, comes back as it was.
   */
  restore(photo) {
    if (!photo || photo.id === this.shownPhotoId) return;
    if (photo.status === "read" && photo.result) {
      this.showReading({ photo_id: photo.id, ...photo.result });
    } else if (photo.status === "uploaded" || photo.status === "reading") {
      if (this.photoId === photo.id || this.grid) return;
      this.photoId = photo.id;
      this.setStatus(gettext("Reading the board…"), true);
      this.poll(Date.now());
    } else if (photo.status === "failed" && this.photoId === photo.id) {
      this.unreadable({ photo_id: photo.id, message: photo.error });
    }
  }

  // ------------------------------------------------------------------ room events

  onEvent(event) {
    if (event.type === "board.reading") {
      if (event.photo_id === this.photoId) this.setStatus(gettext("Reading the board…"), true);
      else if (this.photoId === null && !this.grid) this.setStatus(gettext("Someone sent a photo of the board; reading it…"), true);
    } else if (event.type === "board.read") {
      this.showReading(event);
    } else if (event.type === "board.unreadable") {
      if (event.photo_id === this.photoId || this.photoId === null) this.unreadable(event);
    }
  }

  showReading(reading) {
    if (reading.photo_id === this.shownPhotoId) return;
    this.shownPhotoId = reading.photo_id;
    if (reading.photo_id === this.photoId) this.stopWaiting();
    this.setStatus("");
    this.setError("");
    // The server says which dice are doubtful (vision.confidence.DOUBTFUL_BELOW).
    const flags = reading.doubtful || null; // readings stored before the field: no marks
    this.openGrid(reading.rows, reading.cols, reading.letters, flags);
    const doubtful = flags ? flags.flat().filter(Boolean).length : 0;
    const notes = [];
    // The server's note (English, sent to the whole room) says the photo's board is not the
    // room's size: said here in the page's language, against the room's size now.
    const roomSize = this.store.state.settings.board_size;
    const photoSize = `${reading.rows}x${reading.cols}`;
    if (reading.note && photoSize !== roomSize) {
      notes.push(
        gettext(
          "The photo shows a %(photo)s board but this room plays %(room)s: the host can change the board size in the settings, then use it.",
          { photo: photoSize, room: roomSize },
        ),
      );
    }
    notes.push(
      doubtful
        ? ngettext(
            "Check the die marked ? against the real board.",
            "Check the %(count)s dice marked ? against the real board.",
            doubtful,
          )
        : gettext("Check the dice against the real board."),
    );
    this.el.note.textContent = notes.join(" ");
    this.el.title.textContent = gettext("Board read from the photo");
  }

  unreadable(event) {
    this.stopWaiting();
    const known = PHOTO_FAILURES[event.code];
    const reason = known ? known(event) : event.message;
    this.failed(gettext("The photo could not be read: %(reason)s.", { reason }));
  }

  // ------------------------------------------------------------------ the grid

  openEmpty() {
    const [rows, cols] = this.store.state.settings.board_size.split("x").map(Number);
    this.setError("");
    this.openGrid(rows, cols, null, null);
    this.el.note.textContent = gettext("Type each die's letter, row by row (Qu as Q, a blank die as #).");
    this.el.title.textContent = gettext("Type the board");
    const first = this.el.grid.querySelector("input");
    if (first) first.focus();
  }

  openGrid(rows, cols, letters, doubtfulDice) {
    this.grid = { rows, cols };
    const readOnly = !this.store.isHost;
    this.el.grid.style.setProperty("--cols", cols);
    const cells = [];
    for (let row = 0; row < rows; row += 1) {
      for (let col = 0; col < cols; col += 1) {
        const face = letters ? letters[row][col] : "";
        const doubtful = doubtfulDice ? doubtfulDice[row][col] : false;
        const place = { row: row + 1, col: col + 1 };
        const label = doubtful
          ? gettext("Row %(row)s, die %(col)s (doubtful: check it)", place)
          : gettext("Row %(row)s, die %(col)s", place);
        const input = h("input", {
          type: "text",
          class: "die-input",
          value: face === "#" ? "#" : faceText(face),
          maxlength: 2,
          autocapitalize: "characters",
          autocomplete: "off",
          spellcheck: "false",
          "aria-label": label,
          dataset: { row, col },
        });
        input.readOnly = readOnly;
        const cell = h(
          "div",
          { class: `die-cell${doubtful ? " doubtful" : ""}` },
          input,
          doubtful ? h("span", { class: "doubt-mark", "aria-hidden": "true", text: "?" }) : null,
        );
        input.addEventListener("focus", () => input.select()); // typing replaces the die
        input.addEventListener("input", () => {
          cell.classList.remove("doubtful");
          const mark = cell.querySelector(".doubt-mark");
          if (mark) mark.remove();
          input.setAttribute("aria-label", gettext("Row %(row)s, die %(col)s", place));
          // Two-letter faces (th, er, ...) exist on 6x6: there, move on by hand. Smaller
          // boards move to the next die after one letter, or after Q plus the next key
          // ("qu" stays the Qu die; "qi" is Qu, then i in the next die).
          if (cols >= 6) return;
          const value = input.value.trim().toLowerCase();
          if (!value || value === "q") return;
          const next = cells[cells.indexOf(cell) + 1];
          let carry = value.length > 1 ? value.slice(1) : "";
          if (value[0] === "q") {
            input.value = "Qu";
            carry = value === "qu" ? "" : value.slice(1);
          } else if (carry) {
            input.value = value[0];
          }
          if (!next) return;
          const nextInput = next.querySelector("input");
          nextInput.focus();
          if (carry) {
            nextInput.value = carry;
            nextInput.dispatchEvent(new Event("input"));
          }
        });
        cells.push(cell);
      }
    }
    this.el.grid.replaceChildren(...cells);
    this.el.form.hidden = false;
    this.render(this.store);
  }

  closeGrid() {
    this.grid = null;
    this.el.form.hidden = true;
    this.el.grid.replaceChildren();
    this.setError("");
  }

  /** The grid as board text ("c,a,t,s qu,i,e,x …"), or null after showing what is wrong. */
  boardText() {
    const inputs = [...this.el.grid.querySelectorAll("input")];
    const faces = inputs.map((input) => input.value.trim().toLowerCase());
    const empty = faces.findIndex((face) => !face);
    if (empty >= 0) {
      this.setError(gettext("Fill in every die first."));
      inputs[empty].focus();
      return null;
    }
    const { rows, cols } = this.grid;
    const lines = [];
    for (let row = 0; row < rows; row += 1) {
      lines.push(faces.slice(row * cols, (row + 1) * cols).map((face) => (face === "q" ? "qu" : face)).join(","));
    }
    return lines.join(" ");
  }

  useBoard() {
    if (!this.grid) return;
    const text = this.boardText();
    if (text === null) return;
    this.setError("");
    this.setStatus(gettext("Sending the board…"));
    this.onUseBoard(text);
  }

  /** The server took the board (ok to set_board). */
  confirmed(board) {
    this.closeGrid();
    this.setStatus(board ? gettext("The next round plays this board: %(board)s.", { board: board.toUpperCase() }) : "");
  }

  /** The server refused the board (error to set_board). */
  refused(message) {
    this.setStatus("");
    this.setError(message);
  }

  // ------------------------------------------------------------------ status

  stopWaiting() {
    this.photoId = null;
    window.clearTimeout(this.pollTimer);
  }

  failed(message) {
    this.stopWaiting();
    this.setStatus("");
    this.setError(capitalise(message));
  }

  setStatus(text, busy = false) {
    this.el.status.textContent = text;
    this.el.status.hidden = !text;
    this.el.status.classList.toggle("busy", busy);
    this.el.photoButton.disabled = busy;
  }

  setError(text) {
    this.el.error.textContent = text;
    this.el.error.hidden = !text;
  }
}
