// A round's timer as the phones (play.js) and the table screen (table/main.js) show it:
// what it says in each phase, its urgent last seconds and the bar of time left.

import { gettext } from "../lib/i18n.js";
import { clockText } from "./format.js";
import { fractionLeft, roundClock } from "./timer.js";

// Seconds left at which the timer turns urgent.
export const URGENT_SECONDS = 10;

/** The label and the value of the timer in roundClock's `state`. */
function timerText(state, round) {
  if (state.phase === "preparing" && round && round.ready_check) {
    // A ready check waiting for its players: how many of them are ready ("1/3").
    const ready = (round.ready_check.ready || []).length;
    const waiting = (round.ready_check.waiting || []).length;
    return { label: gettext("Ready"), value: `${ready}/${ready + waiting}` };
  }
  if (state.phase === "preparing") return { label: gettext("Shaking the dice"), value: "…" };
  if (state.phase === "countdown") return { label: gettext("Starts in"), value: String(Math.ceil(state.left / 1000)) };
  if (state.phase === "playing" && state.left === null) return { label: gettext("Untimed"), value: clockText(state.elapsed) };
  if (state.phase === "playing") return { label: gettext("Time left"), value: clockText(state.left) };
  return { label: gettext("Time's up"), value: "0:00" };
}

export class TimerView {
  /** The timer's elements: `timer` (its data-phase says the phase), `label`, `value`, and
   * `bar`, the time bar's fill (its parent is the bar). */
  constructor({ timer, label, value, bar }) {
    this.el = { timer, label, value, bar };
  }

  /** Show `round` at `now` (the server's time). Returns roundClock's state, the value shown
   * and the whole seconds left (null when untimed). */
  show(round, now) {
    const { timer, label: labelEl, value: valueEl, bar } = this.el;
    const state = roundClock(round, now);
    const { label, value } = timerText(state, round);
    if (labelEl.textContent !== label) labelEl.textContent = label;
    if (valueEl.textContent !== value) valueEl.textContent = value;
    const seconds = state.left === null ? null : Math.ceil(state.left / 1000);
    timer.dataset.phase = state.phase;
    timer.classList.toggle("urgent", state.phase === "playing" && seconds !== null && seconds <= URGENT_SECONDS);
    const fraction = state.phase === "countdown" || state.phase === "preparing" ? 1 : fractionLeft(round, now);
    bar.parentElement.hidden = fraction === null;
    if (fraction !== null) bar.style.transform = `scaleX(${fraction})`;
    return { state, value, seconds };
  }
}
