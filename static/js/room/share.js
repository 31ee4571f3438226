// The join link: shown, copied with one tap, and drawn as a QR code for phones at the table.

import qrcode from "../../vendor/qrcode-generator/qrcode.mjs";
import { svg } from "../lib/dom.js";
import { gettext } from "../lib/i18n.js";

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
  constructor({ input, copyButtons, shareButtons = [], qrBoxes, linkTexts, statuses }, code) {
    this.input = input;
    this.statuses = statuses;
    this.code = code;
    const link = joinLink(code);
    input.value = link;
    for (const box of qrBoxes) box.replaceChildren(qrSvg(link, gettext("QR code of the join link %(link)s", { link })));
    for (const text of linkTexts) text.textContent = link;
    for (const button of copyButtons) button.addEventListener("click", () => this.copy());
    // The phone's own share sheet (messages, chat apps) where there is one; else copying.
    const canShare = typeof navigator.share === "function";
    for (const button of shareButtons) {
      button.hidden = !canShare;
      button.addEventListener("click", () => this.share());
    }
    if (canShare) {
      for (const button of copyButtons) if (button.closest(".invite-actions")) button.classList.add("subtle");
    }
    input.addEventListener("focus", () => input.select());
  }

  async share() {
    const url = this.input.value;
    try {
      await navigator.share({
        title: gettext("Boggle room %(code)s", { code: this.code }),
        text: gettext("Join my Boggle game, room %(code)s:", { code: this.code }),
        url,
      });
    } catch (failure) {
      // Closing the share sheet is no failure; anything else: copy the link instead.
      if (failure && failure.name === "AbortError") return;
      await this.copy();
    }
  }

  async copy() {
    const copied = await copyText(this.input.value);
    this.say(copied ? gettext("Link copied ✓") : gettext("Could not copy: press and hold the link to copy it"));
  }

  say(text) {
    for (const status of this.statuses) status.textContent = text;
    window.clearTimeout(this.timer);
    this.timer = window.setTimeout(() => {
      for (const status of this.statuses) status.textContent = "";
    }, 4000);
  }
}

/** Put `text` on the clipboard; whether that worked. */
export async function copyText(text) {
  try {
    // Only in secure contexts (https, localhost); a LAN address over plain http has none.
    await navigator.clipboard.writeText(text);
    return true;
  } catch {
    return copyWithSelection(text);
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
