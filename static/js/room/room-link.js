// A page's live link to its room, the same for the player's room page (room/main.js) and
// the table screen (table/main.js): one RoomSocket (socket.js) at a time, the server's
// clock estimated from its pongs (clock.js), and the store kept in step with the room: a
// state replaces the store's, each event is applied to it, and whatever says an event was
// missed (a gap in the versions, a pong ahead of the page, a round's results overdue)
// brings a fresh state (sync). After a round's end it asks for the whole results (the
// event brings the scores first). What each page does with its own messages stays with it.

import { RoomSocket } from "./socket.js";

// Pings right after connecting, to estimate the clock offset from the best of several.
const FIRST_PINGS = 4;
const PING_SPACING_MS = 250;
// A round past its deadline with no results after this long: ask for a fresh state.
const RESULTS_OVERDUE_MS = 3000;
// How long a pong's newer version may wait for its event before the page syncs.
const VERSION_GRACE_MS = 1000;
// How often the page looks for a round whose results are overdue.
const OVERDUE_CHECK_MS = 1000;
// The whole results asked for after `round.ended`: without an answer this long, a sync.
const RESULTS_WAIT_MS = 5000;

// Room events that carry no version (whole snapshots: the newest wins, a missed one is
// replaced by the next).
const UNVERSIONED_EVENTS = new Set(["round.counts"]);

function ping() {
  return { type: "ping", client_time: Date.now() };
}

export class RoomLink {
  /**
   * `path`: the room's websocket (/ws/rooms/<code>/, or /ws/rooms/<code>/watch/ for a
   * spectator). `handlers`: the page's own messages by type, each handler given the
   * message; a message of another type that carries a version (or is `round.counts`) is a
   * room event. After the
   * store has taken them: `onState(state)` a state, `onEvent(event)` an event,
   * `onStatus(status, detail)` the socket's status (socket.js). `pingEveryMs`: a ping this
   * often besides the socket's own (they go only when the room is quiet); none if null.
   */
  constructor(path, { store, clock, handlers = {}, onState = () => {}, onEvent = () => {}, onStatus = () => {}, pingEveryMs = null }) {
    this.path = path;
    this.store = store;
    this.clock = clock;
    this.handlers = handlers;
    this.onState = onState;
    this.onEvent = onEvent;
    this.onStatus = onStatus;
    this.socket = null;
    this.lastSyncAt = 0;
    window.setInterval(() => this.checkOverdue(), OVERDUE_CHECK_MS);
    if (pingEveryMs) window.setInterval(() => this.send(ping()), pingEveryMs);
  }

  connect() {
    if (this.socket) return;
    const scheme = window.location.protocol === "https:" ? "wss" : "ws";
    this.socket = new RoomSocket(`${scheme}://${window.location.host}${this.path}`, {
      onOpen: () => {},
      onMessage: (message) => this.receive(message),
      onStatus: (status, detail) => this.statusChanged(status, detail),
      makePing: ping,
    });
    this.socket.connect();
  }

  /** Close the socket for good; connect() opens a new one. */
  stop() {
    if (!this.socket) return;
    this.socket.stop();
    this.socket = null;
  }

  /** Reconnect at once if waiting to (the user asked). */
  retryNow() {
    if (this.socket) this.socket.retryNow();
  }

  /** False when the message could not go (no open socket). */
  send(message) {
    return Boolean(this.socket && this.socket.send(message));
  }

  requestSync() {
    this.lastSyncAt = Date.now();
    this.send({ type: "sync" });
  }

  receive(message) {
    const { store, clock } = this;
    clock.roughSample(message.server_time);
    const handler = Object.hasOwn(this.handlers, message.type) ? this.handlers[message.type] : null;
    if (message.type === "state") {
      store.replace(message.state);
      this.socket.markHealthy();
      this.onState(message.state);
    } else if (message.type === "results") {
      store.completeResults(message.results);
    } else if (message.type === "pong") {
      clock.sample(message.client_time, message.server_time);
      this.checkVersion(message.version);
    } else if (handler) {
      handler(message);
      // A verdict may bring the room's newest live counts with it (docs/api.md).
      if (message.counts_event) this.receive(message.counts_event);
    } else if (typeof message.version === "number" || UNVERSIONED_EVENTS.has(message.type)) {
      if (store.applyEvent(message) === "gap") this.requestSync();
      if (message.type === "round.ended") this.askResults(message.scores.round.number);
      this.onEvent(message);
    }
  }

  /** The rest of a round's results (everyone's words, the solution) after its scores came
   * with `round.ended`; should no answer come (a dropped socket, a refusal), a sync brings
   * them in the state. */
  askResults(number) {
    this.send({ type: "results", round_number: number });
    window.setTimeout(() => {
      if (this.store.awaitsResults(number)) this.requestSync();
    }, RESULTS_WAIT_MS);
  }

  statusChanged(status, detail) {
    this.store.setConnection(status, detail);
    if (status === "open") {
      for (let i = 0; i < FIRST_PINGS; i += 1) {
        window.setTimeout(() => this.send(ping()), i * PING_SPACING_MS);
      }
    }
    this.onStatus(status, detail);
  }

  /** A pong says the room is at `version`: if this page is still behind a moment later (an
   * event may be on its way), it missed one, perhaps the last (a round's end): sync. */
  checkVersion(version) {
    if (typeof version !== "number" || version <= this.store.version) return;
    window.setTimeout(() => {
      if (this.store.version < version) this.requestSync();
    }, VERSION_GRACE_MS);
  }

  /** A round past its deadline whose results have not come: the event may have been lost. */
  checkOverdue() {
    const round = this.store.round;
    if (!round || round.status !== "running" || round.ends_at === null) return;
    const late = this.clock.now() - round.ends_at;
    if (late > RESULTS_OVERDUE_MS && Date.now() - this.lastSyncAt > RESULTS_OVERDUE_MS) this.requestSync();
  }
}
