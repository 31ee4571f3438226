// Turning the board, as players turn a real tray to see it from another side: a quarter
// turn clockwise per tap, remembered for the round (per room, in this browser) so that a
// reload or a dropped connection keeps it; the next round starts as rolled.

import { load, save } from "../lib/storage.js";

const keyOf = (code) => `boggle.turn.${code}`;

/** The quarter turns saved for this room's round `roundNumber` (0 when none); any integer,
 * as BoardView.turn takes it. */
export function savedTurns(code, roundNumber) {
  const saved = load(keyOf(code));
  return saved && saved.round === roundNumber && Number.isInteger(saved.turns) ? saved.turns : 0;
}

export function saveTurns(code, roundNumber, turns) {
  save(keyOf(code), { round: roundNumber, turns });
}
