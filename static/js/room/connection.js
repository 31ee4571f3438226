// The connection state: a badge in the top bar (connected, connecting, reconnecting,
// disconnected) and, while reconnecting, a banner with the seconds until the next try and
// a button to try now.

const LABELS = {
  connecting: "Connecting…",
  open: "Connected",
  reconnecting: "Reconnecting…",
  closed: "Disconnected",
  idle: "Not connected",
};

export class ConnectionBadge {
  constructor(badge, banner, { onRetry }) {
    this.badge = badge;
    this.text = badge.querySelector(".connection-text");
    this.banner = banner;
    // Seconds to the next try: shown, but outside any live region (no announcement a second).
    this.when = banner.querySelector(".connection-when");
    this.status = null;
    this.retryAt = null;
    banner.querySelector(".connection-retry").addEventListener("click", () => onRetry());
    window.setInterval(() => this.tick(), 1000);
  }

  render(connection) {
    this.status = connection.status;
    this.retryAt = connection.retryAt || null;
    this.badge.dataset.status = connection.status;
    this.banner.hidden = connection.status !== "reconnecting";
    this.tick();
  }

  tick() {
    const label = LABELS[this.status] || "";
    if (this.text.textContent !== label) this.text.textContent = label;
    let when = "";
    if (this.status === "reconnecting" && this.retryAt) {
      const seconds = Math.ceil((this.retryAt - Date.now()) / 1000);
      if (seconds > 1) when = ` in ${seconds} s`;
    }
    if (this.when.textContent !== when) this.when.textContent = when;
  }
}
