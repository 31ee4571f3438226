// Messages across the top of the room page: server errors in words, and passing news.

import { h } from "../lib/dom.js";
import { gettext } from "../lib/i18n.js";
import { capitalise } from "../lib/api.js";

export class Notices {
  constructor(container) {
    this.container = container;
    this.byKey = new Map();
  }

  /** Show `message`; `kind` is error or info. A notice with the same key replaces the last. */
  show(message, { kind = "error", key = message, timeout = 8000 } = {}) {
    this.dismiss(key);
    const text = capitalise(message);
    const close = h("button", { type: "button", class: "notice-close", "aria-label": gettext("Dismiss"), text: "✕" });
    const notice = h(
      "div",
      { class: `notice ${kind}`, role: kind === "error" ? "alert" : "status" },
      h("span", { class: "notice-icon", "aria-hidden": "true", text: kind === "error" ? "!" : "i" }),
      h("span", { class: "notice-text", text }),
      close,
    );
    close.addEventListener("click", () => this.dismiss(key));
    this.container.append(notice);
    const timer = timeout ? window.setTimeout(() => this.dismiss(key), timeout) : null;
    this.byKey.set(key, { notice, timer });
  }

  dismiss(key) {
    const entry = this.byKey.get(key);
    if (!entry) return;
    window.clearTimeout(entry.timer);
    entry.notice.remove();
    this.byKey.delete(key);
  }
}
