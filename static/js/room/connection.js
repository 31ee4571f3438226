// The connection state: a badge in the top bar (connected, connecting, reconnecting,
// offline, disconnected) and a banner while the words cannot reach the server: while
// reconnecting, with the seconds until the next try and a button to try now; while the
// device is offline, saying that words typed meanwhile are kept and sent when it is back.
// The table screen shows the badge alone, with its own word for "open" (it watches).

import { gettext } from "../lib/i18n.js";

const LABELS = {
  connecting: gettext("Connecting…"),
  open: gettext("Connected"),
  reconnecting: gettext("Reconnecting…"),
  offline: gettext("Offline"),
  closed: gettext("Disconnected"),
  idle: gettext("Not connected"),
};
// Statuses that show the banner, each with its own text in the template (data-for).
const BANNER_STATUSES = new Set(["reconnecting", "offline"]);

export class ConnectionBadge {
  /** `banner`: null for the badge alone. `labels`: the page's own words for some statuses. */
  constructor(badge, banner, { onRetry = () => {}, labels = {} } = {}) {
    this.badge = badge;
    this.text = badge.querySelector(".connection-text");
    this.labels = { ...LABELS, ...labels };
    this.banner = banner;
    this.status = null;
    this.retryAt = null;
    if (!banner) return;
    this.bannerTexts = banner.querySelectorAll(".connection-banner-text[data-for]");
    this.retry = banner.querySelector(".connection-retry");
    // Seconds to the next try: shown, but outside any live region (no announcement a second).
    this.when = banner.querySelector(".connection-when");
    this.retry.addEventListener("click", () => onRetry());
    window.setInterval(() => this.tick(), 1000);
  }

  render(connection) {
    this.status = connection.status;
    this.retryAt = connection.retryAt || null;
    this.badge.dataset.status = connection.status;
    if (this.banner) {
      this.banner.dataset.status = connection.status;
      this.banner.hidden = !BANNER_STATUSES.has(connection.status);
      for (const text of this.bannerTexts) text.hidden = text.dataset.for !== connection.status;
      // Offline, a retry cannot help: the page tries by itself as soon as the network is back.
      this.retry.hidden = connection.status !== "reconnecting";
    }
    this.tick();
  }

  tick() {
    const label = this.labels[this.status] || "";
    if (this.text.textContent !== label) this.text.textContent = label;
    if (!this.banner) return;
    let when = "";
    if (this.status === "reconnecting" && this.retryAt) {
      const seconds = Math.ceil((this.retryAt - Date.now()) / 1000);
      if (seconds > 1) when = gettext(" in %(seconds)s s", { seconds });
    }
    if (this.when.textContent !== when) this.when.textContent = when;
  }
}
