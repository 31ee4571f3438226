// Corners by hand: the board photo with four handles on the board's outer corners and the
// grid they frame drawn between them, a board size, and "Read these dice". The server then
// reads the dice inside the corners (POST …/photos/<id>/corners, docs/api.md).
//
// Coordinates are the photo's pixels after EXIF orientation (the server's `width` and
// `height`; GET …/image sends the picture upright, smaller): the SVG overlay's viewBox is
// that size, and a handle's place on screen is its share of the stage, so any display
// scale maps back exactly. Handles are 44 px touch targets with `touch-action: none` (a
// drag never scrolls the page); a focused handle moves with the arrow keys.

import { h, svg } from "../lib/dom.js";
import { gettext } from "../lib/i18n.js";

export const SIDES = [4, 5, 6];
// The corners' names, clockwise from the board's top left (the server's order).
const CORNER_NAMES = [
  () => gettext("Top-left corner"),
  () => gettext("Top-right corner"),
  () => gettext("Bottom-right corner"),
  () => gettext("Bottom-left corner"),
];
// An arrow key moves a handle this many screen pixels (with Shift: BIG_STEP).
const STEP = 2;
const BIG_STEP = 12;
// The stage is at most this share of the window's height (the buttons stay in view).
const MAX_HEIGHT_VH = 62;
// While a corner is dragged, a loupe above the finger shows the photo under it this much
// larger (the finger hides the very corner it places).
const LOUPE_ZOOM = 3;

/** Where a guess of the board starts when none was found: a centred square, inset. */
export function defaultCorners(width, height) {
  const side = 0.6 * Math.min(width, height);
  const left = (width - side) / 2;
  const top = (height - side) / 2;
  return [
    [left, top],
    [left + side, top],
    [left + side, top + side],
    [left, top + side],
  ];
}

/**
 * The projective map of the unit square (u right, v down) onto the four corners,
 * clockwise from the top left: the grid the server reads (vision.lattice.grid_from_corners).
 */
export function squareToCorners(corners) {
  const [[x0, y0], [x1, y1], [x2, y2], [x3, y3]] = corners;
  const dx3 = x0 - x1 + x2 - x3;
  const dy3 = y0 - y1 + y2 - y3;
  let g = 0;
  let k = 0;
  if (Math.abs(dx3) > 1e-9 || Math.abs(dy3) > 1e-9) {
    const dx1 = x1 - x2;
    const dx2 = x3 - x2;
    const dy1 = y1 - y2;
    const dy2 = y3 - y2;
    const det = dx1 * dy2 - dx2 * dy1;
    if (Math.abs(det) > 1e-12) {
      g = (dx3 * dy2 - dx2 * dy3) / det;
      k = (dx1 * dy3 - dx3 * dy1) / det;
    }
  }
  const a = x1 - x0 + g * x1;
  const b = x3 - x0 + k * x3;
  const d = y1 - y0 + g * y1;
  const e = y3 - y0 + k * y3;
  return (u, v) => {
    const w = g * u + k * v + 1;
    return [(a * u + b * v + x0) / w, (d * u + e * v + y0) / w];
  };
}

/** Whether the corners go round clockwise (on screen, y down) without crossing. */
export function framesABoard(corners) {
  for (let i = 0; i < 4; i += 1) {
    const [ax, ay] = corners[i];
    const [bx, by] = corners[(i + 1) % 4];
    const [cx, cy] = corners[(i + 2) % 4];
    if ((bx - ax) * (cy - by) - (by - ay) * (cx - bx) <= 0) return false;
  }
  return true;
}

export class CornersEditor {
  /** `box`: the element the editor fills; `onRead(corners, size)`, `onCancel()`. */
  constructor(box, { onRead, onCancel }) {
    this.box = box;
    this.onRead = onRead;
    this.onCancel = onCancel;
    this.corners = null;
    this.drag = null;
  }

  get isOpen() {
    return !this.box.hidden;
  }

  /** Show the photo `src` (`width` x `height` pixels upright) with `corners` and `size`. */
  open({ src, width, height, corners, size }) {
    this.width = width;
    this.height = height;
    this.corners = (corners && corners.length === 4 ? corners : defaultCorners(width, height)).map(([x, y]) => [
      this.clampX(x),
      this.clampY(y),
    ]);
    this.size = SIDES.includes(size) ? size : 4;
    this.build(src);
    this.box.hidden = false;
    this.draw();
    this.handles[0].focus({ preventScroll: true });
    this.stage.scrollIntoView({ block: "nearest" });
  }

  close() {
    this.box.hidden = true;
    this.box.replaceChildren();
    this.corners = null;
    this.drag = null;
  }

  setBusy(busy) {
    if (!this.readButton) return;
    this.readButton.disabled = busy || !framesABoard(this.corners);
    this.readButton.setAttribute("aria-busy", busy ? "true" : "false");
  }

  // ------------------------------------------------------------------ building

  build(src) {
    const { width, height } = this;
    this.image = h("img", {
      class: "corners-photo",
      src,
      alt: gettext("The photo of the board"),
      draggable: "false",
    });
    this.outline = svg("polygon", { class: "corners-outline" });
    this.lines = svg("path", { class: "corners-lines" });
    const overlay = svg("svg", {
      class: "corners-overlay",
      viewBox: `0 0 ${width} ${height}`,
      preserveAspectRatio: "none",
      "aria-hidden": "true",
    });
    overlay.append(this.lines, this.outline);
    this.handles = CORNER_NAMES.map((name, index) => {
      const handle = h(
        "button",
        {
          type: "button",
          class: "corner-handle",
          "aria-label": name(),
          "aria-describedby": "corners-help",
          dataset: { corner: index },
        },
        h("span", { class: "corner-dot", "aria-hidden": "true" }),
      );
      handle.addEventListener("pointerdown", (event) => this.startDrag(event, index));
      handle.addEventListener("keydown", (event) => this.onKey(event, index));
      return handle;
    });
    this.loupe = h("div", { class: "corners-loupe", hidden: true, "aria-hidden": "true" });
    this.loupe.style.backgroundImage = `url("${src}")`;
    this.stage = h("div", { class: "corners-stage" }, this.image, overlay, this.loupe, ...this.handles);
    // The photo keeps its aspect; at most MAX_HEIGHT_VH of the window high.
    this.stage.style.aspectRatio = `${width} / ${height}`;
    this.stage.style.width = `min(100%, ${((MAX_HEIGHT_VH * width) / height).toFixed(3)}vh)`;
    this.stage.addEventListener("pointermove", (event) => this.moveDrag(event));
    this.stage.addEventListener("pointerup", (event) => this.endDrag(event));
    this.stage.addEventListener("pointercancel", (event) => this.endDrag(event));

    const sizes = SIDES.map((side) =>
      h(
        "label",
        { class: "corners-size-option" },
        h("input", {
          type: "radio",
          name: "corners-size",
          value: String(side),
          checked: side === this.size,
          on: {
            change: () => {
              this.size = side;
              this.draw();
            },
          },
        }),
        h("span", { text: `${side}×${side}` }),
      ),
    );
    this.warning = h("p", { class: "form-error", role: "alert", hidden: true });
    this.readButton = h("button", {
      type: "button",
      class: "button primary",
      text: gettext("Read these dice"),
      on: { click: () => this.read() },
    });
    this.box.replaceChildren(
      h(
        "p",
        { id: "corners-help", class: "hint" },
        gettext(
          "Drag the four round handles onto the board's outer corners (the outside edges of the corner dice), then read the dice. On a keyboard: Tab to a handle, then the arrow keys.",
        ),
      ),
      this.stage,
      h(
        "fieldset",
        { class: "corners-sizes" },
        h("legend", { text: gettext("Board size") }),
        h("div", { class: "corners-size-options" }, ...sizes),
      ),
      this.warning,
      h(
        "div",
        { class: "actions" },
        this.readButton,
        h("button", { type: "button", class: "button subtle", text: gettext("Cancel"), on: { click: () => this.onCancel() } }),
      ),
    );
  }

  // ------------------------------------------------------------------ moving

  clampX(x) {
    return Math.min(Math.max(Number(x) || 0, 0), this.width);
  }

  clampY(y) {
    return Math.min(Math.max(Number(y) || 0, 0), this.height);
  }

  /** Photo pixels per CSS pixel on screen, along x and y. */
  scale() {
    const rect = this.stage.getBoundingClientRect();
    return [this.width / rect.width, this.height / rect.height];
  }

  /** The photo point under a screen point. */
  toPhoto(clientX, clientY) {
    const rect = this.stage.getBoundingClientRect();
    return [((clientX - rect.left) / rect.width) * this.width, ((clientY - rect.top) / rect.height) * this.height];
  }

  startDrag(event, index) {
    if (event.button !== undefined && event.button > 0) return;
    event.preventDefault(); // no text selection, no emulated mouse events
    const [x, y] = this.toPhoto(event.clientX, event.clientY);
    // Keep the handle where it is under the finger: no jump by the finger's offset.
    this.drag = { index, pointer: event.pointerId, dx: this.corners[index][0] - x, dy: this.corners[index][1] - y };
    this.stage.setPointerCapture(event.pointerId);
    this.handles[index].focus({ preventScroll: true });
    this.handles[index].classList.add("dragging");
    this.showLoupe(index);
  }

  moveDrag(event) {
    if (!this.drag || event.pointerId !== this.drag.pointer) return;
    event.preventDefault();
    const [x, y] = this.toPhoto(event.clientX, event.clientY);
    this.moveTo(this.drag.index, x + this.drag.dx, y + this.drag.dy);
  }

  endDrag(event) {
    if (!this.drag || event.pointerId !== this.drag.pointer) return;
    this.handles[this.drag.index].classList.remove("dragging");
    this.loupe.hidden = true;
    if (this.stage.hasPointerCapture(event.pointerId)) this.stage.releasePointerCapture(event.pointerId);
    this.drag = null;
  }

  onKey(event, index) {
    const moves = { ArrowLeft: [-1, 0], ArrowRight: [1, 0], ArrowUp: [0, -1], ArrowDown: [0, 1] };
    const move = moves[event.key];
    if (!move) return;
    event.preventDefault(); // the arrows move the corner, never the page
    const [sx, sy] = this.scale();
    const step = event.shiftKey ? BIG_STEP : STEP;
    const [x, y] = this.corners[index];
    this.moveTo(index, x + move[0] * step * sx, y + move[1] * step * sy);
  }

  moveTo(index, x, y) {
    this.corners[index] = [this.clampX(x), this.clampY(y)];
    this.draw();
    if (this.drag && this.drag.index === index) this.showLoupe(index);
  }

  /** The loupe over the dragged corner: the photo around it, larger, above the finger. */
  showLoupe(index) {
    const rect = this.stage.getBoundingClientRect();
    const [x, y] = this.corners[index];
    const left = (x / this.width) * rect.width;
    const top = (y / this.height) * rect.height;
    const size = this.loupe.offsetWidth || 96;
    this.loupe.hidden = false;
    this.loupe.style.backgroundSize = `${rect.width * LOUPE_ZOOM}px ${rect.height * LOUPE_ZOOM}px`;
    this.loupe.style.backgroundPosition = `${size / 2 - left * LOUPE_ZOOM}px ${size / 2 - top * LOUPE_ZOOM}px`;
    // Above the finger, or below it near the top of the photo.
    const above = rect.top + top - size - 44 >= 8;
    this.loupe.style.left = `${left}px`;
    this.loupe.style.top = `${above ? top - size / 2 - 44 : top + size / 2 + 44}px`;
  }

  // ------------------------------------------------------------------ drawing

  draw() {
    if (!this.corners) return;
    this.corners.forEach(([x, y], index) => {
      const handle = this.handles[index];
      handle.style.left = `${(100 * x) / this.width}%`;
      handle.style.top = `${(100 * y) / this.height}%`;
      handle.dataset.x = x.toFixed(1);
      handle.dataset.y = y.toFixed(1);
    });
    this.outline.setAttribute("points", this.corners.map(([x, y]) => `${x},${y}`).join(" "));
    const ok = framesABoard(this.corners);
    this.stage.classList.toggle("bad", !ok);
    this.warning.hidden = ok;
    this.warning.textContent = ok
      ? ""
      : gettext("These corners cross: put them on the board's corners, clockwise from the top left.");
    this.readButton.disabled = !ok;
    // The rows and columns between the corners, as the reader will cut the dice.
    const map = squareToCorners(this.corners);
    const parts = [];
    for (let i = 1; i < this.size; i += 1) {
      const t = i / this.size;
      for (const [a, b] of [
        [map(t, 0), map(t, 1)],
        [map(0, t), map(1, t)],
      ]) {
        parts.push(`M${a[0].toFixed(1)},${a[1].toFixed(1)}L${b[0].toFixed(1)},${b[1].toFixed(1)}`);
      }
    }
    this.lines.setAttribute("d", ok ? parts.join("") : "");
  }

  read() {
    if (!framesABoard(this.corners)) return;
    const corners = this.corners.map(([x, y]) => [Math.round(x * 10) / 10, Math.round(y * 10) / 10]);
    this.onRead(corners, this.size);
  }
}
