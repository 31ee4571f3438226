// Play on paper (the room setting `paper`, docs/api.md "Play on paper"): while everyone
// writes their words down, the phone is the round's timer and takes no words; once the time
// is up it takes the list each player wrote (pasted or typed, one word per line or
// separated by spaces or commas), word by word through the usual entry path, until the host
// scores the lists.

import { $, announce } from "../lib/dom.js";
import { gettext, ngettext } from "../lib/i18n.js";

/** Where a paper round stands: "writing", then "lists" once the time is up; null for a
 * round that is not played on paper (or not yet under way). */
export function paperPhase(round, clockPhase) {
  if (!round || !round.paper) return null;
  if (clockPhase === "playing") return "writing";
  if (clockPhase === "over") return "lists";
  return null;
}

/** The words of a written list: split on lines, spaces, commas and semicolons (the room's
 * lists and the Solve page's paper game read them alike). */
export function listWords(text) {
  return String(text)
    .split(/[\s,;]+/u)
    .map((word) => word.trim())
    .filter(Boolean);
}

export class PaperView {
  constructor(root, { onSubmit }) {
    this.onSubmit = onSubmit;
    this.el = {
      note: $("#paper-note", root),
      form: $("#paper-list", root),
      words: $("#paper-words", root),
      sent: $("#paper-sent", root),
    };
    this.phase = null;
    this.el.form.addEventListener("submit", (event) => {
      event.preventDefault();
      this.send();
    });
  }

  send() {
    const words = listWords(this.el.words.value);
    if (!words.length) {
      this.el.sent.textContent = gettext("Type the words you wrote first.");
      return;
    }
    for (const word of words) this.onSubmit(word);
    this.el.words.value = "";
    const text = ngettext("%(count)s word sent: see each verdict below.", "%(count)s words sent: see each verdict below.", words.length);
    this.el.sent.textContent = text;
    announce(text);
  }

  /** Show what the phase asks of the player; `isHost` adds what the host does next. */
  render(phase, isHost) {
    const { note, form } = this.el;
    note.hidden = phase === null;
    form.hidden = phase !== "lists";
    if (phase === "writing") {
      note.textContent = isHost
        ? gettext("Write your words on paper. When the time is up (or you say so), everyone types their list in.")
        : gettext("Write your words on paper. When the time is up, type your list in here.");
    } else if (phase === "lists") {
      note.textContent = isHost
        ? gettext("Time's up! Type in the words you wrote. When everyone has, score the lists.")
        : gettext("Time's up! Type in the words you wrote; the host scores the lists.");
    }
    if (phase !== this.phase) {
      const previous = this.phase;
      this.phase = phase;
      if (phase === "lists" && previous === "writing") {
        this.el.sent.textContent = "";
        announce(gettext("Time's up. Type in the words you wrote."));
        this.el.words.focus();
      }
    }
  }

  /** The host's button in this phase: stop the writing, then score the lists. */
  endLabel(phase) {
    if (phase === "writing") return gettext("Time's up");
    if (phase === "lists") return gettext("Score the lists");
    return null;
  }
}
