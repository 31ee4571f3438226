// Teams mode in the lobby: one button per team at the top of the lobby, beside the "Waiting
// for players" banner, so that a phone sees where to pick a team without scrolling to the
// players' list (which keeps its own "Join Team 2" and the host's "Move to" buttons).
// The player's own team is pressed; another team's button sends `choose_team`.

import { h } from "../lib/dom.js";
import { gettext } from "../lib/i18n.js";
import { playersText } from "./format.js";
import { teamGroups, teamMark, teamOf } from "./teams.js";

export class TeamPicker {
  /** `box`: the lobby's picker element; `onChoose(team)` sends the choice (false: not sent). */
  constructor(box, { onChoose }) {
    this.box = box;
    this.onChoose = onChoose;
  }

  render(store) {
    const { state } = store;
    const teams = store.phase === "lobby" && state.you !== null ? teamGroups(state) : null;
    this.box.hidden = !teams;
    if (!teams) {
      this.box.replaceChildren();
      return;
    }
    const mine = teamOf(state, state.you);
    const focused = this.box.contains(document.activeElement) ? document.activeElement.dataset.team : null;
    const buttons = teams.groups.map((group) =>
      h(
        "button",
        {
          type: "button",
          class: `lobby-team team-${group.team}`,
          "aria-pressed": group.team === mine ? "true" : "false",
          dataset: { team: group.team },
          on: { click: () => group.team !== mine && this.onChoose(group.team) },
        },
        teamMark(group.team),
        h("span", { class: "lobby-team-count", text: playersText(group.players.length) }),
      ),
    );
    this.box.replaceChildren(
      h("p", { id: "lobby-teams-title", class: "lobby-teams-title", text: gettext("Your team") }),
      h("div", { class: "lobby-team-buttons" }, ...buttons),
    );
    if (focused) this.box.querySelector(`button[data-team="${CSS.escape(focused)}"]`)?.focus();
  }
}
