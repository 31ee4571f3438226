// The room's websocket: connects, reconnects with backoff after a drop (at once when the
// server says it is restarting), notices a dead connection within seconds, waits quietly
// while the device is offline, and stops for good on the close codes that say "do not
// come back".

// The page never puts a secret in the socket's address: the browser's session cookie says
// who it is (docs/api.md, "Authentication"; a `?token=` is refused with 4400).
// Close codes after which reconnecting cannot help (docs/api.md, "Close codes").
const FINAL_CLOSE_CODES = new Set([1000, 4001, 4400, 4403, 4404]);
// "Service restart": the server is stopping and has handed this socket over; another
// server takes it now. Reconnect at once, each page after its own 0-250 ms, so that a whole
// room does not arrive in the same instant.
const SERVICE_RESTART = 1012;
const RESTART_JITTER_MS = 250;
const FIRST_DELAY_MS = 1000;
const MAX_DELAY_MS = 30000;
// The dead-socket check runs this often (no network traffic of its own).
const CHECK_EVERY_MS = 1000;
// After this long without a message from the server, a ping goes out (any message the
// server sends counts as heard, so a busy room sends no pings at all). Cheap: at most one
// ping per 5 s against a server limit of 8 messages a second.
const PING_AFTER_MS = 5000;
// Dead: nothing heard for this long, and a ping sent meanwhile has gone unanswered for
// PONG_WAIT_MS. A page whose timers were throttled or frozen (phones in the background)
// pings first and judges only after the answer had time to come.
const DEAD_AFTER_MS = 12000;
const PONG_WAIT_MS = 5000;
// A connection attempt that has not opened after this long is given up and retried.
const CONNECT_TIMEOUT_MS = 10000;
// While the browser says it is offline, no backoff: one quiet attempt this often (in case
// navigator.onLine is wrong, e.g. a laptop playing on its own loopback address), and an
// attempt at once when the `online` event comes.
const OFFLINE_PROBE_MS = 15000;

/** False only when the browser knows it has no network (navigator.onLine). */
function browserOnline() {
  return navigator.onLine !== false;
}

/**
 * Status reported to `onStatus(status, detail)`: "connecting", "open",
 * "reconnecting" (detail.retryAt: ms timestamp), "offline" (the device has no network;
 * nothing is sent until it is back), "closed" (detail.code: final close code).
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
    this.checker = null;
    this.startedAt = 0;
    this.lastHeard = 0;
    // When the ping now awaiting an answer left (null: none; any message clears it).
    this.pingSentAt = null;
    this.stopped = false;
    window.addEventListener("offline", () => this.goOffline());
    window.addEventListener("online", () => this.backOnline());
    document.addEventListener("visibilitychange", () => {
      if (document.visibilityState === "visible") this.checkAlive();
    });
  }

  connect() {
    if (this.stopped) return;
    window.clearTimeout(this.retryTimer);
    this.retryTimer = null;
    // Offline, an attempt is a quiet probe: the badge keeps saying "offline".
    if (browserOnline()) this.onStatus("connecting", {});
    let ws;
    try {
      ws = new WebSocket(this.url);
    } catch {
      this.scheduleRetry();
      return;
    }
    this.ws = ws;
    this.startedAt = Date.now();
    this.pingSentAt = null;
    this.startChecks();
    ws.addEventListener("open", () => {
      if (ws !== this.ws) return;
      this.lastHeard = Date.now();
      this.onStatus("open", {});
      this.onOpen();
    });
    ws.addEventListener("message", (event) => {
      if (ws !== this.ws) return;
      this.lastHeard = Date.now();
      this.pingSentAt = null;
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
      this.stopChecks();
      if (FINAL_CLOSE_CODES.has(event.code)) {
        this.stopped = true;
        this.onStatus("closed", { code: event.code });
      } else if (event.code === SERVICE_RESTART && browserOnline()) {
        this.reconnectSoon();
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
    this.stopChecks();
    this.abandon();
  }

  scheduleRetry() {
    if (this.stopped) return;
    window.clearTimeout(this.retryTimer);
    if (!browserOnline()) {
      // No backoff while offline: the `online` event brings the next real attempt.
      this.onStatus("offline", {});
      this.retryTimer = window.setTimeout(() => this.connect(), OFFLINE_PROBE_MS);
      return;
    }
    // 1 s, 2 s, 4 s … 30 s, each with ±20 % jitter so a room's phones do not all come at once.
    const base = Math.min(MAX_DELAY_MS, FIRST_DELAY_MS * 2 ** this.attempt);
    const delay = Math.round(base * (0.8 + Math.random() * 0.4));
    this.attempt += 1;
    const retryAt = Date.now() + delay;
    this.onStatus("reconnecting", { retryAt });
    this.retryTimer = window.setTimeout(() => this.connect(), delay);
  }

  /** The server restarts: no backoff (a failed try starts it from 1 s) and no banner, the
   * badge says "connecting"; the page resends its unanswered words once the state comes. */
  reconnectSoon() {
    window.clearTimeout(this.retryTimer);
    this.attempt = 0;
    this.onStatus("connecting", {});
    this.retryTimer = window.setTimeout(() => this.connect(), Math.random() * RESTART_JITTER_MS);
  }

  /** Reconnect at once if waiting to (the network came back, the user asked). */
  retryNow() {
    if (this.stopped || this.ws) return;
    window.clearTimeout(this.retryTimer);
    this.connect();
  }

  /** The browser lost its network: say so now, and drop the socket, which may still look
   * open (nothing gets through it; Chromium keeps it open, phones often do for a while). */
  goOffline() {
    if (this.stopped) return;
    this.stopChecks();
    this.abandon();
    this.scheduleRetry();
  }

  /** The network is back: a fresh connection at once, the backoff from the start. */
  backOnline() {
    if (this.stopped) return;
    this.attempt = 0;
    if (this.isOpen) {
      this.checkAlive();
      return;
    }
    // A socket still trying (e.g. a probe started while offline) is stale: start afresh.
    this.stopChecks();
    this.abandon();
    window.clearTimeout(this.retryTimer);
    this.connect();
  }

  /** Phones freeze pages in the background: a socket may be dead without a close event. */
  checkAlive() {
    if (this.stopped) return;
    if (!this.ws) {
      if (browserOnline()) this.retryNow();
      return;
    }
    this.check();
  }

  /** The dead-socket check: ping a quiet connection, give up a silent one. */
  check() {
    const ws = this.ws;
    if (!ws) return;
    const now = Date.now();
    if (ws.readyState === WebSocket.CONNECTING) {
      if (now - this.startedAt > CONNECT_TIMEOUT_MS) this.dropDead();
      return;
    }
    if (ws.readyState !== WebSocket.OPEN) return;
    const silence = now - this.lastHeard;
    if (this.pingSentAt !== null) {
      if (silence > DEAD_AFTER_MS && now - this.pingSentAt > PONG_WAIT_MS) this.dropDead();
    } else if (silence >= PING_AFTER_MS) {
      this.pingSentAt = now;
      this.send(this.makePing());
    }
  }

  dropDead() {
    if (!this.ws) return;
    this.stopChecks();
    this.abandon();
    this.scheduleRetry();
  }

  /** Forget the current socket (its late events are ignored) and close it. */
  abandon() {
    const ws = this.ws;
    if (!ws) return;
    this.ws = null;
    this.pingSentAt = null;
    try {
      ws.close();
    } catch {
      // Closing a socket that never opened can throw in old browsers; it is gone anyway.
    }
  }

  startChecks() {
    this.stopChecks();
    this.checker = window.setInterval(() => this.check(), CHECK_EVERY_MS);
  }

  stopChecks() {
    window.clearInterval(this.checker);
    this.checker = null;
  }
}
