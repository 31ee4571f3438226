// The room's history card: its ended rounds (each opens its read-only results page) and
// every player's stats over the game (words, points, best word, share of the maximum,
// longest word). Fetched from the API (docs/api.md, "Rounds", "Game stats") when the page
// opens and again whenever a round ends or is scored again.

import { getJSON } from "../lib/api.js";
import { h } from "../lib/dom.js";
import { tableHead } from "../lib/table.js";
import { gettext, ngettext } from "../lib/i18n.js";
import { faceText, percentText, pointsText, roundInGame } from "./format.js";
import { roundLink } from "./share-round.js";

/** A board in one line, row by row, as its dice read: "CATS QuIEX DOGZ WENT". */
function boardText(grid) {
  return grid.map((row) => row.map((face) => faceText(face) || "·").join("")).join(" ");
}

export class HistoryView {
  constructor(card, { code }) {
    this.card = card;
    this.code = code;
    this.body = card.querySelector(".history-body");
    this.key = null;
    this.loading = null;
  }

  /** Called on every store change: loads again when the latest results changed. */
  render(store) {
    const results = store.state.results;
    const round = store.state.round;
    const game = store.state.game || 1;
    // Nothing ended yet (a first round running or none played): nothing to list. After a
    // new game (a rematch) the earlier games' rounds stay listed.
    const anyEnded = results || (round && round.number > 1) || game > 1;
    if (!anyEnded) {
      this.card.hidden = true;
      return;
    }
    const points = results ? results.players.map((entry) => `${entry.id}=${entry.round_points}`).join(",") : "";
    const key = `${game}:${results ? results.round.number : 0}:${points}`;
    if (key === this.key) return;
    this.key = key;
    this.load();
  }

  async load() {
    const key = this.key;
    try {
      const [{ rounds }, { stats }] = await Promise.all([
        getJSON(`/api/rooms/${this.code}/rounds`),
        getJSON(`/api/rooms/${this.code}/stats`),
      ]);
      if (key !== this.key) return; // a newer load is on its way
      this.draw(rounds, stats);
    } catch {
      if (key !== this.key) return;
      this.key = null; // try again on the next change
      this.body.replaceChildren(h("p", { class: "hint", text: gettext("Could not load the earlier rounds.") }));
    }
  }

  draw(rounds, stats) {
    this.card.hidden = rounds.length === 0;
    // A new game with no round played yet has no stats: its rounds come first once played.
    this.body.replaceChildren(...(stats.rounds ? [this.roundList(rounds), this.statsTable(stats)] : [this.roundList(rounds)]));
  }

  roundList(rounds) {
    const games = new Set(rounds.map((round) => round.game || 1));
    const items = rounds.map((round) => {
      // Rounds of several games (rematches in this room): say which game each was in.
      const title =
        games.size > 1
          ? gettext("Game %(game)s, round %(number)s", { game: round.game, number: roundInGame(round) })
          : gettext("Round %(number)s", { number: round.number });
      const names = round.winners.map((winner) => winner.nickname).join(", ");
      const outcome = round.winners.length
        ? ngettext("%(names)s won with %(points)s", "%(names)s tied with %(points)s", round.winners.length, {
            names,
            points: pointsText(round.top_points),
          })
        : gettext("Nobody scored");
      return h(
        "li",
        { dataset: { round: round.number } },
        h(
          "a",
          { href: roundLink(this.code, round.number), target: "_blank", rel: "noopener", class: "history-round" },
          h("span", { class: "history-round-title", text: title }),
          h("span", { class: "history-round-board", text: boardText(round.grid) }),
          h("span", { class: "history-round-outcome", text: outcome }),
        ),
      );
    });
    return h(
      "section",
      { class: "history-rounds", "aria-labelledby": "history-rounds-title" },
      h("h3", { id: "history-rounds-title", text: gettext("Rounds") }),
      h("p", { class: "hint", text: gettext("Open a round to see its board, words and paths (in a new tab).") }),
      h("ol", { class: "history-round-list", reversed: true }, ...items),
    );
  }

  statsTable(stats) {
    const rows = stats.players.map((entry) => {
      const details = [];
      if (entry.best_word) {
        details.push(gettext("best %(word)s (%(points)s)", { word: entry.best_word.word.toUpperCase(), points: pointsText(entry.best_word.points) }));
      }
      if (entry.longest_word && entry.longest_word.word !== entry.best_word?.word) {
        details.push(gettext("longest %(word)s", { word: entry.longest_word.word.toUpperCase() }));
      } else if (entry.longest_word) {
        details.push(gettext("also the longest"));
      }
      return h(
        "tr",
        { dataset: { playerId: entry.id } },
        h(
          "th",
          { scope: "row", class: "who" },
          h("span", { class: "nickname", text: entry.nickname }),
          h("span", { class: "stats-words-note", text: details.join(" · ") || gettext("no words yet") }),
        ),
        h("td", { class: "num stats-words", text: entry.words }),
        h("td", { class: "num stats-points", text: entry.points }),
        h("td", { class: "num stats-share", text: percentText(entry.share_of_max) }),
      );
    });
    return h(
      "section",
      { class: "game-stats", "aria-labelledby": "game-stats-title" },
      h("h3", { id: "game-stats-title", text: gettext("Game stats") }),
      h(
        "p",
        { class: "hint" },
        ngettext(
          "Over %(count)s round. Share: points out of the most the boards of their rounds held.",
          "Over %(count)s rounds. Share: points out of the most the boards of their rounds held.",
          stats.rounds,
        ),
      ),
      h(
        "table",
        { class: "scoreboard stats-table" },
        tableHead([
          { text: gettext("Player") },
          { text: gettext("Words"), class: "num" },
          { text: gettext("Points"), class: "num" },
          { text: gettext("Share"), class: "num" },
        ]),
        h("tbody", {}, ...rows),
      ),
    );
  }
}
