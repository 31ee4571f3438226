// Hints in solo practice rooms (docs/api.md, "Hints"): a button by the "Words left" chip
// buys the first letters of a word not found yet; each hint costs points off the round.
// Shown only when the state has `hints` (practice rooms) and the round is playing.

import { announce, h } from "../lib/dom.js";
import { gettext, ngettext } from "../lib/i18n.js";

/** "A word of 6 letters: PL…" */
export function hintText(hint) {
  return gettext("A word of %(count)s letters: %(letters)s…", {
    count: hint.word_length,
    letters: hint.letters.toUpperCase(),
  });
}

/** A round's score after its hints, as the results count it (games.hints.round_score):
 * the words' points less the hints' cost, never below 0. */
export function scoreAfterHints(points, hintsUsed, cost) {
  return Math.max(0, points - hintsUsed * cost);
}

/** The results' "Hints: 2 (−2 pts)." for the player `you`, or "" without hints. */
export function hintsUsedText(results, you) {
  const me = results.players.find((entry) => entry.id === you);
  if (!me || !me.hints) return "";
  return ngettext("Hints: %(hints)s (−%(count)s pt).", "Hints: %(hints)s (−%(count)s pts).", me.hint_points, {
    hints: me.hints,
  });
}

export class HintView {
  /** `onUsed()`: the hints used this round changed (the running score takes them off). */
  constructor(anchor, { onAsk, onUsed = () => {} }) {
    this.onAsk = onAsk;
    this.onUsed = onUsed;
    this.offer = null; // the state's `hints`: the cost, and this round's hints
    this.latest = null; // {round, word_length, letters, hints_used}
    this.waiting = false;
    this.button = h("button", {
      type: "button",
      id: "hint-button",
      class: "hint-button",
      on: { click: () => this.ask() },
    });
    this.text = h("span", { id: "hint-text", class: "hint-text" });
    this.root = h("div", { class: "hint-box", hidden: true }, this.button, this.text);
    anchor.after(this.root);
  }

  ask() {
    // Not `disabled` while the answer comes: a disabled button would lose the keyboard focus.
    if (this.waiting) return;
    this.waiting = true;
    this.button.setAttribute("aria-busy", "true");
    if (!this.onAsk()) this.done();
  }

  done() {
    this.waiting = false;
    this.button.removeAttribute("aria-busy");
  }

  /** The state (first message, sync): the offer, and the hints of its running round. */
  render(store, playing) {
    const offer = store.state.hints || null;
    const round = store.round;
    if (offer !== this.offer) {
      this.offer = offer;
      if (offer && offer.round !== null && offer.latest) {
        this.latest = { round: offer.round, hints_used: offer.hints_used, ...offer.latest };
      }
    }
    this.root.hidden = !(offer && playing && round);
    if (this.root.hidden) return;
    const cost = offer.cost;
    // A minus sign (U+2212), not a hyphen: "Hint (−1 pt)".
    this.button.textContent = ngettext("Hint (−%(count)s pt)", "Hint (−%(count)s pts)", cost);
    const latest = this.latest && this.latest.round === round.number ? this.latest : null;
    this.text.textContent = latest ? this.latestText(latest, cost) : "";
  }

  /** Hints used in round `number` and what each costs, by the state's `hints` (`offer`)
   * and the answers since: 0 and 0 outside practice rooms. */
  used(number, offer) {
    if (!offer) return { hints: 0, cost: 0 };
    const latest = this.latest && this.latest.round === number ? this.latest : null;
    const fromState = offer.round === number ? offer.hints_used : 0;
    return { hints: latest ? latest.hints_used : fromState, cost: offer.cost };
  }

  /** "A word of 6 letters: PL… · Hints used: 2 (−2 pts)" */
  latestText(hint, cost) {
    const used = hint.hints_used;
    const usedText = ngettext("Hints used: %(hints)s (−%(count)s pt)", "Hints used: %(hints)s (−%(count)s pts)", used * cost, {
      hints: used,
    });
    return `${hintText(hint)} · ${usedText}`;
  }

  /** The server's answer to `hint`. */
  shown(message) {
    this.done();
    this.latest = { ...message };
    this.text.textContent = this.latestText(message, message.cost);
    announce(hintText(message));
    this.onUsed();
  }

  failed(text) {
    this.done();
    this.text.textContent = text;
    announce(text);
  }
}
