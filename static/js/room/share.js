// The join link: shown, copied with one tap, and drawn as a QR code for phones at the table.

import qrcode from "../../vendor/qrcode-generator/qrcode.mjs";
import { svg } from "../lib/dom.js";

/** The join link as the server gives it: an address phones reach, never 127.0.0.1. */
export function joinLink(code) {
  const given = document.querySelector("#room")?.dataset.joinUrl;
  return given || `${window.location.origin}/r/${code}/`;
}

/** An SVG QR code of `text`: one path of dark modules, with the quiet zone around. */
export function qrSvg(text, label) {
  const qr = qrcode(0, "M");
  qr.addData(text);
  qr.make();
  const count = qr.getModuleCount();
  const quiet = 2;
  const size = count + quiet * 2;
  let d = "";
  for (let row = 0; row < count; row += 1) {
    for (let col = 0; col < count; col += 1) {
      if (qr.isDark(row, col)) d += `M${col + quiet} ${row + quiet}h1v1h-1z`;
    }
  }
  const image = svg("svg", { viewBox: `0 0 ${size} ${size}`, role: "img", "aria-label": label, "shape-rendering": "crispEdges" });
  image.append(svg("rect", { width: size, height: size, fill: "#fff" }), svg("path", { d, fill: "#111" }));
  return image;
}

export class ShareView {
  constructor({ input, copyButtons, qrBoxes, linkTexts, statuses }, code) {
    this.input = input;
    this.statuses = statuses;
    const link = joinLink(code);
    input.value = link;
    for (const box of qrBoxes) box.replaceChildren(qrSvg(link, `QR code of the join link ${link}`));
    for (const text of linkTexts) text.textContent = link;
    for (const button of copyButtons) button.addEventListener("click", () => this.copy());
    input.addEventListener("focus", () => input.select());
  }

  async copy() {
    const link = this.input.value;
    let copied = false;
    try {
      // Only in secure contexts (https, localhost); a LAN address over plain http has none.
      await navigator.clipboard.writeText(link);
      copied = true;
    } catch {
      copied = copyWithSelection(link);
    }
    this.say(copied ? "Link copied ✓" : "Could not copy: press and hold the link to copy it");
  }

  say(text) {
    for (const status of this.statuses) status.textContent = text;
    window.clearTimeout(this.timer);
    this.timer = window.setTimeout(() => {
      for (const status of this.statuses) status.textContent = "";
    }, 4000);
  }
}

/** The old way to copy, which plain-http pages still allow: select a text field, copy. */
function copyWithSelection(text) {
  const field = document.createElement("textarea");
  field.value = text;
  field.setAttribute("readonly", "");
  field.style.position = "fixed";
  field.style.opacity = "0";
  document.body.append(field);
  field.select();
  let copied = false;
  try {
    copied = document.execCommand("copy");
  } catch {
    copied = false;
  }
  field.remove();
  return copied;
}
