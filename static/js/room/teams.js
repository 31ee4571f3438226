// Teams mode: two to four teams in one room, against each other (docs/api.md, "Teams").
// Who is in which team (between rounds the players' `team`, during a round the round's
// `teams`), each team's total over the game (the state's `teams`, kept by the store from
// the results), and how a team looks: its name with a shape and a colour of its own, never
// the colour alone (site.css, "Teams mode"). Used by the room page and the table screen.
// Co-op mode's one team is team.js.

import { h } from "../lib/dom.js";
import { gettext } from "../lib/i18n.js";

// Each team's shape, beside its colour and its name: told apart without colour too.
const SHAPES = ["●", "▲", "■", "◆"];

/** Whether a round dict is of a teams round. */
export function isTeams(round) {
  return Boolean(round && round.mode === "teams");
}

/** "Team 2" in the page's language. */
export function teamName(team) {
  return gettext("Team %(number)s", { number: team });
}

/** A team's mark: its shape in its colour, and its name (`short`: the number only, with
 * the name for screen readers). */
export function teamMark(team, { className = "", short = false } = {}) {
  return h(
    "span",
    { class: `team-mark team-${team} ${className}`.trim(), dataset: { team } },
    h("span", { class: "team-shape", "aria-hidden": "true", text: SHAPES[(team - 1) % SHAPES.length] }),
    short
      ? [h("span", { class: "team-number", "aria-hidden": "true", text: String(team) }), h("span", { class: "visually-hidden", text: teamName(team) })]
      : h("span", { class: "team-name", text: teamName(team) }),
  );
}

/** Whether the room page shows teams now: during a round, when the round is a teams
 * round; between rounds, when the room is set to play in teams. */
export function teamsShown(state) {
  const round = state.round;
  if (round && round.status !== "ended") return isTeams(round);
  return Boolean(state.settings && state.settings.mode === "teams");
}

/** A player's team: the round's while a teams round is under way (a newcomer's is the
 * player's own), else the player's own; null when none. */
export function teamOf(state, playerId) {
  const round = state.round;
  if (isTeams(round) && round.status !== "ended" && round.teams) {
    const team = round.teams[String(playerId)];
    if (team) return team;
  }
  const player = state.players.find((entry) => entry.id === playerId);
  return (player && player.team) || null;
}

/** Each team's total over the game so far (team number → points). */
export function teamTotals(state) {
  return new Map((state.teams || []).map((entry) => [entry.team, entry.total_points || 0]));
}

/**
 * The teams as the players' list and the table screen show them: every team in number
 * order with its players (the state's order), its total over the game and, during a
 * round, its players' words so far (`round.counts`). Null when teams are not shown.
 */
export function teamGroups(state) {
  if (!teamsShown(state)) return null;
  const round = state.round;
  const playing = round && round.status !== "ended";
  let count = (state.settings && state.settings.team_count) || 2;
  if (playing && round.teams) count = Math.max(0, ...Object.values(round.teams));
  const totals = teamTotals(state);
  const counts = state.counts || {};
  const groups = [];
  for (let team = 1; team <= count; team += 1) groups.push({ team, players: [], total_points: totals.get(team) || 0, words: 0 });
  const loose = [];
  for (const player of state.players) {
    const team = teamOf(state, player.id);
    const group = groups[team - 1];
    if (group) {
      group.players.push(player);
      group.words += counts[String(player.id)] || 0;
    } else {
      loose.push(player); // not placed yet (the server places everyone: a moment)
    }
  }
  return { groups, loose };
}

/** The state's teams with the totals of a round's results (`results.teams`) taken in:
 * the totals the server counted through that round. */
export function withResultTotals(teams, resultTeams) {
  if (!resultTeams) return teams;
  const byTeam = new Map((teams || []).map((entry) => [entry.team, { ...entry }]));
  for (const row of resultTeams) {
    const entry = byTeam.get(row.team) || { team: row.team, player_ids: row.player_ids || [] };
    entry.total_points = row.total_points;
    byTeam.set(row.team, entry);
  }
  return [...byTeam.values()].sort((a, b) => a.team - b.team);
}

/** "Team 1 wins!" or "Team 1 and Team 2 tie!" from teams ranked with `rank` (null: none). */
export function teamsHeadline(teams) {
  if (!teams || !teams.length) return null;
  const top = teams.filter((entry) => entry.rank === 1).map((entry) => teamName(entry.team));
  if (top.length === 1) return gettext("%(team)s wins!", { team: top[0] });
  return gettext("%(names)s and %(last)s tie!", { names: top.slice(0, -1).join(", "), last: top[top.length - 1] });
}

/** A player's team in an ended round's results (`round.teams`), or null. */
export function resultTeam(results, playerId) {
  const teams = results && results.round && results.round.teams;
  return (teams && teams[String(playerId)]) || null;
}

/**
 * The teams of a round's results ranked (`results.teams`): place, team with its players,
 * the round's points and the total over the game. `nickname(id)` names a player; `mine`:
 * my team, marked. `title` heads the card (`id` its heading's id).
 */
export function teamRanking(rows, { nickname, mine = null, id = "teams-title", className = "" } = {}) {
  const body = rows.map((row) => {
    const won = row.rank === 1 && row.round_points > 0;
    return h(
      "tr",
      { class: `team-row team-${row.team}${row.team === mine ? " mine" : ""}`, dataset: { team: row.team } },
      h("td", { class: "rank" }, won ? h("span", { class: "trophy", "aria-hidden": "true", text: "★ " }) : null, String(row.rank)),
      h(
        "th",
        { scope: "row", class: "who" },
        teamMark(row.team),
        row.team === mine ? h("span", { class: "badge you", text: gettext("your team") }) : null,
        h("span", { class: "team-players", text: (row.player_ids || []).map((playerId) => nickname(playerId)).join(", ") }),
      ),
      h("td", { class: "num", text: row.round_points }),
      h("td", { class: "num total", text: row.total_points }),
    );
  });
  return h(
    "section",
    { class: `card teams-card ${className}`.trim(), "aria-labelledby": id },
    h("h2", { id, text: gettext("Teams") }),
    h(
      "table",
      { class: "scoreboard teams-ranking" },
      h(
        "thead",
        {},
        h(
          "tr",
          {},
          h("th", { scope: "col", class: "rank", text: "#" }),
          h("th", { scope: "col", text: gettext("Team") }),
          h("th", { scope: "col", class: "num", text: gettext("Round") }),
          h("th", { scope: "col", class: "num", text: gettext("Total") }),
        ),
      ),
      h("tbody", {}, ...body),
    ),
  );
}
