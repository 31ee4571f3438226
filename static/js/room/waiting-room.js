// Locked rooms (docs/api.md, "Locked rooms"): the host's lock switch and the list of
// newcomers waiting for a yes ("Let in", "Refuse"); and, on a newcomer's phone, the
// waiting screen, which asks the server for the answer every few seconds.

import { ApiError, getJSON } from "../lib/api.js";
import { h, svg } from "../lib/dom.js";
import { gettext, ngettext } from "../lib/i18n.js";

// Between two reads of a waiting request when the server names no pace (seconds).
const DEFAULT_POLL_SECONDS = 2;
// After a failed read (offline, server restarting) the next waits this long (seconds).
const RETRY_POLL_SECONDS = 4;
// How long "Refuse" can be undone (milliseconds): the refusal is sent only then, so a
// newcomer refused by mistake never hears of it and can still be let in.
const REFUSE_UNDO_MS = 8000;

/** A padlock, shut or open (drawn: phones without an emoji font show no box). */
export function padlock(locked) {
  const icon = svg("svg", { viewBox: "0 0 16 16", width: 16, height: 16, class: "padlock", "aria-hidden": "true" });
  const shackle = svg("path", { d: locked ? "M5 7V5a3 3 0 0 1 6 0v2" : "M5 7V5a3 3 0 0 1 5.9-.8", fill: "none", stroke: "currentColor", "stroke-width": 1.8 });
  icon.append(shackle, svg("rect", { x: 3, y: 7, width: 10, height: 8, rx: 1.5, fill: "currentColor" }));
  return icon;
}

/** The host's lock switch (everyone else sees whether the room is locked). */
export class LockView {
  constructor(box, { onLock }) {
    this.box = box;
    this.onLock = onLock;
    this.pending = null; // the lock state asked for, until room.locked says it
  }

  render(store) {
    const locked = Boolean(store.state.locked);
    if (this.pending === locked) this.pending = null;
    this.box.hidden = !store.isHost && !locked;
    if (!store.isHost) {
      this.box.replaceChildren(h("p", { class: "hint lock-note" }, padlock(true), " ", gettext("Locked: newcomers wait for the host to let them in.")));
      return;
    }
    const button = h(
      "button",
      {
        type: "button",
        id: "lock-room",
        class: `button small lock-switch${locked ? " is-locked" : ""}`,
        "aria-pressed": locked ? "true" : "false",
        disabled: this.pending !== null,
        on: {
          click: () => {
            if (this.onLock(!locked)) {
              this.pending = !locked;
              this.render(store);
            }
          },
        },
      },
      padlock(locked),
      locked ? gettext("Room locked") : gettext("Lock the room"),
    );
    const hint = locked
      ? gettext("Newcomers wait for your yes; players already here come back freely. Press to unlock.")
      : gettext("Lock it to check newcomers before they join, e.g. after removing someone.");
    this.box.replaceChildren(button, h("p", { class: "hint lock-hint", text: hint }));
  }

  /** The server refused the switch: it works again. */
  failed(store) {
    this.pending = null;
    this.render(store);
  }
}

/** The newcomers waiting at a locked room, with "Let in" and "Refuse": the host's only.
 * A refusal waits REFUSE_UNDO_MS with "Undo" before it is sent (and is sent at once if
 * the host's page closes meanwhile). */
export class WaitingListView {
  constructor(card, { onAdmit, onRefuse }) {
    this.card = card;
    this.onAdmit = onAdmit;
    this.onRefuse = onRefuse;
    this.answering = new Set(); // ids answered, until join.decided takes them off
    this.refusing = new Map(); // ids refused but not sent yet (undo window) → timer
    this.store = null;
    window.addEventListener("pagehide", () => {
      for (const id of [...this.refusing.keys()]) this.sendRefusal(id);
    });
  }

  render(store) {
    this.store = store;
    const waiting = store.isHost ? store.state.waiting || [] : [];
    const ids = new Set(waiting.map((item) => item.id));
    for (const id of this.answering) if (!ids.has(id)) this.answering.delete(id);
    // Gone meanwhile (withdrawn, let in from another tab): nothing left to refuse.
    for (const [id, timer] of this.refusing) {
      if (!ids.has(id)) {
        window.clearTimeout(timer);
        this.refusing.delete(id);
      }
    }
    this.card.hidden = !waiting.length;
    if (!waiting.length) {
      this.card.replaceChildren();
      return;
    }
    const focused = this.card.contains(document.activeElement) ? document.activeElement.dataset.action : null;
    const rows = waiting.map((item) => this.row(store, item));
    this.card.replaceChildren(
      h(
        "h2",
        { class: "waiting-title" },
        ngettext("%(count)s person asks to join", "%(count)s people ask to join", waiting.length, { count: waiting.length }),
      ),
      h("ul", { class: "waiting-list" }, ...rows),
    );
    if (focused) this.card.querySelector(`button[data-action="${CSS.escape(focused)}"]`)?.focus();
  }

  /** "Refuse": the row says so with "Undo" (focused), and the refusal goes out later. */
  refuse(item) {
    if (this.refusing.has(item.id)) return;
    this.refusing.set(
      item.id,
      window.setTimeout(() => this.sendRefusal(item.id), REFUSE_UNDO_MS),
    );
    this.render(this.store);
    this.card.querySelector(`button[data-action="undo-${item.id}"]`)?.focus();
  }

  undo(item) {
    window.clearTimeout(this.refusing.get(item.id));
    this.refusing.delete(item.id);
    this.render(this.store);
    this.card.querySelector(`button[data-action="admit-${item.id}"]`)?.focus();
  }

  sendRefusal(id) {
    window.clearTimeout(this.refusing.get(id));
    this.refusing.delete(id);
    // Not sent (offline): the row is back as it was, to be answered again.
    if (this.onRefuse(id)) this.answering.add(id);
    if (this.store) this.render(this.store);
  }

  row(store, item) {
    if (this.refusing.has(item.id)) return this.refusedRow(item);
    const busy = this.answering.has(item.id);
    const answer = (handler) => () => {
      if (handler(item.id)) {
        this.answering.add(item.id);
        this.render(store);
      }
    };
    return h(
      "li",
      { class: "waiting-person", dataset: { requestId: item.id } },
      h("span", { class: "waiting-name" }, h("span", { class: "nickname", text: item.nickname }), h("span", { class: "hint", text: gettext("is waiting") })),
      h(
        "span",
        { class: "waiting-actions" },
        h("button", {
          type: "button",
          class: "button small primary",
          text: gettext("Let in"),
          // The visible text first, as voice control users say it (axe: label-content-name-mismatch).
          "aria-label": gettext("%(action)s: %(nickname)s", { action: gettext("Let in"), nickname: item.nickname }),
          dataset: { action: `admit-${item.id}` },
          disabled: busy,
          on: { click: answer(this.onAdmit) },
        }),
        h("button", {
          type: "button",
          class: "button small subtle danger",
          text: gettext("Refuse"),
          "aria-label": gettext("Refuse %(nickname)s", { nickname: item.nickname }),
          dataset: { action: `refuse-${item.id}` },
          disabled: busy,
          on: { click: () => this.refuse(item) },
        }),
      ),
    );
  }

  /** A refusal in its undo window: "Refused", and "Undo". */
  refusedRow(item) {
    return h(
      "li",
      { class: "waiting-person refused-pending", dataset: { requestId: item.id } },
      h("span", { class: "waiting-name" }, h("span", { class: "nickname", text: item.nickname }), h("span", { class: "hint", text: gettext("Refused") })),
      h(
        "span",
        { class: "waiting-actions" },
        h("button", {
          type: "button",
          class: "button small",
          text: gettext("Undo"),
          "aria-label": gettext("Undo: refuse %(nickname)s", { nickname: item.nickname }),
          dataset: { action: `undo-${item.id}` },
          on: { click: () => this.undo(item) },
        }),
      ),
    );
  }

  /** An answer the server refused (the newcomer left meanwhile): the buttons work again. */
  failed(store) {
    this.answering.clear();
    this.render(store);
  }
}

/**
 * A newcomer's wait at a locked room: reads the join request every few seconds until the
 * host answers. `onAdmitted(body)` gets the player's credentials and the room;
 * `onRefused()` and `onGone()` (withdrawn, or no longer known) end the wait.
 */
export class WaitingForHost {
  constructor(code, { onWaiting, onAdmitted, onRefused, onGone }) {
    this.code = code;
    this.onWaiting = onWaiting;
    this.onAdmitted = onAdmitted;
    this.onRefused = onRefused;
    this.onGone = onGone;
    this.request = null;
    this.timer = null;
  }

  get active() {
    return this.request !== null;
  }

  /** Start waiting on `request` (a join's 202 answer, or a read one). */
  start(request) {
    this.request = request;
    this.schedule(request.poll_seconds || DEFAULT_POLL_SECONDS);
  }

  /** After a reload: the request this browser made (the page's state), read again now. */
  resume(request) {
    this.request = request;
    if (request.status === "waiting") this.onWaiting(request);
    this.check();
  }

  stop() {
    window.clearTimeout(this.timer);
    this.timer = null;
    this.request = null;
  }

  schedule(seconds) {
    window.clearTimeout(this.timer);
    this.timer = window.setTimeout(() => this.check(), seconds * 1000);
  }

  /** Read the request now; resolves to what it said ("waiting", "admitted", ...). */
  async check() {
    if (!this.request) return null;
    let body;
    try {
      body = await getJSON(this.request.poll_url);
    } catch (failure) {
      if (failure instanceof ApiError && ["join_request_not_found", "room_not_found", "kicked"].includes(failure.code)) {
        this.stop();
        this.onGone(failure);
        return null;
      }
      this.schedule(RETRY_POLL_SECONDS); // offline for a moment: keep waiting
      return null;
    }
    if (!this.request) return null; // cancelled meanwhile
    return this.settle(body);
  }

  /** Act on a read (or a join's) answer; returns its status. */
  settle(body) {
    const status = body.join_request.status;
    if (status === "admitted" && body.player) {
      this.stop();
      this.onAdmitted(body);
    } else if (status === "refused") {
      this.stop();
      this.onRefused();
    } else if (status === "waiting") {
      this.request = { ...this.request, ...body.join_request };
      this.onWaiting(this.request);
      this.schedule(body.join_request.poll_seconds || DEFAULT_POLL_SECONDS);
    } else {
      this.stop();
      this.onGone(null);
    }
    return status;
  }

  /** The newcomer's "Cancel": the host no longer sees them. */
  async cancel() {
    const request = this.request;
    this.stop();
    if (!request) return;
    try {
      await fetch(request.poll_url, { method: "DELETE", credentials: "same-origin", headers: { Accept: "application/json" } });
    } catch {
      // Offline: the host's list drops a page that stopped asking after a while.
    }
  }
}
