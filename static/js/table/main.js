// The table screen: a big read-only view of a room for a TV or a laptop in the middle of
// the table. It joins nobody: it watches the room over the spectators' websocket
// (/ws/rooms/<code>/watch/, docs/api.md "Table screen (spectators)") and shows the join
// QR code in the lobby, the board and the timer (by the server's clock) with everyone's
// live word counts during a round, and the results when it ends.

import { $, announce, h } from "../lib/dom.js";
import { gettext, ngettext } from "../lib/i18n.js";
import { BoardView } from "../room/board.js";
import { ServerClock } from "../room/clock.js";
import { clockText, durationText, playersText, roundInGame } from "../room/format.js";
import { joinLink, qrSvg } from "../room/share.js";
import { RoomSocket } from "../room/socket.js";
import { RoomStore } from "../room/store.js";
import { fractionLeft, roundClock } from "../room/timer.js";
import { TableResults } from "./results.js";

// Pings right after connecting, to estimate the clock offset from the best of several,
// then one now and then to keep it fresh.
const FIRST_PINGS = 4;
const PING_SPACING_MS = 250;
const PING_EVERY_MS = 30000;
// A round past its deadline with no results after this long: ask for a fresh state.
const RESULTS_OVERDUE_MS = 3000;
// How long a pong's newer version may wait for its event before the page syncs.
const VERSION_GRACE_MS = 1000;
const URGENT_SECONDS = 10;
const CONNECTION_LABELS = {
  connecting: gettext("Connecting…"),
  open: gettext("Watching"),
  reconnecting: gettext("Reconnecting…"),
  offline: gettext("Offline"),
  closed: gettext("Disconnected"),
};

const root = $("#table");
const code = root.dataset.code;
const store = new RoomStore(JSON.parse($("#room-state").textContent));
const clock = new ServerClock();
const board = new BoardView($("#table-board"), { label: gettext("Board") });
const results = new TableResults($("#table-results"), store);
let socket = null;
let lastSyncAt = 0;
let gone = false;

// ------------------------------------------------------------------ the socket

function ping() {
  return { type: "ping", client_time: Date.now() };
}

function requestSync() {
  lastSyncAt = Date.now();
  if (socket) socket.send({ type: "sync" });
}

function checkVersion(version) {
  if (typeof version !== "number" || version <= store.version) return;
  window.setTimeout(() => {
    if (store.version < version) requestSync();
  }, VERSION_GRACE_MS);
}

function onMessage(message) {
  clock.roughSample(message.server_time);
  if (message.type === "state") {
    store.replace(message.state);
    socket.markHealthy();
  } else if (message.type === "pong") {
    clock.sample(message.client_time, message.server_time);
    checkVersion(message.version);
  } else if (message.type === "error") {
    if (message.code === "room_not_found") {
      gone = true;
      render();
    }
  } else if (typeof message.version === "number") {
    if (store.applyEvent(message) === "gap") requestSync();
    if (message.type === "round.started") announce(gettext("Round %(number)s starts in a few seconds.", { number: roundInGame(message.round) }));
    if (message.type === "round.ended") announce(gettext("Round %(number)s is over.", { number: roundInGame(message.results.round) }));
  }
}

function onStatus(status, detail) {
  store.setConnection(status, detail);
  if (status === "open") {
    for (let i = 0; i < FIRST_PINGS; i += 1) {
      window.setTimeout(() => socket && socket.send(ping()), i * PING_SPACING_MS);
    }
  }
  if (status === "closed" && detail.code === 4404) {
    gone = true;
    render();
  }
}

function connect() {
  const scheme = window.location.protocol === "https:" ? "wss" : "ws";
  socket = new RoomSocket(`${scheme}://${window.location.host}/ws/rooms/${code}/watch/`, {
    onOpen: () => {},
    onMessage,
    onStatus,
    makePing: ping,
  });
  socket.connect();
}

// ------------------------------------------------------------------ drawing

/** lobby (no round yet), round (preparing or running), results, or gone. */
function phase() {
  if (gone) return "gone";
  const round = store.round;
  if (!round) return "lobby";
  return round.status === "ended" ? "results" : "round";
}

function renderLobby() {
  const { state } = store;
  const host = store.player(state.host_id);
  const count = state.players.length;
  const size = state.settings.board_size.replace("x", "×");
  const rules = gettext("%(size)s board, %(duration)s rounds.", { size, duration: durationText(state.settings.round_seconds) });
  const waiting = host
    ? gettext("Waiting for %(nickname)s to start round 1.", { nickname: host.nickname })
    : gettext("Waiting for a host.");
  $("#table-lobby-text").textContent = gettext("%(players)s here. %(rules)s %(waiting)s", { players: playersText(count), rules, waiting });
  const items = state.players.map((player) =>
    h("li", { class: `table-player${player.online ? "" : " away"}` }, player.nickname, player.is_host ? h("span", { class: "badge host", text: gettext("host") }) : null),
  );
  $("#table-players").replaceChildren(...items);
}

function renderRound() {
  const round = store.round;
  board.showRound(round, roundClock(round, clock.now()).phase);
  $("#table-round-title").textContent = gettext("Round %(number)s", { number: roundInGame(round) });
  const parts = [gettext("%(count)s+ letters", { count: round.min_length }), gettext("Qu counts as 2")];
  if (round.cancel_duplicates) parts.push(gettext("shared words score 0"));
  $("#table-round-rules").textContent = parts.join(" · ");
  renderCounts();
  tick();
}

/** Everyone's words so far (round.counts), most first; players without a word show 0. */
function renderCounts() {
  const counts = store.state.counts || {};
  const ids = new Set(store.state.players.map((player) => String(player.id)));
  for (const id of Object.keys(counts)) ids.add(id);
  const rows = [...ids]
    .map((id) => ({ id, nickname: store.nickname(Number(id)), count: counts[id] || 0 }))
    .sort((a, b) => b.count - a.count || a.nickname.localeCompare(b.nickname));
  const verdictsHidden = store.round && !store.round.instant_verdicts;
  $("#table-counts").replaceChildren(
    ...rows.map((row) =>
      h(
        "li",
        { class: "table-count", dataset: { player: row.id } },
        h("span", { class: "table-count-name", text: row.nickname }),
        h("span", { class: "table-count-value", text: row.count, "aria-label": verdictsHidden
          ? ngettext("%(count)s entry", "%(count)s entries", row.count)
          : ngettext("%(count)s word", "%(count)s words", row.count) }),
      ),
    ),
  );
}

/** Several times a second: the timer and the countdown, by the server's clock. */
function tick() {
  const round = store.round;
  if (phase() !== "round" || !round) return;
  const now = clock.now();
  const state = roundClock(round, now);
  let label;
  let value;
  if (state.phase === "preparing") {
    label = gettext("Shaking the dice");
    value = "…";
  } else if (state.phase === "countdown") {
    label = gettext("Starts in");
    value = String(Math.ceil(state.left / 1000));
  } else if (state.phase === "playing" && state.left === null) {
    label = gettext("Untimed");
    value = clockText(state.elapsed);
  } else if (state.phase === "playing") {
    label = gettext("Time left");
    value = clockText(state.left);
  } else {
    label = gettext("Time's up");
    value = "0:00";
  }
  board.showRound(round, state.phase);
  const timer = $("#table-timer");
  if ($("#table-timer-label").textContent !== label) $("#table-timer-label").textContent = label;
  if ($("#table-timer-value").textContent !== value) $("#table-timer-value").textContent = value;
  timer.dataset.phase = state.phase;
  const seconds = state.left === null ? null : Math.ceil(state.left / 1000);
  timer.classList.toggle("urgent", state.phase === "playing" && seconds !== null && seconds <= URGENT_SECONDS);
  const fraction = state.phase === "countdown" || state.phase === "preparing" ? 1 : fractionLeft(round, now);
  const fill = $("#table-timebar-fill");
  fill.parentElement.hidden = fraction === null;
  if (fraction !== null) fill.style.transform = `scaleX(${fraction})`;
  const countdown = $("#table-countdown");
  countdown.hidden = !["countdown", "preparing", "over"].includes(state.phase);
  const text = state.phase === "countdown" ? value : state.phase === "preparing" ? gettext("Shaking the dice…") : gettext("Time's up! Scoring…");
  if (countdown.textContent !== text) countdown.textContent = text;
  countdown.classList.toggle("number", state.phase === "countdown");
}

function renderConnection() {
  const badge = $("#table-connection");
  badge.dataset.status = store.connection.status;
  const text = CONNECTION_LABELS[store.connection.status] || "";
  const label = $(".connection-text", badge);
  if (label.textContent !== text) label.textContent = text;
}

function render() {
  const current = phase();
  root.dataset.phase = current;
  $("#table-lobby").hidden = current !== "lobby";
  $("#table-round").hidden = current !== "round";
  $("#table-results").hidden = current !== "results";
  $("#table-gone").hidden = current !== "gone";
  if (current === "lobby") renderLobby();
  if (current === "round") renderRound();
  if (current === "results") results.render();
}

store.subscribe((current, changed) => {
  if (changed.has("connection")) renderConnection();
  if (changed.size === 1 && changed.has("connection")) return;
  if (changed.size === 1 && changed.has("counts") && phase() === "round") {
    renderCounts();
    return;
  }
  render();
});

// ------------------------------------------------------------------ start

const link = root.dataset.joinUrl || joinLink(code);
$("#table-qr").replaceChildren(qrSvg(link, gettext("QR code of the join link %(link)s", { link })));
for (const text of document.querySelectorAll(".join-link-text")) text.textContent = link;
render();
renderConnection();
connect();
window.setInterval(tick, 200);
window.setInterval(() => socket && socket.send(ping()), PING_EVERY_MS);
// A round past its deadline whose results have not come: the event may have been lost.
window.setInterval(() => {
  const round = store.round;
  if (!round || round.status !== "running" || round.ends_at === null) return;
  const late = clock.now() - round.ends_at;
  if (late > RESULTS_OVERDUE_MS && Date.now() - lastSyncAt > RESULTS_OVERDUE_MS) requestSync();
}, 1000);
