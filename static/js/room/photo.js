// "Board from a photo" and "Type a board", between rounds: a player uploads a photo of the
// real board (the page's camera view, lib/camera.js, or the phone's camera app), the server
// reads it (board.reading, then board.read or board.unreadable for everyone in the room),
// and an editable grid shows the dice. Doubtful dice get an outline and a "?" (never colour
// alone). The host corrects the grid and sends it with set_board; the next round plays it.
// When no board was found, or the grid read is wrong, any player may place the board's
// corners on the photo by hand (corners.js); the server reads the dice inside them. While
// the server is still getting its reader ready, the page says so with how far it is
// (board.reading's reader_progress).

import { capitalise } from "../lib/api.js";
import { openCamera } from "../lib/camera.js";
import { h } from "../lib/dom.js";
import { gettext, ngettext, pageLanguage } from "../lib/i18n.js";
import { CornersEditor } from "./corners.js";
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
  corners: () =>
    gettext("the corners placed do not frame a board the reader can use; put them on the board's outer corners, clockwise from the top left"),
};

// The largest photo the server takes (photos/api.py MAX_UPLOAD_BYTES): a larger file is
// refused here, before it is sent, in the page's words.
export const MAX_PHOTO_BYTES = 15_000_000;

// What the page says for the photo API's refusals, by their code (the server's message is
// for a body-limit 413 the proxy's, or English: docs/api.md, "Board from a photo").
const UPLOAD_REFUSALS = {
  too_large: () =>
    gettext("The photo is too large for the server: send one of at most %(limit)s MB (a phone camera's usual photo is fine).", {
      limit: MAX_PHOTO_BYTES / 1e6,
    }),
  unsupported_image: () => gettext("Send the photo as a JPEG, PNG or WebP picture (on an iPhone: Settings, Camera, Formats, Most Compatible)."),
};
const CORNERS_REFUSALS = {
  bad_corners: () => gettext("These corners do not frame a board: put them on the board's four outer corners, clockwise from the top left."),
  photo_busy: () => gettext("The photo is still being read. Wait for it, then try again."),
  photo_outdated: () => gettext("This photo is no longer the room's: a newer one was sent, or its board was used."),
  photo_not_found: () => gettext("The photo is gone from the server. Please send it again."),
  rate_limited: () => gettext("Photos are still being read. Try again in a few seconds."),
};

const POLL_MS = 2000;
const POLL_GIVE_UP_MS = 120000;

// Photos that failed for these reasons are no picture of a board at all, or gone: their
// corners cannot be placed by hand.
const NOT_PLACEABLE = ["not_an_image", "damaged", "too_large", "too_small", "lost", "unavailable"];

/** Why a photo could not be read (`failure`: the code, with found and expected for
 * dice_count, and the server's English message), in the page's language. */
export function unreadableText(failure) {
  const known = PHOTO_FAILURES[failure.code];
  return gettext("The photo could not be read: %(reason)s.", { reason: known ? known(failure) : failure.message });
}

/** Whether a photo that failed with `code` may have its board's corners placed by hand. */
export function placeableByHand(code) {
  return !NOT_PLACEABLE.includes(code);
}

/** A photo larger than the server takes, refused before it is sent: null when it fits. */
function tooLargeText(file) {
  if (file.size <= MAX_PHOTO_BYTES) return null;
  return gettext("This photo is %(size)s MB; photos of up to %(limit)s MB can be sent. Take it again at a lower resolution, or send a smaller copy.", {
    size: (file.size / 1e6).toFixed(1),
    limit: MAX_PHOTO_BYTES / 1e6,
  });
}

/** What the page says for a refused upload (`corners`: of corners placed by hand). */
export function refusalText(response, data, { corners = false } = {}) {
  const code = data && data.error ? data.error.code : response.status === 413 ? "too_large" : null;
  const own = (corners ? CORNERS_REFUSALS : UPLOAD_REFUSALS)[code];
  if (own) return own();
  if (data && data.error) return data.error.message;
  return gettext("The server answered %(status)s. Please try again.", { status: response.status });
}

/** Send a photo's `file` to `url` (the multipart field `photo`): the answer's data, or an
 * Error whose message the page shows (too large, refused before sending; no network; the
 * server's refusal). Rooms and the Solve page send theirs alike. */
export async function sendPhoto(url, file) {
  const tooLarge = tooLargeText(file);
  if (tooLarge) throw new Error(tooLarge);
  const body = new FormData();
  body.append("photo", file);
  let response;
  try {
    response = await fetch(url, { method: "POST", body, credentials: "same-origin" });
  } catch {
    throw new Error(gettext("Could not reach the server. Check your connection and try again."));
  }
  let data = null;
  try {
    data = await response.json();
  } catch {
    // not JSON: a proxy's error page
  }
  if (!response.ok || !data || !data.photo) throw new Error(refusalText(response, data));
  return data;
}

/** The wait for the server's reader to load (`progress` 0-99), as the page says it. */
export function readerProgressText(progress) {
  const figure = new Intl.NumberFormat(pageLanguage(), { style: "percent" }).format(progress / 100);
  return gettext("Getting the photo reader ready (it starts with the server): %(progress)s", { progress: figure });
}

export class PhotoView {
  constructor(elements, { code, store, onUseBoard, onLearn }) {
    this.el = elements;
    this.code = code;
    this.store = store;
    this.onUseBoard = onUseBoard;
    this.onLearn = onLearn;
    this.photoId = null; // the photo this page is waiting for (uploaded here)
    this.shownPhotoId = null;
    this.pollTimer = null;
    this.grid = null; // {rows, cols}
    this.shownKey = null; // which reading the grid shows (a photo may be read again)
    this.failedPhotoId = null; // the unreadable photo whose corners may be placed by hand
    this.waitingText = null; // what the page says while its own photo is read
    this.progress = h("progress", { class: "photo-progress", max: 100, hidden: true });
    this.el.status.after(this.progress);
    this.corners = new CornersEditor(this.el.corners, {
      onRead: (corners, size) => this.readCorners(corners, size),
      onCancel: () => this.closeCorners(),
    });
    this.el.adjust.addEventListener("click", () => this.openCorners(this.shownPhotoId));
    this.el.place.addEventListener("click", () => this.openCorners(this.failedPhotoId));
    // The camera view where the page may open the camera (lib/camera.js), else the file
    // input, which opens the phone's camera or its files.
    this.el.photoButton.addEventListener("click", () =>
      openCamera({ onPicture: (file) => this.upload(file), onFallback: () => this.el.input.click() }),
    );
    this.el.input.addEventListener("change", () => {
      const file = this.el.input.files && this.el.input.files[0];
      if (file) this.upload(file);
      this.el.input.value = "";
    });
    this.el.typeButton.addEventListener("click", () => this.openEmpty());
    // Where the room keeps no dice (a public site asks first): the host may say yes here,
    // before confirming the board read from the photo.
    this.el.learnYes.addEventListener("click", () => this.onLearn());
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
    this.renderLearn();
    for (const input of this.el.grid.querySelectorAll("input")) input.readOnly = !host;
    const next = store.state.settings && store.state.settings.next_board;
    this.el.next.hidden = !next;
    this.el.next.textContent = next ? gettext("The next round plays this board: %(board)s.", { board: next.toUpperCase() }) : "";
  }

  /** Ask the host to let the room keep a read photo's dice, where it keeps none. */
  renderLearn() {
    const photoSet = this.store.state.photo_set;
    const asked = this.store.isHost && this.shownPhotoId !== null && photoSet && photoSet.learn === false;
    this.el.learn.hidden = !asked;
  }

  // ------------------------------------------------------------------ uploading

  async upload(file) {
    this.setError("");
    this.closeCorners({ restore: false }); // a new photo replaces the one being placed
    this.failedPhotoId = null;
    this.el.place.hidden = true;
    this.waitingText = null;
    this.setStatus(gettext("Sending the photo (%(size)s MB)…", { size: (file.size / 1e6).toFixed(1) }), true);
    let data;
    try {
      data = await sendPhoto(`/api/rooms/${this.code}/photos`, file);
    } catch (error) {
      this.failed(error.message);
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
        else if (photo && this.photoId === photo.id) this.waiting(photo.reader_progress, this.waitingText || undefined);
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
    if (!photo) return;
    if (photo.status === "read" && photo.result) {
      this.showReading({ photo_id: photo.id, ...photo.result });
    } else if (photo.status === "uploaded" || photo.status === "reading") {
      if (this.photoId === photo.id || this.grid || this.corners.isOpen) return;
      this.photoId = photo.id;
      this.waiting(photo.reader_progress);
      this.poll(Date.now());
    } else if (photo.status === "failed" && (this.photoId === photo.id || this.photoId === null)) {
      if (this.failedPhotoId === photo.id || this.grid || this.corners.isOpen) return;
      this.unreadable({ photo_id: photo.id, message: photo.error });
    }
  }

  // ------------------------------------------------------------------ room events

  onEvent(event) {
    if (event.type === "board.reading") {
      if (event.photo_id === this.photoId) this.waiting(event.reader_progress, this.waitingText || undefined);
      else if (event.photo_id === this.shownPhotoId || event.photo_id === this.failedPhotoId) {
        // Someone placed the corners by hand: this photo is being read again.
        this.failedPhotoId = null;
        this.setError("");
        this.waiting(event.reader_progress, gettext("Reading the dice inside the corners…"));
      } else if (this.photoId === null && !this.grid && !this.corners.isOpen) {
        this.waiting(event.reader_progress, gettext("Someone sent a photo of the board; reading it…"));
      }
    } else if (event.type === "board.read") {
      this.showReading(event);
    } else if (event.type === "board.unreadable") {
      if (event.photo_id === this.photoId || this.photoId === null) this.unreadable(event);
    }
  }

  /** The photo waits: for the reader to get ready (`progress`, 0-99), or being read. */
  waiting(progress, reading = gettext("Reading the board…")) {
    const readying = typeof progress === "number";
    this.progress.hidden = !readying;
    if (!readying) {
      this.setStatus(reading, true);
      return;
    }
    this.progress.value = progress;
    this.setStatus(readerProgressText(progress), true);
  }

  showReading(reading) {
    // A photo may be read again (corners placed by hand): each reading is shown once.
    const key = `${reading.photo_id}:${reading.board}:${JSON.stringify(reading.corners || null)}`;
    if (key === this.shownKey) return;
    this.shownKey = key;
    this.shownPhotoId = reading.photo_id;
    this.failedPhotoId = null;
    this.shownReading = reading;
    if (reading.photo_id === this.photoId) this.stopWaiting();
    this.corners.close();
    this.setStatus("");
    this.setError("");
    // The server says which dice are doubtful (vision.confidence.DOUBTFUL_BELOW).
    const flags = reading.doubtful || null; // readings stored before the field: no marks
    this.openGrid(reading.rows, reading.cols, reading.letters, flags);
    this.renderLearn();
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
    this.failed(unreadableText(event));
    this.failureText = this.el.error.textContent;
    // A picture with no board found: its corners may be placed by hand (not for files
    // that are no picture at all, or gone).
    const handPlaceable = placeableByHand(event.code);
    if (handPlaceable) this.failedPhotoId = event.photo_id;
    this.el.place.hidden = !handPlaceable;
  }

  // ------------------------------------------------------------------ corners by hand

  /** Show the photo with its corners: the grid read, or a guess when none was found. */
  async openCorners(photoId) {
    if (photoId === null || photoId === undefined) return;
    this.setError("");
    let photo;
    try {
      const response = await fetch(`/api/rooms/${this.code}/photos/${photoId}`, { credentials: "same-origin" });
      photo = (await response.json()).photo;
    } catch {
      photo = null;
    }
    if (!photo || !photo.width || !photo.height) {
      this.setError(gettext("The photo is gone from the server. Please send it again."));
      return;
    }
    const result = photo.result || {};
    const roomSide = Number(this.store.state.settings.board_size.split("x")[0]);
    this.closeGrid();
    this.el.place.hidden = true;
    this.cornersPhotoId = photo.id;
    this.corners.open({
      src: `/api/rooms/${this.code}/photos/${photo.id}/image`,
      width: photo.width,
      height: photo.height,
      corners: photo.corners || result.corners || null,
      size: photo.size || (result.rows === result.cols ? result.rows : null) || roomSide,
    });
    this.el.title.textContent = gettext("Place the board's corners");
  }

  async readCorners(corners, size) {
    const photoId = this.cornersPhotoId;
    this.setError("");
    this.corners.setBusy(true);
    let response;
    let data = null;
    try {
      response = await fetch(`/api/rooms/${this.code}/photos/${photoId}/corners`, {
        method: "POST",
        credentials: "same-origin",
        headers: { "Content-Type": "application/json" },
        body: JSON.stringify({ corners, size }),
      });
      data = await response.json();
    } catch {
      this.corners.setBusy(false);
      this.setError(gettext("Could not reach the server. Check your connection and try again."));
      return;
    }
    this.corners.setBusy(false);
    if (!response.ok) {
      const code = data && data.error ? data.error.code : null;
      this.setError(capitalise(refusalText(response, data, { corners: true })));
      if (code === "photo_outdated" || code === "photo_not_found") this.closeCorners();
      return;
    }
    this.closeCorners({ restore: false }); // a new reading is coming
    this.failedPhotoId = null;
    this.photoId = photoId;
    this.waitingText = gettext("Reading the dice inside the corners…");
    this.waiting(data.photo.reader_progress, this.waitingText);
    this.poll(Date.now());
  }

  /** Close the editor; `restore`: show again what it opened from (the failure, the grid). */
  closeCorners({ restore = true } = {}) {
    if (!this.corners.isOpen) return;
    this.corners.close();
    this.cornersPhotoId = null;
    this.el.title.textContent = gettext("Play a real board");
    if (!restore) return;
    if (this.failedPhotoId !== null) {
      this.el.place.hidden = false;
      this.setError(this.failureText || "");
      this.el.place.focus({ preventScroll: true });
    } else if (this.shownReading && this.shownPhotoId !== null) {
      this.shownKey = null; // show the reading again
      this.showReading(this.shownReading);
      this.el.adjust.focus({ preventScroll: true });
    }
  }

  // ------------------------------------------------------------------ the grid

  openEmpty() {
    const [rows, cols] = this.store.state.settings.board_size.split("x").map(Number);
    this.corners.close();
    this.setError("");
    this.openGrid(rows, cols, null, null);
    this.el.note.textContent = gettext("Type each die's letter, row by row (Qu as Q, a blank die as #).");
    this.el.title.textContent = gettext("Type the board");
    const first = this.el.grid.querySelector("input");
    if (first) first.focus();
  }

  openGrid(rows, cols, letters, doubtfulDice) {
    this.grid = { rows, cols };
    this.el.place.hidden = true;
    // A reading's grid may be placed again by hand; a typed board has no photo.
    this.el.adjust.hidden = !letters;
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
    this.el.adjust.hidden = true;
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
    this.shownReading = null; // used: a reload will not show it again either
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
    this.progress.hidden = true;
    window.clearTimeout(this.pollTimer);
  }

  failed(message) {
    this.stopWaiting();
    this.setStatus("");
    this.el.place.hidden = true;
    this.failedPhotoId = null;
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
