// An ended round's results, read-only (the page a shared link opens): the board, the
// scoreboard, each player's words and every word on the board by length. Picking a word
// lights its path on the board. It offers no action: no votes, challenges or rounds.
// What it draws is drawn as the room's results draw it (room/words-list.js).

import { h } from "../lib/dom.js";
import { gettext, ngettext } from "../lib/i18n.js";
import { pointsText } from "../room/format.js";
import { teamBanner } from "../room/team.js";
import { teamRanking } from "../room/teams.js";
import { RoundWords } from "../room/words-list.js";

export class RoundView extends RoundWords {
  constructor(body, results) {
    super(body);
    this.results = results;
    this.nicknames = new Map(results.players.map((entry) => [entry.id, entry.nickname]));
  }

  nickname(id) {
    return this.nicknames.get(id) || gettext("someone");
  }

  /** The line under the title: how much the board held. */
  summary() {
    const { word_count: count, max_points: points } = this.results;
    return ngettext("The board had %(count)s word worth %(points)s.", "The board had %(count)s words worth %(points)s.", count, {
      points: pointsText(points),
    });
  }

  render() {
    const results = this.results;
    const boardCard = this.boardCard(results, gettext("Round %(number)s's board", { number: results.round.number }));
    this.body.replaceChildren(
      // A co-op round: whether the team reached its goal (room/team.js); a teams round:
      // the teams ranked (room/teams.js). (Never a null: replaceChildren would write it.)
      ...(results.team ? [teamBanner(results.team)] : []),
      ...(results.teams ? [teamRanking(results.teams, { nickname: (id) => this.nickname(id) })] : []),
      h(
        "div",
        { class: "results-layout" },
        this.scoreboard(results),
        boardCard,
        this.playersWords(results),
        this.allWords(results, (entry) => this.names(entry.found_by)),
      ),
    );
  }
}
