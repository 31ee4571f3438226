// "Play this board again": from a round's results, a new room on the same board, with the
// round's rules. The player creates it (POST /api/rooms with `board`, docs/api.md) under
// their nickname, hosts it, and goes there; its first round plays the board.

import { ApiError, postJSON } from "../lib/api.js";
import { h } from "../lib/dom.js";
import { gettext } from "../lib/i18n.js";

/** The settings a new room copies from an ended round (the board gives the size). */
export function replaySettings(round) {
  return {
    round_seconds: round.round_seconds,
    min_length: round.min_length,
    dictionary: round.dictionary,
    cancel_duplicates: round.cancel_duplicates,
    instant_verdicts: round.instant_verdicts,
  };
}

/** A button (with its error line) that starts a new room on `results.round`'s board. */
export function replayButton(store, results) {
  const error = h("p", { class: "form-error replay-error", role: "alert", hidden: true });
  const button = h("button", { type: "button", class: "button replay-board", text: gettext("Play this board again") });
  button.addEventListener("click", async () => {
    const round = results.round;
    const nickname = store.you !== null ? store.nickname(store.you) : "";
    button.disabled = true;
    button.textContent = gettext("Creating a room…");
    error.hidden = true;
    try {
      const { room } = await postJSON("/api/rooms", { nickname, settings: replaySettings(round), board: round.board });
      window.location.assign(`/r/${room.code}/`);
    } catch (failure) {
      error.textContent = failure instanceof ApiError ? failure.message : gettext("Something went wrong. Please try again.");
      error.hidden = false;
      button.disabled = false;
      button.textContent = gettext("Play this board again");
    }
  });
  return h(
    "div",
    { class: "replay" },
    button,
    h("p", { class: "hint", text: gettext("A new room where you host, on this very board.") }),
    error,
  );
}
