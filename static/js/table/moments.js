// Moments of a round on the table screen (issue 32): the round's first word, a lead
// change (in a co-op round, the team's goal reached instead), a word of 8 letters or more,
// each announced for a few seconds in a banner over the screen, to screen readers (the
// page's live region) and with a short tone (muted with the rest: room/feedback.js's
// switch). They come from the events the table screen already gets: `round.counts` (its
// counts, `long_words`: who found a long word, never which, and a co-op round's `team`).
// A state (the page's first, or a sync) only sets where the round stands: nothing
// is announced for what happened before. No moment outside a running round.

import { announce, h } from "../lib/dom.js";
import { gettext, ngettext } from "../lib/i18n.js";
import { percentText } from "../room/format.js";
import { goalReached, isCoop } from "../room/team.js";

// How long each moment shows, and the pause before the next one in the queue.
const SHOW_MS = 3500;
const GAP_MS = 300;
// More than this waiting (a crowd's long words at once): the newest are not announced.
const MAX_QUEUED = 8;
// Numbers read with a vowel first in English (up to a 6x6 board's 36 dice, Qu counting two).
const AN_NUMBERS = new Set([8, 11, 18]);
// Tones: [frequency in Hz, seconds], as feedback.js plays them.
const TONES = {
  first: [[660, 0.08], [880, 0.16]],
  lead: [[523, 0.08], [659, 0.08], [784, 0.18]],
  long: [[784, 0.07], [988, 0.07], [1175, 0.07], [1568, 0.24]],
  goal: [[784, 0.07], [988, 0.07], [1175, 0.07], [1568, 0.24]],
};

/** The player strictly ahead in `counts` (id as a string), or null (nobody, or a tie). */
function strictLeader(counts) {
  let best = null;
  let bestCount = 0;
  let tied = false;
  for (const [id, count] of Object.entries(counts || {})) {
    if (count > bestCount) {
      best = id;
      bestCount = count;
      tied = false;
    } else if (count === bestCount && count > 0) {
      tied = true;
    }
  }
  return tied ? null : best;
}

export class Moments {
  /** `root`: where the banner goes; `feedback`: a Feedback (its tones and mute switch). */
  constructor({ store, root, feedback = null }) {
    this.store = store;
    this.feedback = feedback;
    this.round = null;
    this.started = false;
    this.leader = null;
    this.reached = false; // a co-op round's goal, once announced
    this.version = 0;
    this.queue = [];
    this.timer = null;
    this.text = h("span", { class: "table-moment-text" });
    this.element = h("div", { class: "table-moment", id: "table-moment", "aria-hidden": "true", hidden: true, dataset: { queued: "0" } }, this.text);
    root.append(this.element);
  }

  /** A state (first or synced): where the round stands, without announcing anything. */
  reset(state) {
    const round = state.round;
    const running = round && round.status === "running";
    const counts = running ? state.counts || {} : {};
    const same = running && round.number === this.round;
    this.version = Math.max(this.version, this.store.version);
    this.round = running ? round.number : null;
    this.started = Object.values(counts).some((count) => count > 0);
    this.leader = strictLeader(counts) ?? (same ? this.leader : null);
    this.reached = Boolean(running && state.team && goalReached(state.team));
    if (!running) this.clear();
  }

  /** A room event, after the store took it. */
  event(event) {
    if (typeof event.version === "number") {
      if (event.version <= this.version) return; // already seen (a sync brought it)
      this.version = event.version;
    }
    if (["round.ended", "game.ended", "game.started"].includes(event.type)) {
      this.round = null;
      this.clear();
      return;
    }
    if (event.type !== "round.counts") return;
    const round = this.store.round;
    if (!round || round.status !== "running") return;
    if (round.number !== this.round) {
      this.round = round.number;
      this.started = false;
      this.leader = null;
      this.reached = false;
    }
    const coop = isCoop(round);
    const counts = event.counts || {};
    const name = (id) => this.store.nickname(Number(id));
    if (!this.started) {
      const first = Object.entries(counts)
        .filter(([, count]) => count > 0)
        .sort(([a, countA], [b, countB]) => countB - countA || name(a).localeCompare(name(b)))[0];
      if (first) {
        this.started = true;
        this.leader = strictLeader(counts);
        this.add("first", gettext("First word: %(nickname)s!", { nickname: name(first[0]) }));
      }
    } else {
      const leader = strictLeader(counts);
      if (!coop && leader !== null && leader !== this.leader) {
        this.leader = leader;
        this.add("lead", gettext("%(nickname)s takes the lead!", { nickname: name(leader) }));
      }
    }
    const team = coop ? this.store.state.team : null;
    if (team && !this.reached && goalReached(team)) {
      this.reached = true;
      this.add("goal", gettext("Goal reached! The team found %(share)s of the words.", { share: percentText(team.found / team.total) }));
    }
    for (const found of event.long_words || []) {
      const values = { nickname: name(found.player_id) };
      // English says "an 8-letter word", "an 11-", "an 18-", and "a" for the other numbers.
      const text = AN_NUMBERS.has(found.letters)
        ? ngettext("%(nickname)s found an %(count)s-letter word!", "%(nickname)s found an %(count)s-letter word!", found.letters, values)
        : ngettext("%(nickname)s found a %(count)s-letter word!", "%(nickname)s found a %(count)s-letter word!", found.letters, values);
      this.add("long", text);
    }
  }

  add(kind, text) {
    if (this.queue.length >= MAX_QUEUED) return;
    this.queue.push({ kind, text });
    this.element.dataset.queued = String(this.queue.length);
    if (this.timer === null) this.next();
  }

  next() {
    const moment = this.queue.shift();
    this.element.dataset.queued = String(this.queue.length); // waiting to show (tests read it)
    if (!moment) {
      this.timer = null;
      this.element.hidden = true;
      return;
    }
    this.text.textContent = moment.text;
    this.element.dataset.kind = moment.kind;
    this.element.hidden = false;
    announce(moment.text);
    if (this.feedback && !this.feedback.muted) this.feedback.tone(TONES[moment.kind]);
    this.timer = window.setTimeout(() => {
      this.element.hidden = true;
      this.timer = window.setTimeout(() => this.next(), GAP_MS);
    }, SHOW_MS);
  }

  /** The round is over (or gone): no moment left to show. */
  clear() {
    this.queue = [];
    this.element.dataset.queued = "0";
    window.clearTimeout(this.timer);
    this.timer = null;
    this.element.hidden = true;
  }
}
