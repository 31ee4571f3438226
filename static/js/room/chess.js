// Chess-clock rounds (docs/api.md, "Chess clock"): the players take turns, each against
// their own clock; only the player whose turn it is may enter a word. The server keeps the
// clocks and sends them with every move (`chess.turn`, and the round's `chess`); here they
// tick by the server's clock. The phones (ChessView, in play.js) show every clock, whose
// turn it is, "Your turn" and the host's Skip for a player who is away; the table screen
// shows the clocks big (table/chess.js). Both draw them with ChessClocks.

import { announce, h } from "../lib/dom.js";
import { gettext } from "../lib/i18n.js";
import { clockText } from "./format.js";
import { URGENT_SECONDS } from "./timer-view.js";
// How many of the latest words played the phone lists under the clocks.
const LATEST_PLAYED = 4;
// How long the "Wait for your turn" nudge shows.
const NUDGE_MS = 1500;

/** Whether a round dict is of a chess-clock round. */
export function isChess(round) {
  return Boolean(round && round.mode === "chess");
}

/** Each player's clock at `now` (the server's time): [{id, left, running, out}] in turn
 * order; the running one counts down from when its turn started. */
function clocksAt(chess, now) {
  return (chess.players || []).map((entry) => {
    const running = entry.id === chess.turn;
    const left = running ? Math.max(0, entry.left_ms - Math.max(0, now - chess.turn_started_at)) : entry.left_ms;
    return { id: entry.id, left, running, out: entry.out };
  });
}

/** Whether it is `playerId`'s turn at `now`, their clock not yet run out. */
function isTurnOf(chess, playerId, now) {
  if (!chess || chess.turn === null || chess.turn !== playerId) return false;
  return chess.flag_at === null || now < chess.flag_at;
}

/** One line on whose turn it is, from `you`'s side (null: a watcher). */
export function turnText(chess, you, nickname) {
  if (!chess.players.length) return gettext("Drawing the turn order…");
  if (chess.winner !== null) {
    return chess.winner === you ? gettext("You win: the last one with time left!") : gettext("%(nickname)s wins!", { nickname: nickname(chess.winner) });
  }
  if (chess.turn === null) return gettext("The clocks are stopped.");
  if (chess.turn === you) return gettext("Your turn!");
  return gettext("%(nickname)s's turn", { nickname: nickname(chess.turn) });
}

/** What the results say of a chess round: who won (you, for `you`), or that the host
 * stopped the clocks first. */
export function chessOutcomeText(results, nickname, you = null) {
  const chess = results && results.round && results.round.chess;
  if (!chess) return "";
  if (chess.winner === null) return gettext("The clocks were stopped before one player was left.");
  if (chess.winner === you) return gettext("You won: the last one with time left.");
  return gettext("%(nickname)s won: the last one with time left.", { nickname: nickname(chess.winner) });
}

/** The round's timer (its `timer`, `label` and `value` elements) shows the running clock,
 * `whose(id)` naming it ("Your clock", "Bob's clock"); urgent in its last seconds. */
export function showRunningClock({ timer, label, value }, chess, now, whose) {
  const running = clocksAt(chess, now).find((clock) => clock.running);
  const labelText = running ? whose(running.id) : gettext("Clocks");
  const valueText = running ? clockText(running.left) : "–:––";
  if (label.textContent !== labelText) label.textContent = labelText;
  if (value.textContent !== valueText) value.textContent = valueText;
  timer.classList.toggle("urgent", Boolean(running) && running.left <= URGENT_SECONDS * 1000);
  return running || null;
}

/** The players' clocks as a list: name, time left, the running one marked (text and
 * colour), the players out struck through and labelled. `skippable(id)`: whether to offer
 * the host's Skip beside that player. */
export class ChessClocks {
  constructor({ className = "", label = gettext("Clocks"), onSkip = null } = {}) {
    this.onSkip = onSkip;
    this.element = h("ol", { class: `chess-clocks ${className}`.trim(), "aria-label": label });
    this.key = null;
    this.values = new Map();
  }

  /** Draw `chess` at `now`: the list is rebuilt when who plays, who is out or who may be
   * skipped changes; the times, every tick. */
  render(chess, now, { you = null, nickname, skippable = () => false }) {
    const clocks = clocksAt(chess, now);
    const key = JSON.stringify([clocks.map((clock) => [clock.id, clock.running, clock.out, skippable(clock.id)]), you]);
    if (key !== this.key) {
      this.key = key;
      this.values.clear();
      this.element.replaceChildren(...clocks.map((clock) => this.item(clock, you, nickname, skippable(clock.id))));
    }
    for (const clock of clocks) {
      const value = this.values.get(clock.id);
      const text = clockText(clock.left);
      if (value && value.textContent !== text) value.textContent = text;
      const item = value && value.closest("li");
      if (item) item.classList.toggle("urgent", clock.running && clock.left <= URGENT_SECONDS * 1000);
    }
  }

  item(clock, you, nickname, skippable) {
    const value = h("span", { class: "chess-time", text: clockText(clock.left) });
    this.values.set(clock.id, value);
    const state = clock.out ? gettext("out") : clock.running ? gettext("playing") : "";
    const name = clock.id === you ? gettext("%(nickname)s (you)", { nickname: nickname(clock.id) }) : nickname(clock.id);
    const skip =
      skippable && this.onSkip
        ? h("button", {
            type: "button",
            class: "button small chess-skip",
            text: gettext("Skip"),
            "aria-label": gettext("Skip %(nickname)s", { nickname: nickname(clock.id) }),
            on: {
              click: (event) => {
                event.currentTarget.disabled = true;
                this.onSkip(clock.id);
              },
            },
          })
        : null;
    return h(
      "li",
      {
        class: `chess-clock${clock.running ? " running" : ""}${clock.out ? " out" : ""}${clock.id === you ? " mine" : ""}`,
        dataset: { player: clock.id },
        "aria-current": clock.running ? "true" : null,
      },
      h("span", { class: "chess-mark", "aria-hidden": "true", text: clock.out ? "✗" : clock.running ? "▶" : "" }),
      clock.out ? h("s", { class: "chess-name", text: name }) : h("span", { class: "chess-name", text: name }),
      value,
      // "playing" for screen readers (the sign and the frame show it); "out" for everyone.
      state ? h("span", { class: clock.out ? "chess-state" : "visually-hidden", text: state }) : null,
      skip,
    );
  }
}

/**
 * A chess round on a phone, between the round's bar and the board: whose turn it is (big
 * on your turn, with a tone and a buzz), every clock, the latest words played. The round
 * bar's timer shows the running clock. The word field opens on your turn only (play.js
 * asks `accepts`); a swipe on the board while you wait says so.
 */
export class ChessView {
  constructor({ board, before, timer, entry }, { store, clock, feedback = null, onSkip = () => {} }) {
    this.store = store;
    this.clock = clock;
    this.feedback = feedback;
    this.timer = timer;
    this.entry = entry;
    this.placeholder = entry.placeholder;
    this.turnLine = h("p", { class: "chess-turn", id: "chess-turn" });
    this.clocks = new ChessClocks({ onSkip });
    this.played = h("p", { class: "chess-played hint" });
    this.element = h(
      "section",
      { class: "chess-panel", id: "chess-panel", "aria-labelledby": "chess-turn", hidden: true },
      this.turnLine,
      this.clocks.element,
      this.played,
    );
    before.before(this.element);
    this.spoken = null;
    this.ticked = null;
    board.addEventListener("pointerdown", () => this.nudge(), { capture: true });
  }

  get chess() {
    const round = this.store.round;
    return isChess(round) && round.status === "running" ? round.chess : null;
  }

  /** Whether this player may enter a word at `now`. */
  accepts(now) {
    return isTurnOf(this.chess, this.store.you, now);
  }

  nickname(id) {
    return this.store.nickname(id);
  }

  /** Away: offline, or no longer in the room (the host may skip them). */
  away(id) {
    const player = this.store.player(id);
    return !player || !player.online;
  }

  render() {
    const chess = this.chess;
    this.element.hidden = !chess;
    if (!chess) {
      if (this.entry.placeholder !== this.placeholder) this.entry.placeholder = this.placeholder;
      return;
    }
    this.played.textContent = this.playedText(chess);
    this.played.hidden = !chess.played.length;
    this.speak(chess);
  }

  playedText(chess) {
    const latest = chess.played.slice(-LATEST_PLAYED).reverse();
    const words = latest.map((entry) => `${entry.word.toUpperCase()} (${this.nickname(entry.player_id)})`);
    return gettext("Played: %(words)s", { words: words.join(" · ") });
  }

  /** Say whose turn it is when it changes, and who went out; a tone on your turn. */
  speak(chess) {
    const key = JSON.stringify([chess.turn, chess.out, chess.winner, chess.players.length]);
    if (key === this.spoken) return;
    const first = this.spoken === null;
    this.spoken = key;
    if (!chess.players.length) return;
    const move = this.store.chessMove;
    const parts = [];
    if (move && move.reason === "flag") parts.push(gettext("%(nickname)s ran out of time.", { nickname: this.nickname(move.player_id) }));
    if (move && move.reason === "skip") parts.push(gettext("The host skipped %(nickname)s.", { nickname: this.nickname(move.player_id) }));
    parts.push(turnText(chess, this.store.you, (id) => this.nickname(id)));
    announce(parts.join(" "));
    if (!first && chess.turn === this.store.you) this.feedback?.yourTurn();
  }

  /** Several times a second: the clocks, the turn line, the round bar's timer. */
  tick(now) {
    const chess = this.chess;
    if (!chess) return;
    const you = this.store.you;
    const isHost = this.store.isHost;
    this.clocks.render(chess, now, {
      you,
      nickname: (id) => this.nickname(id),
      skippable: (id) => isHost && id === chess.turn && this.away(id),
    });
    const mine = isTurnOf(chess, you, now);
    const line = turnText(chess, you, (id) => this.nickname(id));
    if (this.turnLine.textContent !== line && !this.turnLine.classList.contains("nudge")) this.turnLine.textContent = line;
    this.turnLine.classList.toggle("mine", mine);
    // Out, or joined during the game: watching; in the game: waiting for your turn.
    const playing = chess.players.some((entry) => entry.id === you && !entry.out);
    let placeholder = this.placeholder;
    if (chess.players.length && !playing) placeholder = gettext("You watch this game");
    else if (chess.players.length && !mine) placeholder = gettext("Wait for your turn");
    if (this.entry.placeholder !== placeholder) this.entry.placeholder = placeholder;
    const whose = (id) => (id === you ? gettext("Your clock") : gettext("%(nickname)s's clock", { nickname: this.nickname(id) }));
    // Until the clocks start, the round's timer counts the countdown down.
    const running = chess.players.length ? showRunningClock(this.timer, chess, now, whose) : null;
    // The last ten seconds of your clock, one tick each (as the round's timer does).
    const seconds = running ? Math.ceil(running.left / 1000) : null;
    if (mine && seconds !== null && seconds >= 1 && seconds <= URGENT_SECONDS && this.ticked !== seconds) {
      this.feedback?.secondsLeft(seconds);
      this.ticked = seconds;
    }
  }

  /** A swipe or tap on the board while another player plays: say why nothing happens. */
  nudge() {
    const chess = this.chess;
    if (!chess || !chess.players.length || this.accepts(this.clock.now())) return;
    if (!chess.players.some((entry) => entry.id === this.store.you && !entry.out)) return;
    const line = this.turnLine;
    line.textContent = gettext("Wait for your turn: %(turn)s", { turn: turnText(chess, this.store.you, (id) => this.nickname(id)) });
    line.classList.add("nudge");
    announce(gettext("Wait for your turn."));
    window.clearTimeout(this.nudged);
    this.nudged = window.setTimeout(() => line.classList.remove("nudge"), NUDGE_MS);
  }
}
