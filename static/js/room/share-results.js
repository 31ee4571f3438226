// Sharing a round's results: a text summary (ranking, points, best words, the board) to the
// phone's share sheet (messages, chat apps), or copied where there is none.

import { h } from "../lib/dom.js";
import { gettext, ngettext } from "../lib/i18n.js";
import { copyText } from "./share.js";
import { teamResultText } from "./team.js";
import { teamName } from "./teams.js";

/** The results in a few lines of plain text, for a chat message. */
export function resultsSummary(results) {
  const round = results.round;
  const lines = [
    gettext("Boggle, round %(number)s (%(size)s): %(board)s", {
      number: round.number,
      size: `${round.rows}x${round.cols}`,
      board: round.board.toUpperCase(),
    }),
  ];
  results.players.forEach((player, index) => {
    const best = player.words.find((word) => !word.cancelled);
    const words = ngettext("%(count)s word", "%(count)s words", player.words.length);
    const bestText = best ? gettext(", best %(word)s", { word: best.word.toUpperCase() }) : "";
    const points = gettext("%(points)s pts", { points: player.round_points });
    lines.push(`${index + 1}. ${player.nickname}: ${points} (${words}${bestText})`);
  });
  if (results.team) {
    // A co-op round: the team's result first of all.
    const team = teamResultText(results.team);
    lines.splice(1, 0, `${team.title} ${team.text} ${team.points}`);
  }
  if (results.teams) {
    // A teams round: the teams' ranking before the players'.
    const teams = results.teams.map((row) =>
      gettext("%(rank)s. %(team)s: %(points)s pts (total %(total)s)", {
        rank: row.rank,
        team: teamName(row.team),
        points: row.round_points,
        total: row.total_points,
      }),
    );
    lines.splice(1, 0, ...teams);
  }
  lines.push(
    gettext("The board had %(words)s words worth %(points)s pts.", {
      words: results.word_count,
      points: results.max_points,
    }),
  );
  return lines.join("\n");
}

/** A button (with its status line) that shares or copies `resultsSummary(results)`. */
export function shareResultsButton(results) {
  const status = h("p", { class: "hint share-results-status", role: "status" });
  const button = h("button", { type: "button", class: "button share-results", text: gettext("Share the results") });
  button.addEventListener("click", async () => {
    const text = resultsSummary(results);
    if (typeof navigator.share === "function") {
      try {
        await navigator.share({ title: gettext("Boggle round %(number)s", { number: results.round.number }), text });
        return;
      } catch (failure) {
        if (failure && failure.name === "AbortError") return; // the player closed the sheet
      }
    }
    status.textContent = (await copyText(text)) ? gettext("Results copied ✓") : gettext("Could not copy the results");
  });
  return h("div", { class: "share-results-box" }, button, status);
}
