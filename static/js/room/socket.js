// The room's websocket: connects, reconnects with backoff after a drop, notices a dead
// connection, and stops for good on the close codes that say "do not come back".

// Close codes after which reconnecting cannot help (docs/api.md, "Close codes").
const FINAL_CLOSE_CODES = new Set([1000, 4001, 4403, 4404]);
const FIRST_DELAY_MS = 1000;
const MAX_DELAY_MS = 30000;
// A ping this often; a connection that stays silent for DEAD_AFTER_MS is given up.
const HEARTBEAT_MS = 20000;
const DEAD_AFTER_MS = 45000;

/**
 * Status reported to `onStatus(status, detail)`: "connecting", "open",
 * "reconnecting" (detail.retryAt: ms timestamp), "closed" (detail.code: final close code).
 */
export class RoomSocket {
  constructor(url, { onOpen, onMessage, onStatus, makePing }) {
    this.url = url;
    this.onOpen = onOpen;
    this.onMessage = onMessage;
    this.onStatus = onStatus;
    this.makePing = makePing;
    this.ws = null;
    this.attempt = 0;
    this.retryTimer = null;
    this.heartbeat = null;
    this.lastHeard = 0;
    this.stopped = false;
    window.addEventListener("online", () => this.retryNow());
    document.addEventListener("visibilitychange", () => {
      if (document.visibilityState === "visible") this.checkAlive();
    });
  }

  connect() {
    if (this.stopped) return;
    window.clearTimeout(this.retryTimer);
    this.onStatus("connecting", {});
    let ws;
    try {
      ws = new WebSocket(this.url);
    } catch {
      this.scheduleRetry();
      return;
    }
    this.ws = ws;
    ws.addEventListener("open", () => {
      if (ws !== this.ws) return;
      this.lastHeard = Date.now();
      this.onStatus("open", {});
      this.startHeartbeat();
      this.onOpen();
    });
    ws.addEventListener("message", (event) => {
      if (ws !== this.ws) return;
      this.lastHeard = Date.now();
      let message;
      try {
        message = JSON.parse(event.data);
      } catch {
        return;
      }
      this.onMessage(message);
    });
    ws.addEventListener("close", (event) => {
      if (ws !== this.ws) return;
      this.ws = null;
      this.stopHeartbeat();
      if (FINAL_CLOSE_CODES.has(event.code)) {
        this.stopped = true;
        this.onStatus("closed", { code: event.code });
      } else {
        this.scheduleRetry();
      }
    });
  }

  /** A connection that works: the next drop starts the backoff from 1 s again. */
  markHealthy() {
    this.attempt = 0;
  }

  send(message) {
    if (!this.ws || this.ws.readyState !== WebSocket.OPEN) return false;
    this.ws.send(JSON.stringify(message));
    return true;
  }

  get isOpen() {
    return Boolean(this.ws && this.ws.readyState === WebSocket.OPEN);
  }

  /** Stop for good (after leaving, or when the page knows the room is gone). */
  stop() {
    this.stopped = true;
    window.clearTimeout(this.retryTimer);
    this.stopHeartbeat();
    if (this.ws) {
      const ws = this.ws;
      this.ws = null;
      ws.close();
    }
  }

  scheduleRetry() {
    if (this.stopped) return;
    // 1 s, 2 s, 4 s … 30 s, each with ±20 % jitter so a room's phones do not all come at once.
    const base = Math.min(MAX_DELAY_MS, FIRST_DELAY_MS * 2 ** this.attempt);
    const delay = Math.round(base * (0.8 + Math.random() * 0.4));
    this.attempt += 1;
    const retryAt = Date.now() + delay;
    this.onStatus("reconnecting", { retryAt });
    this.retryTimer = window.setTimeout(() => this.connect(), delay);
  }

  /** Reconnect at once if waiting to (the network came back, the user asked). */
  retryNow() {
    if (this.stopped || this.ws) return;
    window.clearTimeout(this.retryTimer);
    this.connect();
  }

  /** Phones freeze pages in the background: a socket may be dead without a close event. */
  checkAlive() {
    if (this.stopped) return;
    if (!this.ws) {
      this.retryNow();
      return;
    }
    if (this.isOpen) this.send(this.makePing());
    if (Date.now() - this.lastHeard > DEAD_AFTER_MS) this.dropDead();
  }

  dropDead() {
    const ws = this.ws;
    if (!ws) return;
    this.ws = null;
    this.stopHeartbeat();
    ws.close();
    this.scheduleRetry();
  }

  startHeartbeat() {
    this.stopHeartbeat();
    this.heartbeat = window.setInterval(() => {
      if (Date.now() - this.lastHeard > DEAD_AFTER_MS) this.dropDead();
      else this.send(this.makePing());
    }, HEARTBEAT_MS);
  }

  stopHeartbeat() {
    window.clearInterval(this.heartbeat);
    this.heartbeat = null;
  }
}
