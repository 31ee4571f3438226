// Sharing a round's results: a text summary (ranking, points, best words, the board) to the
// phone's share sheet (messages, chat apps), or copied where there is none.

import { h } from "../lib/dom.js";
import { copyText } from "./share.js";

/** The results in a few lines of plain text, for a chat message. */
export function resultsSummary(results) {
  const round = results.round;
  const lines = [`Boggle, round ${round.number} (${round.rows}x${round.cols}): ${round.board.toUpperCase()}`];
  results.players.forEach((player, index) => {
    const best = player.words.find((word) => !word.cancelled);
    const words = player.words.length === 1 ? "1 word" : `${player.words.length} words`;
    const bestText = best ? `, best ${best.word.toUpperCase()}` : "";
    lines.push(`${index + 1}. ${player.nickname}: ${player.round_points} pts (${words}${bestText})`);
  });
  lines.push(`The board had ${results.word_count} words worth ${results.max_points} pts.`);
  return lines.join("\n");
}

/** A button (with its status line) that shares or copies `resultsSummary(results)`. */
export function shareResultsButton(results) {
  const status = h("p", { class: "hint share-results-status", role: "status" });
  const button = h("button", { type: "button", class: "button share-results", text: "Share the results" });
  button.addEventListener("click", async () => {
    const text = resultsSummary(results);
    if (typeof navigator.share === "function") {
      try {
        await navigator.share({ title: `Boggle round ${results.round.number}`, text });
        return;
      } catch (failure) {
        if (failure && failure.name === "AbortError") return; // the player closed the sheet
      }
    }
    status.textContent = (await copyText(text)) ? "Results copied ✓" : "Could not copy the results";
  });
  return h("div", { class: "share-results-box" }, button, status);
}
