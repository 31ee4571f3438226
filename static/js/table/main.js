// The table screen: a big read-only view of a room for a TV or a laptop in the middle of
// the table. It joins nobody: it watches the room over the spectators' websocket
// (/ws/rooms/<code>/watch/, docs/api.md "Table screen (spectators)") and shows the join
// QR code in the lobby, the board and the timer (by the server's clock) with everyone's
// live word counts during a round, and the results when it ends.

import { $, announce, h } from "../lib/dom.js";
import { gettext, ngettext } from "../lib/i18n.js";
import { BoardView } from "../room/board.js";
import { ServerClock } from "../room/clock.js";
import { ConnectionBadge } from "../room/connection.js";
import { Feedback } from "../room/feedback.js";
import { durationText, playersText, pointsText, roundInGame } from "../room/format.js";
import { namesText, waitingCheck } from "../room/ready-check.js";
import { ReactionToasts } from "../room/reactions.js";
import { RoomLink } from "../room/room-link.js";
import { joinLink, qrSvg } from "../room/share.js";
import { RoomStore } from "../room/store.js";
import { isCoop, TeamBar, teamLine } from "../room/team.js";
import { isTeams, teamGroups, teamMark, teamOf } from "../room/teams.js";
import { roundClock } from "../room/timer.js";
import { TimerView } from "../room/timer-view.js";
import { themeLine } from "../room/word-theme.js";
import { TableResults } from "./results.js";
import { LyingFlat } from "./lying-flat.js";
import { TableChess } from "./chess.js";
import { Moments } from "./moments.js";

// Besides the pings of any page (room-link.js), one this often keeps the clock fresh.
const PING_EVERY_MS = 30000;

const root = $("#table");
const code = root.dataset.code;
const store = new RoomStore(JSON.parse($("#room-state").textContent));
const clock = new ServerClock();
const board = new BoardView($("#table-board"), { label: gettext("Board") });
const timer = new TimerView({
  timer: $("#table-timer"),
  label: $("#table-timer-label"),
  value: $("#table-timer-value"),
  bar: $("#table-timebar-fill"),
});
const badge = new ConnectionBadge($("#table-connection"), null, { labels: { open: gettext("Watching") } });
const results = new TableResults($("#table-results"), store);
// Table play: the sound switch (shared with the room pages of this browser), the letters
// turned every way for a screen lying flat, and the round's moments (first word, lead, long words).
const soundToggle = h("button", { type: "button", class: "button icon subtle sound-toggle", "aria-label": gettext("Mute the sounds") });
const feedback = new Feedback(soundToggle);
const flat = new LyingFlat(board);
const moments = new Moments({ store, root, feedback });
const controls = h("div", { class: "table-controls" }, flat.element, soundToggle);
// A co-op round: the team's progress, big, above everyone's counts.
const teamBar = new TeamBar({ className: "table-team-bar" });
const teamBox = h(
  "section",
  { class: "table-team", id: "table-team", "aria-labelledby": "table-team-title", hidden: true },
  h("h2", { class: "table-counts-title", id: "table-team-title", text: gettext("Team") }),
  h("p", { class: "table-team-line", id: "table-team-line" }),
  teamBar.element,
);
$(".table-counts-title").before(teamBox);
// A teams round: each team's words so far and its total over the game, above the players.
const teamsBox = h(
  "section",
  { class: "table-teams", id: "table-teams", "aria-labelledby": "table-teams-title", hidden: true },
  h("h2", { class: "table-counts-title", id: "table-teams-title", text: gettext("Teams") }),
  h("ol", { class: "table-team-counts", id: "table-team-counts" }),
);
teamBox.before(teamsBox);
// A chess-clock round: whose turn it is and every clock, big, above the counts.
const tableChess = new TableChess(
  { before: teamsBox, timer: { timer: $("#table-timer"), label: $("#table-timer-label"), value: $("#table-timer-value") } },
  { store },
);
let gone = false;

// ------------------------------------------------------------------ the socket

function roomGone() {
  gone = true;
  render();
}

const reactionToasts = new ReactionToasts($("#reactions"), { nickname: (id) => store.nickname(id) });

const link = new RoomLink(`/ws/rooms/${code}/watch/`, {
  store,
  clock,
  pingEveryMs: PING_EVERY_MS,
  handlers: {
    error: (message) => {
      if (message.code === "room_not_found") roomGone();
    },
    reaction: (message) => reactionToasts.show(message), // room/reactions.js
  },
  onState: (state) => moments.reset(state),
  onEvent: (event) => {
    moments.event(event);
    if (event.type === "round.ready_check") {
      announce(gettext("Round %(number)s: waiting for everyone to be ready.", { number: roundInGame(event.round) }));
    }
    if (event.type === "round.started") announce(gettext("Round %(number)s starts in a few seconds.", { number: roundInGame(event.round) }));
    if (event.type === "round.ended") announce(gettext("Round %(number)s is over.", { number: roundInGame(event.scores.round) }));
  },
  onStatus: (status, detail) => {
    if (status === "closed" && detail.code === 4404) roomGone();
  },
});

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
  const item = (player) =>
    h(
      "li",
      { class: `table-player${player.online ? "" : " away"}` },
      player.nickname,
      player.is_host ? h("span", { class: "badge host", text: gettext("host") }) : null,
      player.online ? null : h("span", { class: "visually-hidden", text: gettext("offline") }),
    );
  const teams = teamGroups(state);
  // Teams mode: the players by team, each team with its mark.
  const items = teams
    ? [
        ...teams.groups.map((group) =>
          h(
            "li",
            { class: `table-team-group team-${group.team}`, dataset: { team: group.team } },
            teamMark(group.team),
            group.players.length
              ? h("ul", { class: "table-team-players" }, ...group.players.map(item))
              : h("span", { class: "table-team-empty", text: gettext("Nobody yet.") }),
          ),
        ),
        ...teams.loose.map(item),
      ]
    : state.players.map(item);
  $("#table-players").classList.toggle("by-team", Boolean(teams));
  $("#table-players").replaceChildren(...items);
}

function renderRound() {
  const round = store.round;
  board.showRound(round, roundClock(round, clock.now()).phase);
  $("#table-round-title").textContent = gettext("Round %(number)s", { number: roundInGame(round) });
  const parts = [gettext("%(count)s+ letters", { count: round.min_length }), gettext("Qu counts as 2")];
  // Teams: a word cancels between teams only (teammates who share it both score).
  if (round.cancel_duplicates) parts.push(isTeams(round) ? gettext("words shared between teams score 0") : gettext("shared words score 0"));
  if (isCoop(round)) parts.push(gettext("co-op: one team"));
  if (round.theme) parts.push(themeLine(round));
  $("#table-round-rules").textContent = parts.join(" · ");
  renderCounts();
  tick();
}

/** A co-op round's team: how many of the board's words, the goal, the bar. */
function renderTeam() {
  const team = isCoop(store.round) ? store.state.team : null;
  teamBox.hidden = !team;
  if (!team) return;
  const line = $("#table-team-line");
  line.textContent = teamLine(team);
  teamBar.render(team);
  line.classList.toggle("reached", teamBar.element.classList.contains("reached"));
}

/** Everyone's words so far (round.counts), most first; players without a word show 0. */
/** A teams round: each team's words so far (its players' counts) and total over the game. */
function renderTeams() {
  const teams = isTeams(store.round) ? teamGroups(store.state) : null;
  teamsBox.hidden = !teams;
  if (!teams) return;
  $("#table-team-counts").replaceChildren(
    ...teams.groups.map((group) =>
      h(
        "li",
        { class: `table-team-count team-${group.team}`, dataset: { team: group.team } },
        teamMark(group.team),
        h("span", { class: "table-team-words", text: ngettext("%(count)s word", "%(count)s words", group.words) }),
        h("span", { class: "table-team-total", text: gettext("total %(points)s", { points: pointsText(group.total_points) }) }),
      ),
    ),
  );
}

function renderCounts() {
  renderTeam();
  renderTeams();
  const counts = store.state.counts || {};
  const ids = new Set(store.state.players.map((player) => String(player.id)));
  for (const id of Object.keys(counts)) ids.add(id);
  const rows = [...ids]
    .map((id) => ({ id, nickname: store.nickname(Number(id)), count: counts[id] || 0, team: isTeams(store.round) ? teamOf(store.state, Number(id)) : null }))
    .sort((a, b) => b.count - a.count || a.nickname.localeCompare(b.nickname));
  const verdictsHidden = store.round && !store.round.instant_verdicts;
  $("#table-counts").replaceChildren(
    ...rows.map((row) =>
      h(
        "li",
        { class: "table-count", dataset: { player: row.id } },
        row.team ? teamMark(row.team, { short: true, className: "team-badge" }) : null,
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
  const { state, value } = timer.show(round, clock.now());
  tableChess.tick(clock.now());
  board.showRound(round, state.phase);
  flat.apply();
  const countdown = $("#table-countdown");
  countdown.hidden = !["countdown", "preparing", "over"].includes(state.phase);
  const check = state.phase === "preparing" ? waitingCheck(round) : null;
  countdown.classList.toggle("number", state.phase === "countdown");
  countdown.classList.toggle("ready-check", Boolean(check));
  if (check) {
    showReadyCheck(countdown, check);
    return;
  }
  let text = gettext("Time's up! Scoring…");
  if (state.phase === "countdown") text = value;
  else if (state.phase === "preparing") text = gettext("Shaking the dice…");
  else if (round.paper) text = gettext("Time's up! Type your lists in on your phones.");
  if (countdown.textContent !== text || countdown.dataset.key) {
    delete countdown.dataset.key;
    countdown.textContent = text;
  }
}

/** A ready check waiting for its players, over the face-down board: whom it waits for,
 * and who is ready. */
function showReadyCheck(countdown, check) {
  const names = (ids) => namesText(ids.map((id) => store.nickname(id)));
  const waiting = check.waiting || [];
  const ready = check.ready || [];
  const lines = [
    waiting.length ? gettext("Waiting for: %(names)s", { names: names(waiting) }) : gettext("Everyone is ready!"),
    ready.length ? gettext("Ready: %(names)s.", { names: names(ready) }) : "",
  ];
  const key = JSON.stringify(lines);
  if (countdown.dataset.key === key) return;
  countdown.dataset.key = key;
  // (Never a null: replaceChildren would write it as the text "null".)
  countdown.replaceChildren(
    h("span", { class: "table-ready-title", text: gettext("Ready?") }),
    h("span", { class: "table-ready-waiting", text: lines[0] }),
    ...(lines[1] ? [h("span", { class: "table-ready-done", text: lines[1] })] : []),
  );
}

/** The table play switches: beside the lobby's invitation, or under the round's counts. */
function placeControls(current) {
  const home = current === "lobby" ? $(".table-invite") : $(".table-side");
  if (home && controls.parentElement !== home) home.append(controls);
}

function render() {
  const current = phase();
  root.dataset.phase = current;
  $("#table-lobby").hidden = current !== "lobby";
  $("#table-round").hidden = current !== "round";
  $("#table-results").hidden = current !== "results";
  $("#table-gone").hidden = current !== "gone";
  placeControls(current);
  if (current === "lobby") renderLobby();
  if (current === "round") renderRound();
  if (current === "results") results.render();
}

store.subscribe((current, changed) => {
  if (changed.has("connection")) badge.render(current.connection);
  if (changed.size === 1 && changed.has("connection")) return;
  if ([...changed].every((part) => part === "counts" || part === "team") && phase() === "round") {
    renderCounts();
    return;
  }
  render();
});

// ------------------------------------------------------------------ start

const joinUrl = root.dataset.joinUrl || joinLink(code);
$("#table-qr").replaceChildren(qrSvg(joinUrl, gettext("QR code of the join link %(link)s", { link: joinUrl })));
for (const text of document.querySelectorAll(".join-link-text")) text.textContent = joinUrl;
moments.reset(store.state);
render();
badge.render(store.connection);
link.connect();
window.setInterval(tick, 200);
