// A photo of the board on the Solve page, read by the rooms' reader with no room: the
// camera view (lib/camera.js) or the phone's camera opens, the photo goes to POST
// /api/solve/photos, and its reading is asked for with GET /api/solve/photos/<id>?wait=8
// (docs/api.md, "A photo on the Solve page") under the key the upload answered, sent as a
// Bearer header and never in an address. A read board lands in the editable grid
// (board-entry.js) with its doubtful dice marked; a failed one says what to change. Corners
// placed by hand (room/corners.js) read the dice inside them; the photo itself is fetched
// with the key and shown from a blob: address. The texts of failures and refusals are the
// room's (room/photo.js).

import { capitalise } from "../lib/api.js";
import { openCamera } from "../lib/camera.js";
import { showText } from "../lib/dom.js";
import { gettext } from "../lib/i18n.js";
import { CornersEditor } from "../room/corners.js";
import { placeableByHand, readerProgressText, refusalText, sendPhoto, unreadableText } from "../room/photo.js";

// How long the server holds an answer (photos/solo_api.py allows 10 s): it comes back as
// soon as the photo changes (read, failed, being read, the reader's load further along).
const WAIT_SECONDS = 8;
// After a failed request, ask again after this long; give up after GIVE_UP_MS in all.
const RETRY_MS = 2000;
const GIVE_UP_MS = 120000;

const NETWORK = () => gettext("Could not reach the server. Check your connection and try again.");

export class PhotoReader {
  /**
   * `el`: {button, input, status, progress, error, place, adjust, corners}. `onRead(result)`
   * with a reading ({rows, cols, letters, doubtful, …}); `onCorners(open)` when the corners
   * editor opens or closes (the grid makes way for it); `side()`: the grid's size now.
   */
  constructor(el, { onRead, onCorners, side }) {
    this.el = el;
    this.onRead = onRead;
    this.onCorners = onCorners;
    this.side = side;
    this.photo = null; // {id, key} of the latest photo sent from this page
    this.waitingFor = null; // the photo id a poll is running for
    this.failure = null; // what the page said when the latest photo could not be read
    this.imageUrl = null;
    this.corners = new CornersEditor(el.corners, {
      onRead: (corners, size) => this.readCorners(corners, size),
      onCancel: () => this.closeCorners(),
    });
    // The camera view where the page may open the camera (lib/camera.js), else the file
    // input, which opens the phone's camera or its files.
    el.button.addEventListener("click", () =>
      openCamera({ onPicture: (file) => this.upload(file), onFallback: () => el.input.click() }),
    );
    el.input.addEventListener("change", () => {
      const file = el.input.files && el.input.files[0];
      if (file) this.upload(file);
      el.input.value = "";
    });
    el.place.addEventListener("click", () => this.openCorners());
    el.adjust.addEventListener("click", () => this.openCorners());
  }

  headers(extra = {}) {
    return { Authorization: `Bearer ${this.photo.key}`, Accept: "application/json", ...extra };
  }

  // ------------------------------------------------------------------ sending, reading

  async upload(file) {
    this.closeCorners({ restore: false });
    this.reset();
    this.setStatus(gettext("Sending the photo (%(size)s MB)…", { size: (file.size / 1e6).toFixed(1) }), true);
    let data;
    try {
      data = await sendPhoto("/api/solve/photos", file);
    } catch (error) {
      this.fail(error.message);
      return;
    }
    this.photo = { id: data.photo.id, key: data.key };
    this.follow(data.photo, gettext("Reading the board…"));
  }

  /** Wait for the photo's reading: the server holds each answer up to WAIT_SECONDS. */
  async follow(photo, readingText) {
    const id = photo.id;
    const started = Date.now();
    this.waitingFor = id;
    this.waiting(photo.reader_progress, readingText);
    while (this.waitingFor === id) {
      if (Date.now() - started > GIVE_UP_MS) {
        this.fail(gettext("Reading the photo is taking too long. Please try again."));
        return;
      }
      let answer = null;
      try {
        const response = await fetch(`/api/solve/photos/${id}?wait=${WAIT_SECONDS}`, {
          credentials: "same-origin",
          headers: this.headers(),
        });
        const data = await response.json();
        if (!response.ok) {
          if (this.waitingFor === id) this.fail(data && data.error ? data.error.message : refusalText(response, data));
          return;
        }
        answer = data.photo;
      } catch {
        // Offline for a moment, or a dropped answer: ask again shortly.
        await new Promise((resolve) => window.setTimeout(resolve, RETRY_MS));
        continue;
      }
      if (this.waitingFor !== id) return; // another photo since
      if (answer.status === "read" && answer.result) {
        this.read(answer);
        return;
      }
      if (answer.status === "failed") {
        this.unreadable(answer);
        return;
      }
      this.waiting(answer.reader_progress, readingText);
    }
  }

  /** The photo waits: for the server's reader to load (`progress` 0-99), or is being read. */
  waiting(progress, readingText) {
    const readying = typeof progress === "number";
    this.el.progress.hidden = !readying;
    if (readying) this.el.progress.value = progress;
    this.setStatus(readying ? readerProgressText(progress) : readingText, true);
  }

  read(photo) {
    this.waitingFor = null;
    this.failure = null;
    this.el.progress.hidden = true;
    this.setStatus("");
    this.setError("");
    this.el.place.hidden = true;
    this.el.adjust.hidden = false;
    this.onRead(photo.result);
  }

  unreadable(photo) {
    const failure = { ...(photo.failure || { code: "failed" }), message: photo.error || "" };
    this.fail(unreadableText(failure));
    const placeable = placeableByHand(failure.code);
    this.el.place.hidden = !placeable;
    this.failure = placeable ? this.el.error.textContent : null;
  }

  // ------------------------------------------------------------------ corners by hand

  /** The photo with its board's corners to place: the grid read, or a guess. */
  async openCorners() {
    if (!this.photo) return;
    this.setError("");
    let photo = null;
    let image = null;
    try {
      const response = await fetch(`/api/solve/photos/${this.photo.id}`, { credentials: "same-origin", headers: this.headers() });
      photo = response.ok ? (await response.json()).photo : null;
      const picture = photo ? await fetch(`/api/solve/photos/${this.photo.id}/image`, { credentials: "same-origin", headers: this.headers({ Accept: "image/*" }) }) : null;
      image = picture && picture.ok ? await picture.blob() : null;
    } catch {
      this.setError(NETWORK());
      return;
    }
    if (!photo || !image || !photo.width || !photo.height) {
      this.setError(gettext("The photo is gone from the server. Please send it again."));
      return;
    }
    const result = photo.result || {};
    if (this.imageUrl) URL.revokeObjectURL(this.imageUrl);
    this.imageUrl = URL.createObjectURL(image);
    this.el.place.hidden = true;
    this.el.adjust.hidden = true;
    this.onCorners(true);
    this.corners.open({
      src: this.imageUrl,
      width: photo.width,
      height: photo.height,
      corners: photo.corners || result.corners || null,
      size: photo.size || (result.rows === result.cols ? result.rows : null) || this.side(),
    });
  }

  async readCorners(corners, size) {
    this.setError("");
    this.corners.setBusy(true);
    let response;
    let data = null;
    try {
      response = await fetch(`/api/solve/photos/${this.photo.id}/corners`, {
        method: "POST",
        credentials: "same-origin",
        headers: this.headers({ "Content-Type": "application/json" }),
        body: JSON.stringify({ corners, size }),
      });
      data = await response.json();
    } catch {
      this.corners.setBusy(false);
      this.setError(NETWORK());
      return;
    }
    this.corners.setBusy(false);
    if (!response.ok) {
      this.setError(capitalise(refusalText(response, data, { corners: true })));
      return;
    }
    this.closeCorners({ restore: false }); // a new reading is coming
    this.failure = null;
    this.follow(data.photo, gettext("Reading the dice inside the corners…"));
  }

  /** Close the editor; `restore`: show again what it was opened from (the reading's grid
   * with its "Adjust" button, or the failure with "Place the corners yourself"). */
  closeCorners({ restore = true } = {}) {
    if (!this.corners.isOpen) return;
    this.corners.close();
    this.onCorners(false);
    if (!restore || !this.photo) return;
    this.el.place.hidden = !this.failure;
    this.el.adjust.hidden = Boolean(this.failure);
    this.setError(this.failure || "");
    (this.failure ? this.el.place : this.el.adjust).focus({ preventScroll: true });
  }

  // ------------------------------------------------------------------ status

  /** Forget the previous photo (a new one is coming, or the board was typed anew). */
  reset() {
    this.waitingFor = null;
    this.failure = null;
    this.el.progress.hidden = true;
    this.el.place.hidden = true;
    this.el.adjust.hidden = true;
    this.setStatus("");
    this.setError("");
  }

  fail(message) {
    this.waitingFor = null;
    this.el.progress.hidden = true;
    this.el.place.hidden = true;
    this.setStatus("");
    this.setError(capitalise(message));
  }

  setStatus(text, busy = false) {
    showText(this.el.status, text);
    this.el.status.classList.toggle("busy", busy);
    this.el.button.disabled = busy;
    this.el.button.setAttribute("aria-busy", busy ? "true" : "false");
  }

  setError(text) {
    showText(this.el.error, text);
  }
}
