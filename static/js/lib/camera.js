// The camera view of the photo buttons (the room's "Board from a photo", the Solve page's):
// a full-screen dialog with the phone's back camera live, that guides the shot and takes it.
//
// Where the browser offers a camera (`navigator.mediaDevices.getUserMedia`: https, or this
// machine's own http://localhost; not plain http over the LAN), the button opens the view;
// elsewhere it opens the file input at once, as before, and "Choose a file instead" does so
// from the view (a refused permission, no camera). About 4 times a second the view measures
// a small copy of the video (shot-quality.js: too dark, glare, moving, blurred); once a
// second it sends a 640-pixel JPEG of it to POST /api/photos/preview (photos/preview_api.py,
// never two at once), which answers where the board is: its outline is drawn over the video,
// green, or the reader's reason becomes advice ("move closer"). With the board found, the
// picture steady, sharp and well lit for a second ("Hold still… taking it", a ring filling),
// the view takes the picture itself: the video's full-resolution frame as a JPEG, handed
// to `onPicture(file)` as the file input's would be. "Take the picture" takes it at once.
// Every camera track stops when the view closes (Escape, Cancel, a picture taken).

import { h, svg } from "./dom.js";
import { gettext } from "./i18n.js";
import { measure } from "./shot-quality.js";

const PREVIEW_URL = "/api/photos/preview";
// The camera asked for: the back one, at a photo's resolution where it has one (a phone's
// 12 MP sensor; else the largest it streams, e.g. 1920x1080).
const VIDEO = { facingMode: { ideal: "environment" }, width: { ideal: 4032 }, height: { ideal: 3024 } };
// How often the picture's quality is measured (ms), and the width of the copy measured.
const MEASURE_MS = 250;
const MEASURE_WIDTH = 320;
// How often a preview is sent (ms; never while one is on its way), its longer side
// (pixels) and JPEG quality: some 20-60 kB (the server takes up to 300 kB).
const PREVIEW_MS = 1000;
const PREVIEW_SIDE = 640;
const PREVIEW_QUALITY = 0.7;
// A preview's answer counts for this long (ms): an older outline is no longer drawn.
const ANSWER_FRESH_MS = 2500;
// After a refused preview, wait at least this long (ms) before the next (429: its
// Retry-After, if longer).
const BACK_OFF_MS = 3000;
// The board found and the picture good for this long (ms): the view takes it.
const HOLD_MS = 1000;
// Advice shown only once it held this long (ms): a screen reader hears a change, not each
// flicker of the measures.
const SETTLE_MS = 600;
// The picture handed on: JPEG of this quality.
const PICTURE_QUALITY = 0.92;

// What to change, by the preview's `code` (photos/reading.py's failure codes).
const BOARD_ADVICE = {
  dice_too_small: () => gettext("Move closer: the board should fill most of the picture."),
  no_grid: () => gettext("Point the camera at the board, from straight above."),
  cluttered: () => gettext("Clear the table around the board, or come closer."),
  dice_count: () => gettext("Get the whole board in the frame, from straight above."),
  no_board: () => gettext("Get the whole board in the frame, from straight above."),
  reader_loading: () => gettext("Getting the photo reader ready…"),
};
const PROBLEM_ADVICE = {
  dark: () => gettext("Too dark: turn on a light, or move out of the shadow."),
  glare: () => gettext("Glare on the dice: tilt the phone a little, or move the lamp."),
  moving: () => gettext("Hold still."),
  blurred: () => gettext("Blurred: tap to focus, or move back a little."),
};

/** A camera struck through, shown when the camera cannot be used. */
function cameraOffIcon() {
  const icon = svg("svg", { viewBox: "0 0 24 24", class: "camera-off-icon", "aria-hidden": "true", focusable: "false" });
  icon.append(svg("path", { d: "M4 8h3l2-3h6l2 3h3v11H4z" }), svg("circle", { cx: 12, cy: 13, r: 3.5 }), svg("path", { d: "M3 3l18 18" }));
  return icon;
}

/** Whether this page may open the camera (a secure context with getUserMedia). */
export function cameraAvailable() {
  return Boolean(
    window.isSecureContext && navigator.mediaDevices && typeof navigator.mediaDevices.getUserMedia === "function",
  );
}

/**
 * The photo button's click: the camera view where the page may open the camera, else
 * `onFallback()` at once (still within the click, so the file input may open). The view
 * hands its picture to `onPicture(file)`; its "Choose a file instead" calls `onFallback()`.
 */
export function openCamera({ onPicture, onFallback }) {
  if (!cameraAvailable()) {
    onFallback();
    return null;
  }
  const view = new CameraView({ onPicture, onFallback });
  view.open();
  return view;
}

export class CameraView {
  constructor({ onPicture, onFallback }) {
    this.onPicture = onPicture;
    this.onFallback = onFallback;
    this.stream = null;
    this.timers = [];
    this.previousGray = null;
    this.quality = null; // the latest measures (shot-quality.js measure)
    this.answer = null; // the latest preview's answer, with `at` and the preview's size
    this.sending = false; // a preview is on its way
    this.previewsOn = true; // false once the server said it does not look at them
    this.pauseUntil = 0;
    this.readySince = null; // since when everything is good (the countdown)
    this.taking = false;
    this.shown = { text: "", since: 0 };
    this.pending = { text: "", since: 0 };
    this.measureCanvas = document.createElement("canvas");
    this.previewCanvas = document.createElement("canvas");
    this.build();
  }

  build() {
    this.video = h("video", { class: "camera-video", playsinline: true, muted: true, autoplay: true, "aria-hidden": "true" });
    this.video.muted = true; // the attribute alone does not make autoplay allowed everywhere
    this.overlay = h("canvas", { class: "camera-overlay", "aria-hidden": "true" });
    this.ring = h(
      "div",
      { class: "camera-ring", hidden: true, "aria-hidden": "true" },
      (() => {
        const picture = svg("svg", { viewBox: "0 0 48 48", class: "camera-ring-picture" });
        picture.append(svg("circle", { class: "camera-ring-track", cx: 24, cy: 24, r: 20 }));
        picture.append(svg("circle", { class: "camera-ring-fill", cx: 24, cy: 24, r: 20, pathLength: 100 }));
        return picture;
      })(),
    );
    this.stage = h(
      "div",
      { class: "camera-stage", on: { click: () => this.focus() } },
      this.video,
      this.overlay,
      this.ring,
    );
    this.advice = h("p", { class: "camera-advice", role: "status", "aria-live": "polite" });
    this.takeButton = h("button", {
      type: "button",
      class: "button primary big camera-take",
      autofocus: true, // the dialog's first focus: not Cancel, which Enter would press
      text: gettext("Take the picture"),
      on: { click: () => this.take() },
    });
    this.fileButton = h("button", {
      type: "button",
      class: "button subtle camera-file",
      text: gettext("Choose a file instead"),
      on: { click: () => this.chooseFile() },
    });
    this.cancelButton = h("button", {
      type: "button",
      class: "button subtle camera-cancel",
      text: gettext("Cancel"),
      on: { click: () => this.close() },
    });
    this.dialog = h(
      "dialog",
      { class: "camera-dialog", "aria-labelledby": "camera-title", "aria-describedby": "camera-advice" },
      h("div", { class: "camera-head" }, h("h2", { id: "camera-title", class: "camera-title", text: gettext("Photograph the board") }), this.cancelButton),
      this.stage,
      h("div", { class: "camera-foot" }, cameraOffIcon(), this.advice, h("div", { class: "camera-buttons" }, this.takeButton, this.fileButton)),
    );
    this.advice.id = "camera-advice";
    // Escape closes a modal dialog by itself; every way of closing ends here.
    this.dialog.addEventListener("close", () => this.stop());
  }

  get isOpen() {
    return this.dialog.open;
  }

  async open() {
    document.body.append(this.dialog);
    this.dialog.showModal();
    this.setAdvice(gettext("Starting the camera…"), true);
    let stream;
    try {
      stream = await navigator.mediaDevices.getUserMedia({ video: VIDEO, audio: false });
    } catch (error) {
      if (this.isOpen) this.cameraFailed(error);
      return;
    }
    if (!this.isOpen) {
      // Cancelled while the browser asked: never keep the camera on.
      for (const track of stream.getTracks()) track.stop();
      return;
    }
    this.stream = stream;
    this.video.srcObject = stream;
    try {
      await this.video.play();
    } catch {
      // autoplay refused: the frames still come as the video is shown (muted, inline)
    }
    if (!this.isOpen) return;
    this.setAdvice(gettext("Point the camera at the board, from straight above."), true);
    this.timers.push(window.setInterval(() => this.tick(), MEASURE_MS));
    this.timers.push(window.setInterval(() => this.sendPreview(), PREVIEW_MS));
  }

  cameraFailed(error) {
    const name = error && error.name;
    let text;
    if (name === "NotAllowedError" || name === "SecurityError") {
      text = gettext("The camera was not allowed. Choose a file instead, or allow the camera for this site in the browser's settings.");
    } else if (name === "NotFoundError" || name === "OverconstrainedError") {
      text = gettext("No camera was found. Choose a file instead.");
    } else {
      text = gettext("The camera could not be started (another app may be using it). Choose a file instead.");
    }
    this.dialog.classList.add("failed"); // the message and the file button, centred
    this.takeButton.hidden = true;
    this.setAdvice(text, true);
    this.fileButton.classList.remove("subtle");
    this.fileButton.classList.add("primary");
    this.fileButton.focus();
  }

  /** Close the view (its camera stops with it: the dialog's close event). */
  close() {
    if (this.dialog.open) this.dialog.close();
    else this.stop();
  }

  stop() {
    for (const timer of this.timers) window.clearInterval(timer);
    this.timers = [];
    if (this.stream) for (const track of this.stream.getTracks()) track.stop();
    this.stream = null;
    this.video.srcObject = null;
    this.dialog.remove();
  }

  chooseFile() {
    this.close();
    this.onFallback();
  }

  // ------------------------------------------------------------------ measuring

  tick() {
    const video = this.video;
    if (!this.isOpen || this.taking || !video.videoWidth || !video.videoHeight) return;
    const width = MEASURE_WIDTH;
    const height = Math.max(1, Math.round((video.videoHeight * width) / video.videoWidth));
    const canvas = this.measureCanvas;
    if (canvas.width !== width || canvas.height !== height) {
      canvas.width = width;
      canvas.height = height;
    }
    const context = canvas.getContext("2d", { willReadFrequently: true });
    context.drawImage(video, 0, 0, width, height);
    const quality = measure(context.getImageData(0, 0, width, height).data, width, height, this.previousGray);
    this.previousGray = quality.gray;
    this.quality = quality;
    this.decide(Date.now());
    this.drawOutline();
  }

  /** The latest preview's answer while it still counts, else null. */
  freshAnswer(now) {
    return this.answer && now - this.answer.at < ANSWER_FRESH_MS ? this.answer : null;
  }

  /** What to say, and whether to take the picture: the board found in the latest preview,
   * and the picture good, for HOLD_MS. */
  decide(now) {
    const problem = this.quality ? this.quality.problem : "moving";
    const answer = this.freshAnswer(now);
    const found = Boolean(answer && answer.found);
    let text;
    if (problem === "dark" || problem === "glare") text = PROBLEM_ADVICE[problem]();
    else if (!this.previewsOn) {
      text = problem ? PROBLEM_ADVICE[problem]() : gettext("Get the whole board in the frame, then take the picture.");
    } else if (found) text = problem ? PROBLEM_ADVICE[problem]() : gettext("Hold still… taking it");
    else if (problem) text = PROBLEM_ADVICE[problem]();
    else if (!answer) text = gettext("Looking for the board…");
    else text = (BOARD_ADVICE[answer.code] || BOARD_ADVICE.no_board)();

    const ready = this.previewsOn && found && !problem;
    if (!ready) {
      this.readySince = null;
      this.showRing(false);
    } else if (this.readySince === null) {
      this.readySince = now;
      this.showRing(true);
    } else if (now - this.readySince >= HOLD_MS) {
      this.take();
      return;
    }
    this.setAdvice(text, ready);
  }

  /** Show `text` once it held SETTLE_MS (`now`: at once). */
  setAdvice(text, now = false) {
    const time = Date.now();
    if (text === this.shown.text) {
      this.pending = { text: "", since: 0 };
      return;
    }
    if (text !== this.pending.text) this.pending = { text, since: time };
    if (now || time - this.pending.since >= SETTLE_MS) {
      this.shown = { text, since: time };
      this.pending = { text: "", since: 0 };
      this.advice.textContent = text;
    }
  }

  showRing(on) {
    if (on === !this.ring.hidden) return;
    this.ring.hidden = !on;
    // Restart the ring's filling (camera-ring's animation) each time it shows.
    this.ring.classList.remove("filling");
    if (on) {
      void this.ring.offsetWidth;
      this.ring.classList.add("filling");
    }
  }

  /** The video's picture as it sits in the stage (object-fit: contain): its offset and
   * scale in CSS pixels. */
  videoBox() {
    const video = this.video;
    const width = this.overlay.clientWidth;
    const height = this.overlay.clientHeight;
    const scale = Math.min(width / video.videoWidth, height / video.videoHeight);
    return {
      width,
      height,
      scale,
      left: (width - video.videoWidth * scale) / 2,
      top: (height - video.videoHeight * scale) / 2,
    };
  }

  drawOutline() {
    const canvas = this.overlay;
    const ratio = window.devicePixelRatio || 1;
    const box = this.videoBox();
    const width = Math.round(box.width * ratio);
    const height = Math.round(box.height * ratio);
    if (canvas.width !== width || canvas.height !== height) {
      canvas.width = width;
      canvas.height = height;
    }
    const context = canvas.getContext("2d");
    context.clearRect(0, 0, width, height);
    const answer = this.freshAnswer(Date.now());
    this.stage.classList.toggle("found", Boolean(answer && answer.found));
    if (!answer || !answer.found || !Array.isArray(answer.corners)) return;
    // Preview pixels -> video pixels -> the stage's device pixels.
    const toVideo = this.video.videoWidth / answer.previewWidth;
    const points = answer.corners.map(([x, y]) => [
      (box.left + (x + 0.5) * toVideo * box.scale) * ratio,
      (box.top + (y + 0.5) * toVideo * box.scale) * ratio,
    ]);
    context.lineJoin = "round";
    context.beginPath();
    points.forEach(([x, y], index) => (index ? context.lineTo(x, y) : context.moveTo(x, y)));
    context.closePath();
    context.fillStyle = "rgba(40, 200, 90, 0.14)";
    context.fill();
    context.lineWidth = 6 * ratio; // a dark rim under the green: seen on light and dark tables
    context.strokeStyle = "rgba(0, 0, 0, 0.55)";
    context.stroke();
    context.lineWidth = 3.5 * ratio;
    context.strokeStyle = "#3ddc84";
    context.stroke();
  }

  // ------------------------------------------------------------------ the server's look

  async sendPreview() {
    const video = this.video;
    if (!this.isOpen || this.taking || this.sending || !this.previewsOn) return;
    if (Date.now() < this.pauseUntil || !video.videoWidth || !video.videoHeight) return;
    this.sending = true;
    try {
      const scale = Math.min(1, PREVIEW_SIDE / Math.max(video.videoWidth, video.videoHeight));
      const width = Math.round(video.videoWidth * scale);
      const height = Math.round(video.videoHeight * scale);
      const canvas = this.previewCanvas;
      canvas.width = width;
      canvas.height = height;
      canvas.getContext("2d").drawImage(video, 0, 0, width, height);
      const blob = await new Promise((resolve) => canvas.toBlob(resolve, "image/jpeg", PREVIEW_QUALITY));
      if (!blob || !this.isOpen) return;
      const body = new FormData();
      body.append("photo", blob, "preview.jpg");
      const response = await fetch(PREVIEW_URL, { method: "POST", body, credentials: "same-origin" });
      const data = response.ok ? await response.json() : null;
      if (!this.isOpen) return;
      if (!data) {
        const wait = Number(response.headers.get("Retry-After")) * 1000;
        this.pauseUntil = Date.now() + Math.max(BACK_OFF_MS, wait || 0);
        return;
      }
      if (data.code === "unavailable") this.previewsOn = false; // guided by the measures alone
      this.answer = { ...data, at: Date.now(), previewWidth: width };
    } catch {
      this.pauseUntil = Date.now() + BACK_OFF_MS; // offline for a moment: the camera still works
    } finally {
      this.sending = false;
    }
  }

  // ------------------------------------------------------------------ the picture

  /** Tap to focus, where the camera lets the page ask (Chrome on Android). */
  focus() {
    const track = this.stream && this.stream.getVideoTracks()[0];
    if (!track || typeof track.getCapabilities !== "function") return;
    const modes = track.getCapabilities().focusMode || [];
    const mode = ["single-shot", "continuous"].find((name) => modes.includes(name));
    if (mode) track.applyConstraints({ advanced: [{ focusMode: mode }] }).catch(() => {});
  }

  /** The video's frame at its full resolution, as a JPEG file, to `onPicture`. */
  take() {
    const video = this.video;
    if (this.taking || !this.isOpen || !video.videoWidth || !video.videoHeight) return;
    this.taking = true;
    this.showRing(false);
    this.setAdvice(gettext("Taking the picture…"), true);
    const canvas = document.createElement("canvas");
    canvas.width = video.videoWidth;
    canvas.height = video.videoHeight;
    canvas.getContext("2d").drawImage(video, 0, 0);
    canvas.toBlob(
      (blob) => {
        this.close();
        if (blob) this.onPicture(new File([blob], "board.jpg", { type: "image/jpeg", lastModified: Date.now() }));
      },
      "image/jpeg",
      PICTURE_QUALITY,
    );
  }
}
