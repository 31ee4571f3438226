// The room page: joins the room if needed, keeps one websocket open, feeds the store with
// what the server says, and sends what the player does. The views draw the store.

import { ApiError, capitalise, postJSON } from "../lib/api.js";
import { $, announce } from "../lib/dom.js";
import { gettext } from "../lib/i18n.js";
import { load, NICKNAME_KEY, save } from "../lib/storage.js";
import { ServerClock } from "./clock.js";
import { ConnectionBadge } from "./connection.js";
import { Feedback } from "./feedback.js";
import { durationText, playersText, roundInGame } from "./format.js";
import { Notices } from "./notices.js";
import { Outbox, newClientId } from "./outbox.js";
import { PhotoView } from "./photo.js";
import { PhotoSetView } from "./photo-set.js";
import { PlayView } from "./play.js";
import { PlayersView } from "./players.js";
import { recordRounds } from "./profile-record.js";
import { PHRASES, ReactionToasts } from "./reactions.js";
import { ReadyCheckView } from "./ready-check.js";
import { HistoryView } from "./history.js";
import { LetBackWatch } from "./let-back.js";
import { ResultsView } from "./results.js";
import { RoomLink } from "./room-link.js";
import { SettingsView } from "./settings.js";
import { StandingView } from "./standing.js";
import { ShareView } from "./share.js";
import { RoomStore } from "./store.js";
import { TeamView } from "./team.js";
import { TeamPicker } from "./team-picker.js";
import { teamsShown } from "./teams.js";
import { LockView, WaitingForHost, WaitingListView } from "./waiting-room.js";

// A rate-limited word is sent again after this long.
const RATE_LIMIT_RETRY_MS = 1500;

const root = $("#room");
const code = root.dataset.code;
const store = new RoomStore(JSON.parse($("#room-state").textContent));
const clock = new ServerClock();
const outbox = new Outbox(code);
const notices = new Notices($("#notices"));

// ------------------------------------------------------------------ sending

function send(message) {
  if (link.send(message)) return true;
  const text =
    store.connection.status === "offline"
      ? gettext("You're offline; try again when you're back online.")
      : gettext("Not connected right now; try again in a moment.");
  notices.show(text, { key: "offline" });
  return false;
}

function submitWord(word) {
  const round = store.round;
  if (!round || round.status !== "running") return;
  const entry = { client_id: newClientId(), word };
  outbox.add(round.number, entry);
  store.addPending(entry);
  sendEntry(entry);
}

function sendEntry(entry) {
  const sent = link.send({ type: "submit", word: entry.word, client_id: entry.client_id, request_id: entry.client_id });
  if (!sent) store.markWaiting(entry.client_id, true);
}

/** After (re)connecting: resend the words the server never answered, with their ids. */
function resendOutbox() {
  const round = store.round;
  const answered = new Set((store.state.my_words || []).map((word) => word.client_id));
  if (!round || round.status !== "running") {
    const lost = round ? outbox.pending(round.number).filter((entry) => !answered.has(entry.client_id)) : [];
    if (lost.length) {
      const words = lost.map((entry) => entry.word.toUpperCase()).join(", ");
      notices.show(gettext("The round ended before these words reached the server: %(words)s.", { words }), { timeout: 0, key: "lost" });
    }
    outbox.clear();
    return;
  }
  for (const entry of outbox.pending(round.number)) {
    if (answered.has(entry.client_id)) {
      outbox.ack(entry.client_id);
      continue;
    }
    if (!store.words.some((word) => word.client_id === entry.client_id)) store.addPending(entry);
    store.markWaiting(entry.client_id, false);
    sendEntry(entry);
  }
}

// ------------------------------------------------------------------ receiving

/** Why the host's start did not go (say, a teams room with everyone in one team), under
 * the start button that was pressed; "" hides it. */
function showStartError(text) {
  for (const element of [$("#start-error"), $("#next-error")]) {
    element.textContent = text;
    element.hidden = !text;
  }
}

function onRoomEvent(event) {
  if (["player.team", "settings.changed", "round.preparing", "round.started", "player.left"].includes(event.type)) showStartError("");
  if (event.type === "round.ended") {
    outbox.clear();
    announce(gettext("Round %(number)s is over. Here are the results.", { number: roundInGame(event.scores.round) }));
  } else if (event.type === "round.started") {
    announce(gettext("Round %(number)s starts in a few seconds.", { number: roundInGame(event.round) }));
  } else if (event.type === "round.ready_check") {
    announce(gettext("Round %(number)s: ready? It starts when everyone is ready.", { number: roundInGame(event.round) }));
  } else if (event.type === "player.joined" && event.player.id !== store.you) {
    announce(gettext("%(nickname)s joined.", { nickname: event.player.nickname }));
  } else if (event.type === "join.requested" && store.isHost) {
    announce(gettext("%(nickname)s asks to join.", { nickname: event.join_request.nickname }));
  } else if (event.type === "host.changed" && event.host_id === store.you) {
    notices.show(gettext("You are the host now."), { kind: "info", key: "host" });
  } else if (event.type === "challenge.opened" && event.challenge.player_id !== store.you) {
    const { nickname, word } = event.challenge;
    announce(gettext("%(nickname)s challenges %(word)s.", { nickname, word: word.toUpperCase() }));
  } else if (event.type === "challenge.ruled") {
    // Decided by the votes or by the host: everyone hears the outcome.
    const { word, status } = event.challenge;
    announce(
      status === "accepted"
        ? gettext("%(word)s accepted.", { word: word.toUpperCase() })
        : gettext("%(word)s declined.", { word: word.toUpperCase() }),
    );
  } else if (event.type === "game.ended") {
    announce(gettext("The game is over. Here is the final standing."));
  } else if (event.type === "game.started") {
    announce(gettext("The host started a new game. Scores start from zero."));
  } else if (event.type === "player.allowed_back" && store.isHost) {
    const back = store.nickname(event.player_id);
    announce(gettext("%(nickname)s may join again.", { nickname: back === gettext("someone") ? gettext("The player") : back }));
  } else if (event.type === "round.rescored") {
    announce(gettext("Round %(number)s was scored again.", { number: roundInGame(event.results.round) }));
  } else if (event.type.startsWith("board.")) {
    photoView.onEvent(event);
  }
}

function onOk(message) {
  if (message.request === "update_settings") settingsView.saved();
  if (message.request === "set_board") photoView.confirmed(message.board);
  if (message.request === "vote_challenge") resultsView.voted(message.challenge);
  if (message.request === "end_game") store.endGame(message.standing);
  if (message.request === "new_game") store.newGame(message.game);
  if (message.request === "challenge" || message.request === "rule_challenge" || message.request === "vote_challenge") {
    store.putChallenge(message.challenge);
  }
  if (message.request === "leave") {
    outbox.clear();
    window.location.assign("/");
  }
}

function onError(message) {
  const text = capitalise(message.message || gettext("Something went wrong."));
  if (message.request === "submit" && message.request_id) {
    const clientId = String(message.request_id);
    if (message.code === "rate_limited") {
      store.markWaiting(clientId, true);
      window.setTimeout(() => {
        const entry = outbox.entries.find((item) => item.client_id === clientId);
        if (entry) sendEntry(entry);
      }, RATE_LIMIT_RETRY_MS);
      return;
    }
    outbox.ack(clientId);
    store.refuse(clientId, text);
    return;
  }
  if (message.code === "room_not_found") {
    outbox.clear();
    store.setGone("room_not_found", text);
    return;
  }
  if (message.code === "not_a_player") {
    store.setGone("not_a_player", text);
    return;
  }
  if (message.request === "update_settings") settingsView.failed(text);
  if (message.request === "start_round") {
    // Under the button pressed, where the host looks (teams_incomplete: whom to move).
    showStartError(text);
    return;
  }
  if (["challenge", "rule_challenge", "vote_challenge"].includes(message.request)) resultsView.failed();
  if (message.request === "end_game") standingView.failed();
  if (message.request === "new_game") standingView.newGameFailed();
  if (message.request === "unkick") playersView.failedUnkick(store);
  if (message.request === "ready" || message.request === "force_start") readyView.failed(message.request);
  if (message.request === "lock_room") lockView.failed(store);
  if (message.request === "admit" || message.request === "refuse") waitingListView.failed(store);
  if (message.request === "set_board") {
    photoView.refused(text);
    return;
  }
  if (message.request === "hint") {
    playView.hints.failed(text);
    return;
  }
  notices.show(text, { key: `error:${message.request}` });
}

function onStatus(status) {
  if (status === "reconnecting" || status === "offline") {
    // Words sent but not answered before the drop wait too; resendOutbox sends them again.
    for (const word of store.words) {
      if (word.pending && !word.waiting) store.markWaiting(word.client_id, true);
    }
  }
}

const reactionToasts = new ReactionToasts($("#reactions"), { nickname: (id) => store.nickname(id) });
for (const button of document.querySelectorAll("#quick-phrases [data-phrase]")) {
  if (!Object.hasOwn(PHRASES, button.dataset.phrase)) continue;
  button.addEventListener("click", () => send({ type: "react", phrase: button.dataset.phrase }));
}

const link = new RoomLink(`/ws/rooms/${code}/`, {
  store,
  clock,
  handlers: {
    verdict: (message) => {
      outbox.ack(message.client_id);
      store.verdict(message);
    },
    my_word: (message) => store.myWord(message), // entered in another tab of this player
    reaction: (message) => reactionToasts.show(message), // reactions.js
    hint: (message) => playView.hints.shown(message), // practice rooms (hints.js)
    ok: onOk,
    error: onError,
    kicked: (message) => {
      outbox.clear();
      store.setGone("kicked", message.message);
      // Joining again is refused until the host lets this player back: watch for that.
      letBackWatch.start(store.you);
    },
    left: (message) => {
      // This player left the room, from this tab or another one.
      outbox.clear();
      store.setGone("left", message.message);
    },
  },
  onState: (state) => {
    photoView.restore(state.photo);
    resendOutbox();
  },
  onEvent: onRoomEvent,
  onStatus,
});

// ------------------------------------------------------------------ views

const badge = new ConnectionBadge($("#connection"), $("#connection-banner"), {
  onRetry: () => link.retryNow(),
});
const playersView = new PlayersView($("#players"), $("#player-count"), {
  onKick: (playerId) => send({ type: "kick", player_id: playerId }),
  onMakeHost: (playerId) => send({ type: "transfer_host", player_id: playerId }),
  onUnkick: (playerId) => send({ type: "unkick", player_id: playerId }),
  // Teams mode: my own team (no player_id), or the host moving someone.
  onChooseTeam: (team, playerId) => send(playerId === null ? { type: "choose_team", team } : { type: "choose_team", team, player_id: playerId }),
  onReport: (player, reason) => reportPlayer(player, reason),
});

/** A quick-play room: report a stranger to the staff (POST /api/rooms/<code>/report). */
async function reportPlayer(player, reason) {
  try {
    await postJSON(`/api/rooms/${code}/report`, { player_id: player.id, reason });
    notices.show(gettext("Thank you: %(nickname)s is reported to the staff.", { nickname: player.nickname }), { kind: "info", key: "report" });
  } catch (error) {
    notices.show(error instanceof ApiError ? error.message : gettext("Something went wrong. Please try again."), { key: "report" });
  }
}

// A quick-play room runs itself (games.autopilot): the lobby and the results say when
// its next round, or its final standing, comes.
window.setInterval(() => renderAutopilot(), 1000);

function renderAutopilot() {
  const autopilot = store.state.autopilot;
  const next = autopilot && autopilot.next_at;
  const text = next ? autopilotText(Math.max(0, Math.ceil((next - clock.now()) / 1000))) : "";
  for (const element of [$("#lobby-wait"), $("#next-wait")]) {
    if (!autopilot) continue;
    element.textContent = text || gettext("A game of %(rounds)s rounds with strangers: it runs by itself.", { rounds: autopilot.rounds });
    element.hidden = false;
  }
  $("#quick-again").hidden = !(store.state.public && store.state.standing);
}

function autopilotText(seconds) {
  const round = store.round;
  const played = round && round.status === "ended" ? roundInGame(round) : 0;
  if (played >= store.state.autopilot.rounds) return gettext("The final standing in %(seconds)s s.", { seconds });
  return gettext("Round %(number)s starts in %(seconds)s s.", { number: played + 1, seconds });
}
// Teams mode: the lobby's team buttons, in view at the top of a phone's lobby.
const teamPicker = new TeamPicker($("#lobby-teams"), { onChoose: (team) => send({ type: "choose_team", team }) });
const lockView = new LockView($("#room-lock"), { onLock: (locked) => send({ type: "lock_room", locked }) });
const waitingListView = new WaitingListView($("#waiting-requests"), {
  onAdmit: (id) => send({ type: "admit", join_request_id: id }),
  onRefuse: (id) => send({ type: "refuse", join_request_id: id }),
});
const waitingForHost = new WaitingForHost(code, {
  onWaiting: (request) => store.setJoinRequest(request),
  onAdmitted: (body) => enterRoom(body.room),
  onRefused: () => {
    store.joinRequest = null;
    store.setGone("refused", "");
  },
  onGone: (failure) => {
    store.setJoinRequest(null);
    if (failure && ["kicked", "room_not_found"].includes(failure.code)) store.setGone(failure.code, failure.message);
  },
});
const letBackWatch = new LetBackWatch(code, {
  onLetBack: () => {
    store.setGone("let_back", "");
    announce(gettext("The host let you back in. Join again to play on."));
  },
  onGone: (failure) => store.setGone("room_not_found", failure.message),
});
const settingsView = new SettingsView(
  { form: $("#settings-form"), summary: $("#settings-summary"), note: $("#settings-note"), status: $("#settings-status") },
  { onChange: (changes) => send({ type: "update_settings", settings: changes }) },
);
const photoSetView = new PhotoSetView({ box: $("#photo-set-settings"), summary: $("#settings-summary") }, {
  onChange: (changes) => {
    settingsView.say(gettext("Saving…"));
    send({ type: "update_settings", settings: changes });
  },
});
new ShareView(
  {
    input: $("#join-link"),
    copyButtons: document.querySelectorAll(".copy-link"),
    shareButtons: [$("#share-link")],
    qrBoxes: [$("#qr"), $("#qr-big")],
    linkTexts: document.querySelectorAll(".join-link-text"),
    statuses: document.querySelectorAll(".copy-status"),
  },
  code,
);
const feedback = new Feedback($("#sound-toggle"));
const playView = new PlayView(root, {
  code,
  store,
  clock,
  feedback,
  onSubmit: submitWord,
  onEndRound: () => send({ type: "end_round" }),
  onHint: () => send({ type: "hint" }),
  // Chess-clock rounds: the host puts out a player who is away (chess.js).
  onSkip: (playerId) => send({ type: "skip_player", player_id: playerId }),
});
// Co-op rounds: the team's progress and words, under the verdict or atop the side column.
const teamView = new TeamView({ narrow: $("#verdict"), wide: $("#game .side") }, { nickname: (id) => store.nickname(id) });
const readyView = new ReadyCheckView($("#play-panel .board-wrap"), {
  boardShown: (round) => playView.board.shows(round),
  onReady: (number) => send({ type: "ready", round_number: number, request_id: `ready-${number}` }),
  onForceStart: (number) => send({ type: "force_start", round_number: number, request_id: `force-start-${number}` }),
});
const resultsView = new ResultsView($("#results-panel"), {
  store,
  onNextRound: () => {
    showStartError("");
    return send({ type: "start_round" });
  },
  onChallenge: (word, roundNumber) => send({ type: "challenge", word, round_number: roundNumber }),
  onRule: (challengeId, accept) => send({ type: "rule_challenge", challenge_id: challengeId, accept }),
  onVote: (challengeId, accept) => send({ type: "vote_challenge", challenge_id: challengeId, accept }),
  onReact: (fields) => send({ type: "react", ...fields }),
});
const standingView = new StandingView($("#results-panel"), {
  store,
  onEndGame: () => send({ type: "end_game" }),
  onNewGame: () => send({ type: "new_game" }),
});
const historyView = new HistoryView($("#history-card"), { code });

const photoView = new PhotoView(
  {
    photoButton: $("#photo-button"),
    input: $("#photo-input"),
    typeButton: $("#type-board"),
    title: $("#photo-title"),
    next: $("#photo-next"),
    status: $("#photo-status"),
    error: $("#photo-error"),
    form: $("#photo-form"),
    note: $("#photo-note"),
    grid: $("#photo-grid"),
    hostNote: $("#photo-host-note"),
    useButton: $("#use-board"),
    cancel: $("#photo-cancel"),
    adjust: $("#photo-adjust"),
    place: $("#photo-place"),
    corners: $("#photo-corners"),
    learn: $("#photo-learn"),
    learnYes: $("#photo-learn-yes"),
  },
  {
    code,
    store,
    onUseBoard: (board) => send({ type: "set_board", board }),
    onLearn: () => send({ type: "update_settings", settings: { learn_photo_set: true } }),
  },
);

let shownPhase = null;
let shownRoundNumber = null;

/** A round is starting: whatever this player was reading or doing between rounds (a
 * meaning, the photo's grid or corners, far down the results) gives way to the board, in
 * view on every screen, so the first drag lands on it. */
function bringBoardIntoView() {
  for (const dialog of document.querySelectorAll("dialog[open]")) dialog.close();
  photoView.closeCorners({ restore: false });
  photoView.closeGrid();
  // A field of a card now hidden would keep a phone's keyboard up over the board.
  const focused = document.activeElement;
  if (focused instanceof HTMLElement && !$("#play-panel").contains(focused)) focused.blur();
  window.scrollTo({ top: 0, behavior: "instant" });
  const board = $("#play-panel .board-wrap");
  // Below a header or a host's waiting list on a short screen: as much board as fits.
  if (board.getBoundingClientRect().bottom > window.innerHeight) board.scrollIntoView({ block: "nearest", behavior: "instant" });
}

function renderPhase() {
  const phase = store.phase;
  root.dataset.phase = phase;
  $("#join-panel").hidden = phase !== "join";
  $("#waiting-panel").hidden = phase !== "waiting";
  $("#gone-panel").hidden = phase !== "gone";
  $("#game").hidden = !["lobby", "play", "results"].includes(phase);
  $("#lobby-panel").hidden = phase !== "lobby";
  $("#play-panel").hidden = phase !== "play";
  $("#results-panel").hidden = phase !== "results";
  // Once the game has ended no next board is needed, nor settings for a next round.
  $("#photo-card").hidden = !["lobby", "results"].includes(phase) || Boolean(store.state.standing);
  $("#settings-card").hidden = Boolean(store.state.standing);
  if (phase !== shownPhase) {
    const wide = window.matchMedia("(min-width: 60rem)").matches;
    // Between rounds the invitation and settings matter; during a round, the board does.
    $("#share-card").open = wide || phase === "lobby";
    $("#settings-card").open = wide ? phase !== "play" : phase === "lobby";
    if (phase === "results" || phase === "lobby") window.scrollTo({ top: 0 });
    // The results replace the board: take focus there, so keyboard and screen-reader
    // users start reading them from the top instead of from a control that is gone.
    if (phase === "results") $("#results-title").focus({ preventScroll: true });
    shownPhase = phase;
  }
}

function renderLobby() {
  const host = store.player(store.state.host_id);
  // A rematch (new_game) starts in this lobby: say it is a new game, from zero.
  const title = $("#lobby-title");
  title.dataset.firstText ||= title.textContent;
  title.textContent = (store.state.game || 1) > 1 ? title.dataset.newGameText : title.dataset.firstText;
  const startButton = $("#start-round");
  startButton.hidden = !store.isHost;
  $("#lobby-wait").hidden = store.isHost;
  $("#lobby-wait").textContent = host
    ? gettext("Waiting for %(nickname)s to start the round.", { nickname: host.nickname })
    : gettext("Waiting for a host.");
  const others = store.state.players.length - 1;
  // Teams mode: picking a team is what everyone does in the lobby (the buttons under it).
  const teams = teamsShown(store.state);
  $("#lobby-text").textContent = teams
    ? store.isHost
      ? gettext("Pick a team below; start when each team has players.")
      : gettext("Pick a team below, then wait for the host to start.")
    : others > 0
      ? gettext("%(players)s here. Start when everyone is in; late joiners can still play.", { players: playersText(others + 1) })
      : gettext("Share the link or the QR code: everyone plays on their own phone.");
}

function renderJoin() {
  const { state } = store;
  const host = store.player(state.host_id);
  const settings = state.settings;
  const size = settings.board_size.replace("x", "×");
  const rules = gettext("%(size)s board, %(duration)s rounds.", { size, duration: durationText(settings.round_seconds) });
  $("#join-summary").textContent = host ? gettext("%(nickname)s is hosting. %(rules)s", { nickname: host.nickname, rules }) : rules;
  const names = state.players.map((player) => player.nickname);
  $("#join-players").textContent = names.length ? gettext("Here already: %(names)s.", { names: names.join(", ") }) : gettext("Nobody is here yet.");
  // A link to a game that has ended: say so, and that the host's new game opens here.
  $("#join-game-over").hidden = !state.standing;
  // A locked room: the join is a request the host answers.
  const button = $("#join-submit");
  button.dataset.openText ||= button.textContent;
  button.textContent = state.locked ? button.dataset.lockedText : button.dataset.openText;
  $("#join-locked").hidden = !state.locked;
}

function renderWaiting() {
  $("#waiting-nickname").textContent = store.joinRequest.nickname;
  $("#waiting-status").textContent = gettext("The host sees your name and can let you in at any time, even during a round.");
}

// What the server says (in English, sent from another player's request) when this player
// was removed or left, in the page's language.
const GONE_TEXTS = {
  kicked: () => gettext("The host removed you from the room. Only the host can let you back in: this page tells you when they do."),
  let_back: () => gettext("Join again to play on, with your points so far."),
  left: () => gettext("You left the room"),
  refused: () => gettext("The host did not let you in. Ask them if you think that is a mistake."),
};

function renderGone() {
  const gone = store.gone;
  const titles = {
    kicked: gettext("You were removed from the room"),
    left: gettext("You left the room"),
    not_a_player: gettext("You are not in this room any more"),
    room_not_found: gettext("This room is gone"),
    refused: gettext("The host did not let you in"),
    let_back: gettext("The host let you back in"),
  };
  $("#gone-title").textContent = titles[gone.reason] || gettext("Disconnected");
  $("#gone-text").textContent =
    gone.reason === "room_not_found"
      ? gettext("Rooms are cleaned up after a day without players. Start a new one from the start page.")
      : GONE_TEXTS[gone.reason]?.() || capitalise(gone.message || "");
  // A removed player's join is refused until the host lets them back in (let_back).
  $("#rejoin").hidden = ["room_not_found", "refused", "kicked"].includes(gone.reason);
}

recordRounds(store, code);

store.subscribe((current, changed) => {
  if (changed.has("connection")) badge.render(current.connection);
  if (changed.size === 1 && changed.has("connection")) return;
  renderPhase();
  const phase = current.phase;
  // Quick phrases are for the others: none in a room of one (practice, the daily board),
  // nor among strangers (a quick-play room: the emoji only).
  $("#quick-phrases").hidden = (current.state.players || []).length < 2 || Boolean(current.state.public);
  if (phase === "join") renderJoin();
  if (phase === "waiting") renderWaiting();
  if (phase === "gone") renderGone();
  if (phase === "lobby") renderLobby();
  teamPicker.render(current);
  if (["lobby", "play", "results"].includes(phase)) {
    playersView.render(current);
    if (["all", "lock", "waiting", "host"].some((part) => changed.has(part))) {
      lockView.render(current);
      waitingListView.render(current);
    }
    if (changed.has("all") || changed.has("settings") || changed.has("host") || changed.has("round")) {
      settingsView.render(current);
    }
    // After the settings view: everyone else sees the set in the settings' summary.
    if (["all", "settings", "photo_set", "host", "round"].some((part) => changed.has(part))) photoSetView.render(current);
  }
  if (phase === "play") playView.render(current, changed);
  else feedback.letSleep();
  teamView.render(current);
  readyView.render(current);
  if (phase === "results") resultsView.render(current);
  if (["lobby", "play", "results"].includes(phase)) historyView.render(current);
  if (phase === "lobby" || phase === "results") photoView.render(current);
  // Each new round (also one whose results this page never showed, after a drop), once
  // the play view has drawn it.
  if (phase === "play" && current.round.number !== shownRoundNumber) bringBoardIntoView();
  shownRoundNumber = phase === "play" ? current.round.number : null;
  renderAutopilot(); // after the lobby and results: their waiting lines say the autopilot's time
});

// ------------------------------------------------------------------ joining and leaving

$("#join-form").addEventListener("submit", async (event) => {
  event.preventDefault();
  const input = $("#join-nickname");
  const error = $("#join-form-error");
  const nickname = input.value.trim();
  if (!nickname) {
    error.textContent = gettext("Pick a nickname first.");
    error.hidden = false;
    input.focus();
    return;
  }
  const button = event.target.querySelector("button[type=submit]");
  button.disabled = true;
  error.hidden = true;
  try {
    const body = await postJSON(`/api/rooms/${code}/join`, { nickname });
    save(NICKNAME_KEY, nickname);
    if (body.join_request) {
      // A locked room: wait here for the host's answer.
      store.gone = null;
      store.setJoinRequest(body.join_request);
      waitingForHost.start(body.join_request);
      $("#waiting-title").focus({ preventScroll: true });
    } else {
      enterRoom(body.room);
    }
  } catch (failure) {
    error.textContent = failure instanceof ApiError ? failure.message : gettext("Something went wrong. Please try again.");
    error.hidden = false;
    if (failure.code === "room_not_found") store.setGone("room_not_found", failure.message);
    if (failure.code === "join_refused") store.setGone("refused", failure.message);
  } finally {
    button.disabled = false;
  }
});

/** This device is a player now (joined, or let in by the host): show the room, connect. */
function enterRoom(room) {
  store.gone = null;
  store.joinRequest = null;
  store.replace(room);
  link.stop();
  link.connect();
}

$("#waiting-cancel").addEventListener("click", () => {
  waitingForHost.cancel();
  store.setJoinRequest(null);
});

$("#rejoin").addEventListener("click", () => {
  letBackWatch.stop();
  store.gone = null;
  // This page is no player now: it is not "here already" (a kicked player's list may
  // still have them, as the room's player.left did not reach a closed socket).
  const players = store.state.players.filter((player) => player.id !== store.you);
  store.replace({ ...store.state, players, you: null, my_words: [] });
  $("#join-nickname").focus();
});

$("#start-round").addEventListener("click", () => {
  showStartError("");
  send({ type: "start_round" });
});

$("#leave").addEventListener("click", () => {
  // A real confirm: leaving gives up this player (a later join makes a new one).
  if (window.confirm(gettext("Leave this room? Your points stay in the results already played."))) {
    send({ type: "leave" });
  }
});

// ------------------------------------------------------------------ start

$("#join-nickname").value = load(NICKNAME_KEY, "") || "";
// Words typed before a reload and never answered: show them at once, send them when connected.
if (store.round && store.round.status === "running") {
  const answered = new Set((store.state.my_words || []).map((word) => word.client_id));
  for (const entry of outbox.pending(store.round.number)) {
    if (!answered.has(entry.client_id)) {
      store.addPending(entry);
      store.markWaiting(entry.client_id, true);
    }
  }
}
store.notify("all");
badge.render(store.connection);
if (store.phase === "join") {
  badge.render({ status: "idle" });
  // A locked room this browser asked to join before (a reload): wait again, or learn the answer.
  if (store.state.join_request) waitingForHost.resume(store.state.join_request);
  if (!window.matchMedia("(hover: none)").matches) $("#join-nickname").focus();
} else {
  link.connect();
}
