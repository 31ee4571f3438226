// The table screen's results: the ranking (round points, words, running total), each
// player's words found (cancelled ones struck through, with a note, not by colour alone),
// the board, and the best words nobody found. Once the host ended the game: first the final
// standing and the game's awards (room/awards.js), big.

import { h } from "../lib/dom.js";
import { tableHead } from "../lib/table.js";
import { gettext } from "../lib/i18n.js";
import { awardsSection, roundInGameFrom } from "../room/awards.js";
import { BoardView } from "../room/board.js";
import { teamBanner, teamResultText } from "../room/team.js";
import { chessOutcomeText, isChess } from "../room/chess.js";
import { resultTeam, teamMark, teamName, teamsHeadline } from "../room/teams.js";
import { countedWords, ordinal, percentText, pointsText, roundInGame, roundRanks, roundsText, wordsText } from "../room/format.js";

// How many of the best words nobody found are shown.
const MISSED_SHOWN = 8;

export class TableResults {
  constructor(root, store) {
    this.root = root;
    this.store = store;
    this.title = root.querySelector("#table-results-title");
    this.summary = root.querySelector("#table-results-summary");
    this.body = root.querySelector("#table-results-body");
    this.results = null;
  }

  render() {
    const results = this.store.state.results;
    const standing = this.store.state.standing || null; // set once the host ended the game
    if (!results || (results === this.results && standing === this.standing)) return;
    this.results = results;
    this.standing = standing;
    this.title.textContent = standing
      ? gettext("Final standing")
      : gettext("Round %(number)s results", { number: roundInGame(results.round) });
    const best = this.roundHeadline(results);
    const total = gettext("The board had %(words)s worth %(points)s.", {
      words: wordsText(results.word_count),
      points: pointsText(results.max_points),
    });
    // Co-op: the team's result first, in big (the banner), not who won.
    const team = results.team || null;
    let headline = team ? `${teamResultText(team).points}. ` : best;
    if (results.teams) headline = this.teamsRoundHeadline(results.teams);
    // Chess clock: who won the game of turns, not who scored most.
    if (isChess(results.round)) headline = `${chessOutcomeText(results, (id) => this.store.nickname(id))} `;
    this.summary.textContent = standing ? this.standingHeadline(standing) : `${headline}${total}`;
    // Until the whole results arrive (the store's completeResults): the ranking only.
    const complete = results.complete !== false;
    const loading = h("p", { class: "table-none", role: "status", text: gettext("Loading everyone's words…") });
    const boardBox = h("div", { class: "table-results-board" });
    const boardView = new BoardView(boardBox, { label: gettext("This round's board") });
    boardView.setBoard(results.round);
    this.body.replaceChildren(
      ...(standing ? [this.teamsStanding(standing), this.finalStanding(standing), this.awards(standing)].filter(Boolean) : []),
      // (Never a null: replaceChildren would write it.)
      ...(team ? [teamBanner(team, { className: "table-team-banner" })] : []),
      h(
        "div",
        { class: "table-results-main" },
        results.teams ? this.teamsRanking(results) : null,
        this.ranking(results),
        complete ? this.wordsFound(results) : loading,
      ),
      h("div", { class: "table-results-aside" }, boardBox, complete ? this.missed(results) : null),
    );
  }

  /** "Ann wins with 6 pts. ", or every player on the top score: "Ann and Bob tie with 6 pts. "
   * (players come best first); nothing when nobody scored. */
  roundHeadline(results) {
    const top = results.players.length ? results.players[0].round_points : 0;
    if (top <= 0) return "";
    const names = results.players.filter((entry) => entry.round_points === top).map((entry) => entry.nickname);
    const points = pointsText(top);
    if (names.length === 1) return gettext("%(nickname)s wins with %(points)s. ", { nickname: names[0], points });
    return gettext("%(names)s and %(last)s tie with %(points)s. ", { names: names.slice(0, -1).join(", "), last: names.at(-1), points });
  }

  /** A teams round: "Team 1 wins the round with 6 pts. " or "Team 1 and Team 2 tie with 6 pts. ". */
  teamsRoundHeadline(teams) {
    const top = teams.filter((row) => row.rank === 1);
    if (!top.length || top[0].round_points <= 0) return "";
    const points = pointsText(top[0].round_points);
    const names = top.map((row) => teamName(row.team));
    if (names.length === 1) return gettext("%(team)s wins the round with %(points)s. ", { team: names[0], points });
    return gettext("%(names)s and %(last)s tie with %(points)s. ", { names: names.slice(0, -1).join(", "), last: names.at(-1), points });
  }

  /** A teams round's teams ranked: round points and total over the game, with their players. */
  teamsRanking(results) {
    const nickname = (id) => (results.players.find((entry) => entry.id === id) || {}).nickname || this.store.nickname(id);
    const rows = results.teams.map((row) =>
      h(
        "tr",
        { class: `team-row team-${row.team}${row.rank === 1 && row.round_points > 0 ? " winner" : ""}`, dataset: { team: row.team } },
        h("td", { class: "rank", text: ordinal(row.rank) }),
        h("th", { scope: "row", class: "team-cell" }, teamMark(row.team), h("span", { class: "table-team-players-inline", text: (row.player_ids || []).map(nickname).join(", ") })),
        h("td", { class: "num points", text: row.round_points }),
        h("td", { class: "num total", text: row.total_points }),
      ),
    );
    return h(
      "table",
      { class: "table-ranking table-teams-ranking", "aria-label": gettext("Teams") },
      tableHead([
        { text: "#", class: "rank" },
        { text: gettext("Team") },
        { text: gettext("Round"), class: "num" },
        { text: gettext("Total"), class: "num" },
      ]),
      h("tbody", {}, ...rows),
    );
  }

  /** The game's teams ranked by total points (`standing.teams`), big; none: nothing. */
  teamsStanding(standing) {
    if (!standing.teams || !standing.teams.length) return null;
    const rows = standing.teams.map((row) =>
      h(
        "li",
        { class: `table-standing-row team-${row.team}${row.rank === 1 ? " winner" : ""}`, dataset: { team: row.team } },
        h("span", { class: "table-standing-rank", text: row.rank === 1 ? `★ ${ordinal(row.rank)}` : ordinal(row.rank) }),
        h("span", { class: "table-standing-name" }, teamMark(row.team)),
        h("span", { class: "table-standing-points", text: pointsText(row.total_points) }),
      ),
    );
    return h(
      "section",
      { class: "table-standing table-teams-standing", "aria-labelledby": "table-teams-standing-title" },
      h("h2", { id: "table-teams-standing-title", text: gettext("The teams' totals") }),
      h("ol", { class: "table-standing-list" }, ...rows),
    );
  }

  /** "Ann wins!" or "Ann and Bob share the win!", after the game's last round. */
  standingHeadline(standing) {
    if (standing.teams && standing.teams.length) {
      return `${teamsHeadline(standing.teams)} ${gettext("The game is over after %(rounds)s.", { rounds: roundsText(standing.rounds) })}`;
    }
    const winners = standing.players.filter((entry) => (standing.winners || []).includes(entry.id));
    const names = winners.map((entry) => entry.nickname);
    const rounds = roundsText(standing.rounds);
    if (names.length === 0) return gettext("The game is over after %(rounds)s.", { rounds });
    if (names.length === 1) {
      return gettext("%(nickname)s wins after %(rounds)s! The host can start a new game in this room.", { nickname: names[0], rounds });
    }
    return gettext("%(names)s and %(last)s share the win after %(rounds)s! The host can start a new game in this room.", {
      names: names.slice(0, -1).join(", "),
      last: names.at(-1),
      rounds,
    });
  }

  /** The game's final ranking by total points, the winners marked (not by colour alone). */
  finalStanding(standing) {
    const winners = new Set(standing.winners || []);
    const rows = standing.players.map((entry) =>
      h(
        "li",
        { class: winners.has(entry.id) ? "table-standing-row winner" : "table-standing-row" },
        h("span", { class: "table-standing-rank", text: winners.has(entry.id) ? `★ ${ordinal(entry.rank)}` : ordinal(entry.rank) }),
        h("span", { class: "table-standing-name", text: entry.nickname }),
        h("span", { class: "table-standing-points", text: pointsText(entry.total_points) }),
      ),
    );
    return h(
      "section",
      { class: "table-standing", "aria-labelledby": "table-standing-title" },
      h("h2", { id: "table-standing-title", text: gettext("The game's totals") }),
      h("ol", { class: "table-standing-list" }, ...rows),
    );
  }

  /** The game's awards, for everyone to read from across the table (none: nothing). */
  awards(standing) {
    return awardsSection(standing.awards, {
      id: "table-awards-title",
      level: 2,
      roundNumber: roundInGameFrom(this.store.round),
      className: "table-awards",
    });
  }

  ranking(results) {
    const ranks = roundRanks(results.players, results.round);
    const rows = results.players.map((entry, index) => {
      const rank = ranks[index];
      const counted = countedWords(entry);
      return h(
        "tr",
        { class: rank === 1 && entry.round_points > 0 ? "winner" : null, dataset: { player: entry.id } },
        h("td", { class: "rank", text: ordinal(rank) }),
        h(
          "th",
          { scope: "row", class: "nickname" },
          resultTeam(results, entry.id) ? teamMark(resultTeam(results, entry.id), { short: true, className: "team-badge" }) : null,
          entry.nickname,
        ),
        h("td", { class: "num words", text: counted }),
        h("td", { class: "num points", text: entry.round_points }),
        h("td", { class: "num total", text: entry.total_points }),
        h("td", { class: "num share", text: percentText(entry.share_of_max) }),
      );
    });
    return h(
      "table",
      { class: "table-ranking" },
      tableHead([
        { text: "#", class: "rank" },
        { text: gettext("Player") },
        { text: gettext("Words"), class: "num" },
        { text: gettext("Round"), class: "num" },
        { text: gettext("Total"), class: "num" },
        { text: gettext("Of max"), class: "num" },
      ]),
      h("tbody", {}, ...rows),
    );
  }

  wordsFound(results) {
    const blocks = results.players.map((entry) =>
      h(
        "section",
        { class: "table-player-words", dataset: { player: entry.id } },
        h("h2", { text: entry.nickname }),
        entry.words.length
          ? h(
              "ul",
              { class: "table-words" },
              ...entry.words.map((word) =>
                h(
                  "li",
                  { class: `table-word${word.cancelled ? " cancelled" : ""}`, dataset: { word: word.word } },
                  word.cancelled ? h("s", { text: word.word }) : word.word,
                  h("span", { class: "table-word-points", text: word.cancelled ? gettext(" shared, 0") : ` +${word.points}` }),
                ),
              ),
            )
          : h("p", { class: "table-none", text: gettext("No words this round.") }),
      ),
    );
    return h("div", { class: "table-words-grid" }, ...blocks);
  }

  missed(results) {
    const missed = results.solution.filter((entry) => !entry.found_by.length).slice(0, MISSED_SHOWN);
    if (!missed.length) return null;
    return h(
      "section",
      { class: "table-missed" },
      h("h2", { text: gettext("Best words nobody found") }),
      h("ul", { class: "table-words" }, ...missed.map((entry) => h("li", { class: "table-word", text: `${entry.word} +${entry.points}` }))),
    );
  }
}
