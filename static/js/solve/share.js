// A solved board's link (/solve/<board>/?dictionary=…), which opens the page on the same
// words: shown in a field, copied with one tap, or handed to the phone's share sheet.

import { gettext } from "../lib/i18n.js";
import { copyText } from "../room/share.js";

export class BoardLink {
  /** `el`: {input, copy, share, status}. */
  constructor(el) {
    this.el = el;
    el.share.hidden = typeof navigator.share !== "function";
    el.copy.addEventListener("click", () => this.copy());
    el.share.addEventListener("click", () => this.share());
    el.input.addEventListener("focus", () => el.input.select());
  }

  /** The link to show, from the page's own address (`path`, e.g. /solve/abcd/…/). */
  set(path) {
    this.el.input.value = `${window.location.origin}${path}`;
    this.say("");
  }

  async copy() {
    const copied = await copyText(this.el.input.value);
    this.say(copied ? gettext("Link copied ✓") : gettext("Could not copy: press and hold the link to copy it"));
  }

  async share() {
    try {
      await navigator.share({ title: gettext("Every word on this Boggle board"), url: this.el.input.value });
    } catch (failure) {
      if (failure && failure.name === "AbortError") return; // the sheet was closed
      await this.copy();
    }
  }

  say(text) {
    this.el.status.textContent = text;
  }
}
