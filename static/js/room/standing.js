// The end of the game (docs/api.md, "The end of the game"): between rounds, after at least
// one, the host may end the game (a confirm step first); then everyone sees the final
// standing (ranks, totals, the winners) and the game's awards (awards.js). The host's "New
// game" starts a rematch in this room (`new_game`: same players, link and QR code, scores
// from zero); the others wait for it here, so the group stays together.
//
// Both parts are built here and put into the results panel, so the template stays as is.

import { h } from "../lib/dom.js";
import { tableHead } from "../lib/table.js";
import { gettext } from "../lib/i18n.js";
import { awardsSection, roundInGameFrom } from "./awards.js";
import { ordinal, pointsText, roundsText } from "./format.js";
import { teamMark, teamsHeadline } from "./teams.js";

// How long the confirm step stays open without an answer.
const CONFIRM_MS = 8000;

export class StandingView {
  constructor(resultsPanel, { store, onEndGame, onNewGame }) {
    this.store = store;
    this.onEndGame = onEndGame;
    this.onNewGame = onNewGame;
    this.shown = null; // the standing drawn, to draw it once
    this.confirming = false;
    this.sending = false;
    this.starting = false; // the host's new_game is on its way
    this.nextKey = null; // what the "what next" box shows, to redraw it only on a change
    this.timer = null;

    this.panel = h("section", { id: "standing-panel", class: "card standing", "aria-labelledby": "standing-title", hidden: true });
    resultsPanel.prepend(this.panel);

    this.endBox = h("div", { id: "end-game", class: "end-game", hidden: true });
    const head = resultsPanel.querySelector(".results-head");
    (head || resultsPanel).append(this.endBox);

    store.subscribe((current) => this.render(current));
  }

  render(store) {
    const standing = store.state.standing;
    const inResults = store.phase === "results";
    this.panel.hidden = !(standing && inResults);
    if (!standing) {
      this.shown = null;
      this.starting = false;
    }
    if (standing && standing !== this.shown) {
      this.shown = standing;
      this.nextKey = null;
      this.drawStanding(store, standing);
      if (inResults) {
        // Everyone's page turns to the final standing: start reading there.
        window.scrollTo({ top: 0 });
        this.panel.querySelector("#standing-title").focus({ preventScroll: true });
      }
    }
    if (standing) this.drawNext(store);
    // A daily board's room has one round, nothing to end (daily-room.js links onwards).
    const canEnd = inResults && !standing && !store.state.daily && store.isHost && store.round && store.round.status === "ended";
    if (!canEnd) {
      this.confirming = false;
      this.sending = false;
    }
    this.endBox.hidden = !canEnd;
    if (canEnd && !this.endBox.dataset.state) this.drawEndControl();
    if (!canEnd) delete this.endBox.dataset.state;
  }

  /** The server refused `new_game` (the notice says why): the button works again. */
  newGameFailed() {
    this.starting = false;
    this.drawNext(this.store);
  }

  /** The server refused `end_game` (the notice says why): the button works again. */
  failed() {
    this.sending = false;
    this.confirming = false;
    this.drawEndControl();
  }

  // ------------------------------------------------------------------ the host's control

  drawEndControl() {
    window.clearTimeout(this.timer);
    if (!this.confirming) {
      this.endBox.dataset.state = "idle";
      this.endBox.replaceChildren(
        h("button", {
          type: "button",
          id: "end-game-button",
          class: "button subtle",
          text: gettext("End game"),
          on: {
            click: () => {
              this.confirming = true;
              this.drawEndControl();
              this.endBox.querySelector("#end-game-confirm").focus();
            },
          },
        }),
      );
      return;
    }
    this.endBox.dataset.state = "confirming";
    this.endBox.replaceChildren(
      h(
        "div",
        { class: "end-game-confirm", role: "group", "aria-labelledby": "end-game-question" },
        h("p", {
          id: "end-game-question",
          class: "end-game-question",
          text: gettext("End the game for everyone? The totals become the final standing. Then you can start a new game here with the same players."),
        }),
        h(
          "div",
          { class: "actions" },
          h("button", {
            type: "button",
            id: "end-game-confirm",
            class: "button primary danger",
            disabled: this.sending,
            text: this.sending ? gettext("Ending…") : gettext("Yes, end the game"),
            on: {
              click: () => {
                if (this.onEndGame()) {
                  this.sending = true;
                  this.drawEndControl();
                }
              },
            },
          }),
          h("button", {
            type: "button",
            id: "end-game-cancel",
            class: "button subtle",
            text: gettext("Keep playing"),
            on: {
              click: () => {
                this.confirming = false;
                this.drawEndControl();
                this.endBox.querySelector("#end-game-button").focus();
              },
            },
          }),
        ),
      ),
    );
    if (!this.sending) {
      this.timer = window.setTimeout(() => {
        this.confirming = false;
        if (!this.endBox.hidden) this.drawEndControl();
      }, CONFIRM_MS);
    }
  }

  // ------------------------------------------------------------------ the final standing

  drawStanding(store, standing) {
    const winners = new Set(standing.winners || []);
    const names = standing.players
      .filter((entry) => winners.has(entry.id))
      .map((entry) => (entry.id === store.you ? gettext("you") : entry.nickname));
    let headline;
    if (!names.length) headline = gettext("The game is over.");
    else if (winners.has(store.you) && names.length === 1) headline = gettext("You win!");
    else if (names.length === 1) headline = gettext("%(nickname)s wins!", { nickname: names[0] });
    else {
      headline = gettext("%(names)s and %(last)s share the win!", {
        names: names.slice(0, -1).join(", "),
        last: names[names.length - 1],
      });
    }
    // A game played in teams: the teams' result is the headline, their ranking first.
    const teams = standing.teams && standing.teams.length ? standing.teams : null;
    if (teams) headline = teamsHeadline(teams);
    const rows = standing.players.map((entry) => {
      const isWinner = winners.has(entry.id);
      const teamOfPlayer = standing.teams && entry.team ? entry.team : null;
      const isYou = entry.id === store.you;
      return h(
        "tr",
        { class: [isWinner ? "winner" : "", isYou ? "mine" : ""].filter(Boolean).join(" "), dataset: { playerId: entry.id } },
        h(
          "td",
          { class: "rank" },
          isWinner ? h("span", { class: "trophy", "aria-hidden": "true", text: "★ " }) : null,
          String(entry.rank),
        ),
        h(
          "th",
          { scope: "row", class: "who" },
          h("span", { class: "nickname", text: entry.nickname }),
          isYou ? h("span", { class: "badge you", text: gettext("you") }) : null,
          isWinner ? h("span", { class: "badge winner-badge", text: gettext("winner") }) : null,
          teamOfPlayer ? teamMark(teamOfPlayer, { short: true, className: "team-badge" }) : null,
        ),
        h("td", { class: "num total", text: entry.total_points }),
      );
    });
    // Under the ranking: the game's awards, for others than the winner too.
    const awards = awardsSection(standing.awards, {
      id: "standing-awards-title",
      level: 2,
      you: store.you,
      roundNumber: roundInGameFrom(store.round),
      className: "standing-awards",
    });
    this.next = h("div", { id: "standing-next", class: "standing-next" });
    this.panel.replaceChildren(
      h("h1", { id: "standing-title", class: "standing-title", tabindex: "-1", text: gettext("Final standing") }),
      h("p", { class: "lead standing-headline", text: headline }),
      h("p", { class: "hint", text: gettext("After %(rounds)s, by total points.", { rounds: roundsText(standing.rounds) }) + this.yourPlace(store, standing) }),
      ...(teams ? [this.teamsTable(store, teams), h("h2", { class: "standing-players-title", id: "standing-players-title", text: gettext("Players") })] : []),
      h(
        "table",
        { class: "standing-table", "aria-labelledby": teams ? "standing-players-title" : null },
        tableHead([{ text: "#", class: "rank" }, { text: gettext("Player") }, { text: gettext("Total"), class: "num" }]),
        h("tbody", {}, ...rows),
      ),
      ...(awards ? [awards] : []),
      this.next,
    );
  }

  /** The teams ranked by their points over the game (`standing.teams`), the winners marked. */
  teamsTable(store, teams) {
    const me = store.you !== null ? store.player(store.you) : null;
    const mine = me && me.team ? me.team : null;
    const rows = teams.map((row) => {
      const won = row.rank === 1;
      return h(
        "tr",
        { class: [won ? "winner" : "", row.team === mine ? "mine" : ""].filter(Boolean).join(" "), dataset: { team: row.team } },
        h("td", { class: "rank" }, won ? h("span", { class: "trophy", "aria-hidden": "true", text: "★ " }) : null, String(row.rank)),
        h(
          "th",
          { scope: "row", class: "who" },
          teamMark(row.team),
          row.team === mine ? h("span", { class: "badge you", text: gettext("your team") }) : null,
          won ? h("span", { class: "badge winner-badge", text: gettext("winner") }) : null,
        ),
        h("td", { class: "num total", text: row.total_points }),
      );
    });
    return h(
      "section",
      { class: "standing-teams", "aria-labelledby": "standing-teams-title" },
      h("h2", { id: "standing-teams-title", text: gettext("Teams") }),
      h(
        "table",
        { class: "standing-table teams-standing" },
        tableHead([{ text: "#", class: "rank" }, { text: gettext("Team") }, { text: gettext("Total"), class: "num" }]),
        h("tbody", {}, ...rows),
      ),
    );
  }

  /** What comes next: the host's "New game", or the others waiting for it in this room. */
  drawNext(store) {
    const key = `${store.isHost}:${store.state.host_id}:${this.starting}`;
    if (key === this.nextKey) return;
    this.nextKey = key;
    const startPage = h("a", { class: "button subtle", href: "/", text: gettext("Start page") });
    if (store.isHost) {
      this.next.replaceChildren(
        h("p", {
          class: "standing-note",
          text: gettext("Play again with the same players: a new game starts in this room, with the same link and QR code. Scores start from zero; this game stays in the history."),
        }),
        h(
          "div",
          { class: "actions" },
          h("button", {
            type: "button",
            id: "new-game",
            class: "button primary",
            disabled: this.starting,
            text: this.starting ? gettext("Starting…") : gettext("New game"),
            on: {
              click: () => {
                if (this.onNewGame()) {
                  this.starting = true;
                  this.drawNext(store);
                }
              },
            },
          }),
          startPage,
        ),
      );
      return;
    }
    const host = store.player(store.state.host_id);
    this.next.replaceChildren(
      h("p", { id: "waiting-new-game", class: "standing-waiting", role: "status", text: gettext("Waiting for the host's new game") }),
      h("p", {
        class: "standing-note",
        text: host
          ? gettext("Stay on this page: when %(nickname)s starts a new game, it opens here, with the same players. Scores start from zero.", { nickname: host.nickname })
          : gettext("Stay on this page: when the host starts a new game, it opens here, with the same players. Scores start from zero."),
      }),
      h("div", { class: "actions" }, startPage),
    );
  }

  /** " You finished 2nd with 9 pts." (nothing for a viewer who did not play). */
  yourPlace(store, standing) {
    const you = standing.players.find((entry) => entry.id === store.you);
    if (!you) return "";
    return gettext(" You finished %(place)s with %(points)s.", { place: ordinal(you.rank), points: pointsText(you.total_points) });
  }
}
