// The room's history card: its ended rounds (each opens its read-only results page), every
// player's stats over the game (words, points, best word, share of the maximum, longest
// word) and the game's awards (awards.js). Fetched from the API (docs/api.md, "Rounds",
// "Game stats") when the page opens and again whenever a round ends or is scored again.
// After a rematch, a choice of game shows an earlier game's stats and awards; until the new
// game has an ended round, the latest game that has one is shown.

import { getJSON } from "../lib/api.js";
import { h } from "../lib/dom.js";
import { tableHead } from "../lib/table.js";
import { gettext, ngettext } from "../lib/i18n.js";
import { awardsSection } from "./awards.js";
import { faceText, percentText, pointsText, roundInGame } from "./format.js";
import { roundLink } from "./share-round.js";

/** A board in one line, row by row, as its dice read: "CATS QuIEX DOGZ WENT". */
function boardText(grid) {
  return grid.map((row) => row.map((face) => faceText(face) || "·").join("")).join(" ");
}

/** The games that have ended rounds in the room's rounds list, the latest first. */
function playedGames(rounds) {
  return [...new Set(rounds.map((round) => round.game || 1))].sort((a, b) => b - a);
}

/** What a listed round came to: the co-op team's share, the winning team, or the winners. */
function roundOutcome(round) {
  if (round.mode === "coop" && round.team) {
    const { found, total } = round.team;
    const goal = percentText(round.team.goal / 100);
    return round.team.reached
      ? gettext("Team: %(found)s of %(total)s words, goal %(goal)s reached", { found, total, goal })
      : gettext("Team: %(found)s of %(total)s words, goal %(goal)s missed", { found, total, goal });
  }
  if (round.mode === "teams" && round.winning_teams && round.winning_teams.length) {
    const teams = round.winning_teams.join(", ");
    return ngettext("Team %(teams)s won", "Teams %(teams)s tied", round.winning_teams.length, { teams });
  }
  const names = round.winners.map((winner) => winner.nickname).join(", ");
  return round.winners.length
    ? ngettext("%(names)s won with %(points)s", "%(names)s tied with %(points)s", round.winners.length, {
        names,
        points: pointsText(round.top_points),
      })
    : gettext("Nobody scored");
}

export class HistoryView {
  constructor(card, { code }) {
    this.card = card;
    this.code = code;
    this.body = card.querySelector(".history-body");
    this.key = null;
    this.loading = null;
    this.game = null; // the room's current game
    this.chosen = null; // the game whose stats the player picked (null: the latest played)
  }

  /** Called on every store change: loads again when the latest results changed. */
  render(store) {
    this.store = store;
    this.you = store.you;
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
    if (game !== this.game) {
      this.game = game;
      this.chosen = null; // a new game: its stats, once it has some
    }
    const points = results ? results.players.map((entry) => `${entry.id}=${entry.round_points}`).join(",") : "";
    const key = `${game}:${results ? results.round.number : 0}:${points}:${this.chosen || ""}`;
    if (key === this.key) return;
    this.key = key;
    this.load();
  }

  async load() {
    const key = this.key;
    try {
      const [{ rounds }, current] = await Promise.all([
        getJSON(`/api/rooms/${this.code}/rounds`),
        getJSON(`/api/rooms/${this.code}/stats`),
      ]);
      let { stats } = current;
      const game = this.shownGame(rounds, stats);
      if (game !== stats.game) ({ stats } = await getJSON(`/api/rooms/${this.code}/stats?game=${game}`));
      if (key !== this.key) return; // a newer load is on its way
      this.draw(rounds, stats);
    } catch {
      if (key !== this.key) return;
      this.key = null; // try again on the next change
      this.body.replaceChildren(h("p", { class: "hint", text: gettext("Could not load the earlier rounds.") }));
    }
  }

  /** The game whose stats show: the one picked, else the current game once it has an ended
   * round, else the latest game that has one. */
  shownGame(rounds, current) {
    const games = playedGames(rounds);
    if (this.chosen && games.includes(this.chosen)) return this.chosen;
    if (current.rounds || !games.length) return current.game;
    return games[0];
  }

  draw(rounds, stats) {
    this.card.hidden = rounds.length === 0;
    if (!stats.rounds) {
      this.body.replaceChildren(this.roundList(rounds));
      return;
    }
    const games = playedGames(rounds);
    // The number players see for each of the shown game's rounds.
    const inGame = new Map(rounds.map((round) => [round.number, roundInGame(round)]));
    const awards = awardsSection(stats.awards, {
      id: "history-awards-title",
      level: 3,
      you: this.you,
      roundNumber: (number) => inGame.get(number) || number,
      className: "history-awards",
    });
    const refocus = document.activeElement && document.activeElement.id === "history-game";
    this.body.replaceChildren(
      this.roundList(rounds),
      this.statsTable(stats, games.length > 1 ? this.gamePicker(games, stats.game) : null),
      ...(awards ? [awards] : []),
    );
    if (refocus) this.body.querySelector("#history-game").focus();
  }

  /** After a rematch: which game's stats and awards to show. */
  gamePicker(games, shown) {
    const select = h(
      "select",
      {
        id: "history-game",
        on: {
          change: () => {
            this.chosen = Number(select.value);
            this.key = null;
            this.render(this.store);
          },
        },
      },
      ...games.map((game) =>
        h("option", {
          value: String(game),
          selected: game === shown,
          text: game === this.game ? gettext("Game %(game)s (this game)", { game }) : gettext("Game %(game)s", { game }),
        }),
      ),
    );
    return h("div", { class: "field history-game" }, h("label", { for: "history-game", text: gettext("Stats and awards of") }), select);
  }

  roundList(rounds) {
    const games = new Set(rounds.map((round) => round.game || 1));
    const items = rounds.map((round) => {
      // Rounds of several games (rematches in this room): say which game each was in.
      const title =
        games.size > 1
          ? gettext("Game %(game)s, round %(number)s", { game: round.game, number: roundInGame(round) })
          : gettext("Round %(number)s", { number: round.number });
      const outcome = roundOutcome(round);
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

  statsTable(stats, picker) {
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
      picker,
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
