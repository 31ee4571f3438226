// A removed player's page (docs/api.md, "Coming back after leave or kick"): the server
// refuses that device's joins until the host lets the player back in (`unkick`), and says
// so to the room only (the kick closed this page's socket). So while the page says "You
// were removed", it reads the room's state every few seconds (not while hidden) and tells
// the player once their id has left the state's `kicked` list.

import { ApiError, getJSON } from "../lib/api.js";

// Between two reads of the room (milliseconds): the host's "Let back in" shows this soon.
const POLL_MS = 4000;

export class LetBackWatch {
  /** `onLetBack()`: the host let the player back in; `onGone(failure)`: the room is gone. */
  constructor(code, { onLetBack, onGone }) {
    this.code = code;
    this.onLetBack = onLetBack;
    this.onGone = onGone;
    this.playerId = null;
    this.timer = null;
    // Back from the background (a phone asleep): read at once.
    document.addEventListener("visibilitychange", () => {
      if (!document.hidden && this.playerId !== null) this.check();
    });
  }

  /** Watch for player `playerId` (the removed player this page was). */
  start(playerId) {
    if (playerId === null || playerId === undefined) return;
    if (this.playerId === playerId && this.timer !== null) return;
    this.playerId = playerId;
    this.schedule();
  }

  stop() {
    window.clearTimeout(this.timer);
    this.timer = null;
    this.playerId = null;
  }

  schedule() {
    window.clearTimeout(this.timer);
    this.timer = window.setTimeout(() => this.check(), POLL_MS);
  }

  async check() {
    if (this.playerId === null) return;
    if (document.hidden) {
      this.schedule();
      return;
    }
    let body;
    try {
      body = await getJSON(`/api/rooms/${encodeURIComponent(this.code)}`);
    } catch (failure) {
      if (failure instanceof ApiError && failure.code === "room_not_found") {
        this.stop();
        this.onGone(failure);
      } else {
        this.schedule(); // offline for a moment, or a server restarting: ask again later
      }
      return;
    }
    if (this.playerId === null) return; // stopped meanwhile
    const stillOut = (body.room.kicked || []).some((item) => item.id === this.playerId);
    if (stillOut) {
      this.schedule();
      return;
    }
    this.stop();
    this.onLetBack();
  }
}
