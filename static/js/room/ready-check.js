// The ready check (the room setting `ready_check`, docs/api.md): before the countdown every
// player's page shows "Ready?" over the face-down board, with one big "I'm ready" button
// (the host also has "Start now"), then whom the room still waits for. The round starts
// when nobody is waited for or the host forces it (`round.started`, countdown as always).
// The button shows only once this page has drawn the round's dice (face down: the letters
// come with `round.started`, to everyone at once).

import { h } from "../lib/dom.js";
import { gettext, ngettext, pageLanguage } from "../lib/i18n.js";

// Names listed in full; past that, "and 3 others".
const NAMES_SHOWN = 4;

/** "Ann", "Ann and Bob", "Ann, Bob, Carl, Dan and 2 others" in the page's language. */
export function namesText(names) {
  const shown = names.length > NAMES_SHOWN + 1 ? [...names.slice(0, NAMES_SHOWN), ngettext("%(count)s other", "%(count)s others", names.length - NAMES_SHOWN)] : names;
  try {
    return new Intl.ListFormat(pageLanguage(), { style: "long", type: "conjunction" }).format(shown);
  } catch {
    return shown.join(", ");
  }
}

/** The round's ready check while the round waits for its players (null otherwise). */
export function waitingCheck(round) {
  return round && round.status === "preparing" && round.ready_check ? round.ready_check : null;
}

export class ReadyCheckView {
  /**
   * `container`: where the panel goes (over the board). `boardShown(round)`: whether the
   * page has drawn this round's board. `onReady(number)`, `onForceStart(number)`: send the
   * message; each returns false when it could not go (no connection).
   */
  constructor(container, { boardShown, onReady, onForceStart }) {
    this.boardShown = boardShown;
    this.onReady = onReady;
    this.onForceStart = onForceStart;
    this.sent = null; // the round this page said "ready" for, until the server lists it
    this.forcing = null; // the round the host asked to start now
    this.shownFor = null;
    this.title = h("h2", { id: "ready-title", class: "ready-title", tabindex: "-1", text: gettext("Ready?") });
    this.lead = h("p", { class: "ready-lead", text: gettext("The round starts when everyone is ready.") });
    this.button = h("button", {
      type: "button",
      id: "ready-button",
      class: "button primary big ready-button",
      text: gettext("I'm ready"),
      on: { click: () => this.ready() },
    });
    this.done = h("p", { class: "ready-done", hidden: true }, h("span", { class: "ready-mark", "aria-hidden": "true", text: "✓" }), " ", gettext("You're ready"));
    this.status = h("p", { id: "ready-status", class: "ready-status", role: "status" });
    this.force = h("button", {
      type: "button",
      id: "force-start",
      class: "button ready-force",
      text: gettext("Start now"),
      "aria-describedby": "ready-force-hint",
      on: { click: () => this.forceStart() },
    });
    this.forceHint = h("span", { id: "ready-force-hint", class: "visually-hidden", text: gettext("Start the round without waiting for everyone.") });
    this.hostBox = h("div", { class: "ready-host", hidden: true }, this.force, this.forceHint);
    this.element = h(
      "section",
      { id: "ready-panel", class: "ready-panel", "aria-labelledby": "ready-title", hidden: true },
      this.title,
      this.lead,
      this.button,
      this.done,
      this.status,
      this.hostBox,
    );
    container.append(this.element);
    this.store = null;
  }

  render(store) {
    this.store = store;
    const round = store.phase === "play" ? store.round : null;
    const check = waitingCheck(round);
    const show = Boolean(check && this.boardShown(round));
    this.element.hidden = !show;
    if (!show) {
      if (!check) this.shownFor = null;
      return;
    }
    if (this.sent !== null && this.sent !== round.number) this.sent = null;
    if (this.forcing !== null && this.forcing !== round.number) this.forcing = null;
    const you = store.you;
    const ready = check.ready || [];
    const waiting = (check.waiting || []).filter((id) => !(this.sent === round.number && id === you));
    const isReady = ready.includes(you) || this.sent === round.number;
    this.button.hidden = isReady;
    this.done.hidden = !isReady;
    this.lead.hidden = isReady;
    const names = (ids) => namesText(ids.map((id) => (id === you ? gettext("you") : store.nickname(id))));
    let text;
    if (isReady) {
      text = waiting.length ? gettext("Waiting for %(names)s…", { names: names(waiting) }) : gettext("Everyone is ready. Starting…");
    } else {
      const others = ready.filter((id) => id !== you);
      text = others.length ? gettext("Ready: %(names)s.", { names: names(others) }) : "";
    }
    if (this.status.textContent !== text) this.status.textContent = text;
    this.hostBox.hidden = !store.isHost;
    this.force.disabled = this.forcing === round.number;
    // A new ready check: the button takes the focus (keyboards, screen readers).
    if (this.shownFor !== round.number) {
      this.shownFor = round.number;
      const target = isReady ? this.title : this.button;
      target.focus({ preventScroll: true });
    }
  }

  ready() {
    const round = this.store && this.store.round;
    if (!waitingCheck(round)) return;
    if (!this.onReady(round.number)) return;
    this.sent = round.number;
    // The button goes: keep the focus in the panel, on its title.
    this.title.focus({ preventScroll: true });
    this.render(this.store);
  }

  forceStart() {
    const round = this.store && this.store.round;
    if (!waitingCheck(round)) return;
    if (!this.onForceStart(round.number)) return;
    this.forcing = round.number;
    this.render(this.store);
  }

  /** The server refused `ready` or `force_start` (its message is shown as a notice). */
  failed(request) {
    if (request === "ready") this.sent = null;
    if (request === "force_start") this.forcing = null;
    if (this.store) this.render(this.store);
  }
}
