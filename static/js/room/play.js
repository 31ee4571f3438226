// The round: the board, the timer by the server's clock, word entry (typing, dragging,
// tapping), each verdict at once with its reason, and your words so far.

import { $, announce, h, isTouchFirst } from "../lib/dom.js";
import { gettext, ngettext } from "../lib/i18n.js";
import { capitalise } from "../lib/api.js";
import { BoardInput } from "./board-input.js";
import { savedTurns, saveTurns } from "./board-turn.js";
import { BoardView } from "./board.js";
import { nextRoundText, pointsText, reasonText, roundInGame, wordPoints, wordsText } from "./format.js";
import { findPath, wordOf } from "./paths.js";
import { HintView, scoreAfterHints } from "./hints.js";
import { isCoop } from "./team.js";
import { isTeams, teamName, teamOf } from "./teams.js";
import { roundClock } from "./timer.js";
import { TimerView, URGENT_SECONDS } from "./timer-view.js";
import { WordsLeftView } from "./words-left.js";
import { themeLine } from "./word-theme.js";
import { PaperView, paperPhase } from "./paper.js";
import { ChessView, isChess } from "./chess.js";

// Seconds left at which the timer is announced (it turns urgent at URGENT_SECONDS).
const ANNOUNCE_AT = [60, 30, 10];
// How long a submitted path stays lit in its verdict's style.
const FLASH_MS = 700;
// How many of the latest words the strip under the word field shows.
const RECENT_WORDS = 8;

/** "4 entered, 3 accepted": refused entries are not words found (only "4 entered" while
 * verdicts wait for the results). */
function enteredText(words, round) {
  const entered = ngettext("%(count)s entered", "%(count)s entered", words.length);
  if (!round.instant_verdicts) return entered;
  const accepted = words.filter((entry) => entry.accepted).length;
  return `${entered}, ${ngettext("%(count)s accepted", "%(count)s accepted", accepted)}`;
}

export class PlayView {
  constructor(root, { code, store, clock, onSubmit, onEndRound, onHint = () => false, onSkip = () => false, feedback = null }) {
    this.code = code;
    this.store = store;
    this.root = $("#play-panel", root);
    this.feedback = feedback;
    this.clock = clock;
    this.onSubmit = onSubmit;
    this.onEndRound = onEndRound;
    this.el = {
      title: $("#round-title", root),
      rules: $("#round-rules", root),
      extras: $("#round-extras", root),
      theme: $("#round-theme", root),
      next: $("#round-next", root),
      countdown: $("#countdown", root),
      form: $("#entry-form", root),
      entry: $("#entry", root),
      clear: $("#entry-clear", root),
      submit: $("#entry-submit", root),
      verdict: $("#verdict", root),
      hostActions: $("#host-round-actions", root),
      endRound: $("#end-round", root),
      turn: $("#turn-board", root),
      words: $("#my-words", root),
      score: $("#my-score", root),
      wordsEmpty: $("#my-words-empty", root),
      recentCount: $("#recent-count", root),
      roundScore: $("#round-score", root),
      recentList: $("#recent-list", root),
    };
    this.board = new BoardView($("#play-board", root), { label: gettext("Board") });
    this.timer = new TimerView({
      timer: $("#timer", root),
      label: $("#timer-label", root),
      value: $("#timer-value", root),
      bar: $("#timebar-fill", root),
    });
    this.wordsLeft = new WordsLeftView($("#recent-words", root));
    // Paper rounds: the list entry once the time is up (paper.js).
    this.paper = new PaperView(root, { onSubmit: (word) => this.onSubmit(word) });
    // Chess-clock rounds: every clock and whose turn it is, above the board (chess.js).
    const timer = { timer: $("#timer", root), label: $("#timer-label", root), value: $("#timer-value", root) };
    const chessPlaces = { board: $("#play-board", root), before: $(".board-wrap", root), timer, entry: $("#entry", root) };
    this.chess = new ChessView(chessPlaces, { store, clock, feedback, onSkip });
    this.accepting = false;
    // Practice rooms only (the state's `hints`): right after the "Words left" chip.
    this.hints = new HintView(this.wordsLeft.button, {
      onAsk: onHint,
      onUsed: () => this.store.round && this.renderScore(this.store, this.store.round),
    });
    this.input = new BoardInput(this.board, {
      onChange: (path) => this.pathChanged(path),
      onSubmit: (path) => this.submit(wordOf(path, this.board.faces), path),
    });
    this.phase = null;
    this.announced = new Set();
    this.flashTimer = null;
    this.lastSubmitted = null;
    this.ticked = null;
    this.bind();
    window.setInterval(() => this.tick(), 200);
  }

  bind() {
    const { form, entry, clear, endRound } = this.el;
    form.addEventListener("submit", (event) => {
      event.preventDefault();
      const typed = entry.value;
      this.submit(typed, this.input.path.length ? this.input.path : findPath(typed, this.board.faces, this.board.cols));
    });
    entry.addEventListener("input", () => {
      // Typing takes over from the dice: light where the typed word is, if anywhere.
      const path = findPath(entry.value, this.board.faces, this.board.cols) || [];
      this.input.setPath([]);
      this.board.highlight(path, entry.value && !path.length ? "bad" : "active");
    });
    entry.addEventListener("keydown", (event) => {
      if (event.key === "Escape") this.clearEntry();
    });
    clear.addEventListener("click", () => this.clearEntry());
    this.el.turn.addEventListener("click", () => this.turnBoard());
    endRound.addEventListener("click", () => {
      if (endRound.dataset.confirm) {
        delete endRound.dataset.confirm;
        endRound.textContent = this.endLabel();
        this.onEndRound();
        return;
      }
      endRound.dataset.confirm = "1";
      endRound.textContent = gettext("Sure? %(action)s", { action: this.endLabel() });
      window.setTimeout(() => {
        delete endRound.dataset.confirm;
        endRound.textContent = this.endLabel();
      }, 4000);
    });
  }

  /** A quarter turn clockwise: the dice move, the word being spelt stays lit on them. */
  turnBoard() {
    const round = this.store.round;
    if (!round) return;
    const turns = (this.board.turns + 1) % 4;
    this.board.turn(turns);
    saveTurns(this.code, round.number, turns);
    announce(gettext("Board turned a quarter turn"));
  }

  /** The host's end button: "End round now", or in a paper round what it does next. */
  endLabel() {
    return this.paper.endLabel(this.paperPhase) || gettext("End round now");
  }

  pathChanged(path) {
    window.clearTimeout(this.flashTimer);
    this.el.entry.value = wordOf(path, this.board.faces);
    this.board.highlight(path, "active");
  }

  clearEntry() {
    this.el.entry.value = "";
    this.input.setPath([]);
    this.board.highlight([]);
  }

  submit(text, path) {
    const word = text.trim();
    if (!word || !this.accepting) return;
    this.lastSubmitted = { word: word.toLowerCase(), path: path || [] };
    this.el.entry.value = "";
    this.input.setPath([]);
    this.board.highlight(path || [], "sent");
    this.onSubmit(word);
  }

  render(store, changed) {
    const round = store.round;
    if (!round || store.phase !== "play") return;
    const all = changed.has("all");
    // The settings say how long the next round is (the shrinking clock).
    if (all || changed.has("round") || changed.has("settings")) this.renderRound(round);
    if (all || changed.has("words") || changed.has("round")) {
      this.renderWords(store, round);
      this.wordsLeft.render(round.word_counts ? { by_length: round.word_counts, verdicts_hidden: !round.instant_verdicts } : null, store.words);
    }
    if (changed.has("verdict")) this.renderVerdict(store.lastVerdict, round);
    if (all || changed.has("host") || changed.has("round")) {
      this.el.hostActions.hidden = !(store.isHost && round.status === "running");
    }
    this.chess.render();
    this.tick();
    this.hints.render(store, this.phase === "playing");
    // Practice rooms keep room for the hint's letters under the board (site.css).
    this.root.classList.toggle("with-hints", Boolean(store.state.hints));
  }

  renderRound(round) {
    this.board.showRound(round, roundClock(round, this.clock.now()).phase);
    this.el.title.textContent = gettext("Round %(number)s", { number: roundInGame(round) });
    const parts = [gettext("%(count)s+ letters", { count: round.min_length }), gettext("Qu counts as 2")];
    const teams = isTeams(round);
    if (round.cancel_duplicates) parts.push(teams ? gettext("words shared between teams score 0") : gettext("shared words score 0"));
    if (!round.instant_verdicts) parts.push(gettext("verdicts at the end"));
    if (round.paper) parts.push(gettext("played on paper"));
    if (isCoop(round)) parts.push(gettext("co-op: one team"));
    if (teams) {
      const mine = teamOf(this.store.state, this.store.you);
      parts.push(mine ? gettext("you play for %(team)s", { team: teamName(mine) }) : gettext("teams"));
    }
    this.el.rules.textContent = parts.join(" · ");
    // Under the bar, the room's house rules of the moment: a theme changes which words to
    // look for; the shrinking clock says how long the next round is.
    this.el.theme.textContent = themeLine(round);
    this.el.theme.hidden = !round.theme;
    this.el.next.textContent = nextRoundText(this.store.state.settings);
    this.el.extras.hidden = !round.theme && !this.el.next.textContent;
    if (this.roundNumber !== round.number) {
      this.roundNumber = round.number;
      this.board.turn(savedTurns(this.code, round.number));
      this.announced = new Set();
      this.el.verdict.replaceChildren();
      this.el.verdict.className = "verdict";
      this.clearEntry();
      this.ticked = null;
    }
  }

  renderWords(store, round) {
    const words = store.words;
    const items = [...words].reverse().map((entry) => this.wordItem(entry, round));
    this.el.words.replaceChildren(...items);
    this.el.wordsEmpty.hidden = words.length > 0;
    // Right under the word field: the count and the latest words, newest first.
    this.el.recentCount.textContent = `(${enteredText(words, round)})`;
    this.el.recentList.replaceChildren(
      ...[...words]
        .slice(-RECENT_WORDS)
        .reverse()
        .map((entry) => this.recentItem(entry)),
    );
    this.renderScore(store, round);
  }

  /** The running score, under the word field and atop the list: the accepted words'
   * points less the hints' cost, as the results will count it (scoreAfterHints). */
  renderScore(store, round) {
    const words = store.words;
    const accepted = words.filter((entry) => entry.accepted);
    const points = accepted.reduce((sum, entry) => sum + wordPoints(entry.word, round.points_table), 0);
    const { hints, cost } = this.hints.used(round.number, store.state.hints);
    const score = pointsText(scoreAfterHints(points, hints, cost));
    this.el.score.textContent = round.instant_verdicts
      ? `${wordsText(accepted.length)} · ${score}`
      : wordsText(words.filter((entry) => entry.verdict === "received").length);
    // With verdicts at the end the score is not known yet: the count says what is.
    this.el.roundScore.hidden = !round.instant_verdicts;
    this.el.roundScore.textContent = round.instant_verdicts ? score : "";
  }

  recentItem(entry) {
    const kind = entry.pending ? "pending" : entry.accepted ? "good" : entry.verdict === "received" ? "sent" : "bad";
    const tag = kind === "bad" ? "s" : "span";
    return h(tag, { class: `recent-word ${kind}`, dataset: { word: entry.word }, text: entry.word });
  }

  wordItem(entry, round) {
    let status;
    let kind;
    if (entry.pending) {
      kind = "pending";
      status = entry.waiting ? gettext("waiting for connection") : gettext("checking…");
    } else if (entry.accepted) {
      kind = "good";
      status = `+${wordPoints(entry.word, round.points_table)}`;
    } else if (entry.verdict === "received") {
      kind = "sent";
      status = gettext("sent");
    } else {
      kind = "bad";
      status = reasonText(entry, round) || gettext("does not count");
    }
    const word = kind === "bad" ? h("s", { class: "word-text", text: entry.word }) : h("span", { class: "word-text", text: entry.word });
    return h(
      "li",
      { class: `word ${kind}`, dataset: { word: entry.word, verdict: entry.verdict || "" } },
      h("span", { class: "word-icon", "aria-hidden": "true", text: { good: "✓", bad: "✗", pending: "…", sent: "↑" }[kind] }),
      word,
      h("span", { class: "word-status", text: status }),
    );
  }

  renderVerdict(verdict, round) {
    if (!verdict) return;
    const el = this.el.verdict;
    let kind;
    let text;
    if (verdict.accepted) {
      kind = "good";
      text = `${verdict.word.toUpperCase()}  +${wordPoints(verdict.word, round.points_table)}`;
    } else if (verdict.verdict === "received") {
      kind = "sent";
      text = gettext("%(word)s sent; verdicts come with the results", { word: verdict.word.toUpperCase() });
    } else {
      kind = "bad";
      const reason = reasonText(verdict, round) || gettext("does not count");
      text = verdict.word ? gettext("%(word)s: %(reason)s", { word: verdict.word.toUpperCase(), reason }) : reason;
    }
    el.className = `verdict ${kind} show`;
    this.feedback?.verdict(kind);
    el.replaceChildren(
      h("span", { class: "verdict-icon", "aria-hidden": "true", text: { good: "✓", bad: "✗", sent: "↑" }[kind] }),
      h("span", { text }),
    );
    // Restart the pop animation for a repeated verdict.
    void el.offsetWidth;
    el.classList.add("pop");
    announce(verdict.accepted ? `${verdict.word}: accepted, ${wordPoints(verdict.word, round.points_table)} points` : capitalise(text));
    const submitted = this.lastSubmitted;
    if (submitted && submitted.word === verdict.word && submitted.path.length && !this.input.path.length && !this.el.entry.value) {
      this.board.highlight(submitted.path, kind);
      window.clearTimeout(this.flashTimer);
      this.flashTimer = window.setTimeout(() => {
        if (!this.input.path.length && !this.el.entry.value) this.board.highlight([]);
      }, FLASH_MS);
    }
  }

  /** Several times a second: the clock, and what the player may do at this moment. */
  tick() {
    const store = this.store;
    const round = store.round;
    if (!round || store.phase !== "play") return;
    const { state: clock, value, seconds } = this.timer.show(round, this.clock.now());
    const { countdown, entry, submit, clear } = this.el;

    // While a ready check waits, its panel (ready-check.js) covers the board instead.
    const readyCheck = clock.phase === "preparing" && Boolean(round.ready_check);
    countdown.hidden = readyCheck || !(clock.phase === "countdown" || clock.phase === "preparing" || clock.phase === "over");
    const countdownText =
      clock.phase === "countdown"
        ? gettext("Starts in %(seconds)s", { seconds: value })
        : clock.phase === "preparing"
          ? gettext("Shaking the dice…")
          : gettext("Time's up! Scoring…");
    if (countdown.textContent !== countdownText) countdown.textContent = countdownText;

    const playing = clock.phase === "playing";
    // A paper round takes no word while everyone writes, and the lists once the time is up.
    const paper = paperPhase(round, clock.phase);
    if (paper === "lists") countdown.hidden = true;
    if (paper !== this.paperPhase) {
      this.paperPhase = paper;
      if (!this.el.endRound.dataset.confirm) this.el.endRound.textContent = this.endLabel();
    }
    this.paper.render(paper, store.isHost);
    // While everyone writes, a word field that takes nothing would only confuse.
    this.el.form.hidden = paper === "writing";
    this.accepting = paper ? paper === "lists" : playing;
    // A chess round takes a word from the player whose turn it is only.
    if (isChess(round)) {
      this.accepting = playing && this.chess.accepts(this.clock.now());
      this.chess.tick(this.clock.now());
    }
    if (this.phase !== clock.phase) this.board.showRound(round, clock.phase);
    if (entry.disabled === this.accepting) {
      entry.disabled = !this.accepting;
      submit.disabled = !this.accepting;
      clear.disabled = !this.accepting;
      this.input.setEnabled(this.accepting);
    }
    if (this.phase !== clock.phase) this.phaseChanged(clock.phase);
    // The last ten seconds, one tick each (a tone and a buzz, unless muted).
    if (playing && seconds !== null && seconds >= 1 && seconds <= URGENT_SECONDS && this.ticked !== seconds) {
      if (this.ticked !== null || seconds === URGENT_SECONDS) this.feedback?.secondsLeft(seconds);
      this.ticked = seconds;
    }
    if (playing && seconds !== null) {
      for (const mark of ANNOUNCE_AT) {
        if (seconds <= mark && seconds > mark - 2 && !this.announced.has(mark)) {
          this.announced.add(mark);
          announce(gettext("%(seconds)s seconds left", { seconds: mark }));
        }
      }
    }
  }

  phaseChanged(phase) {
    const previous = this.phase;
    this.phase = phase;
    this.hints.render(this.store, phase === "playing");
    // On paper, the time being up opens the lists: the round goes on (paper.js speaks).
    const paper = Boolean(this.store.round?.paper);
    // The screen stays on from the board's arrival to the end of the round.
    if (phase === "over") {
      if (previous === "playing") this.feedback?.roundOver();
      if (!paper) this.feedback?.letSleep();
    } else {
      this.feedback?.keepAwake();
    }
    if (phase === "playing" && paper) {
      if (previous !== null) announce(gettext("Go! Write your words on paper."));
    } else if (phase === "playing" && previous !== null) {
      announce(gettext("Go! The round has started."));
      if (!isTouchFirst()) this.el.entry.focus();
    } else if (phase === "playing" && !isTouchFirst()) {
      this.el.entry.focus();
    } else if (phase === "over" && !paper) {
      announce(gettext("Time's up. Waiting for the results."));
      this.clearEntry();
    } else if (phase === "countdown") {
      announce(gettext("Get ready: the letters show when the round starts."));
    }
  }
}
