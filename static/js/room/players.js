// The player list: who is here, who is online, who hosts, who is ready (a ready check),
// live word counts during a round, running totals; the host's "Make host" and "Remove"
// buttons, and the players the host removed, each with "Let back in" (unkick: their device
// may join again). In teams mode (teams.js) the players are grouped by team, each team
// with its total and, during a round, its words so far; between rounds a player joins
// another team ("Join Team 2") and the host moves anyone ("Move to Team 2").

import { h } from "../lib/dom.js";
import { gettext } from "../lib/i18n.js";
import { playersText, pointsText, wordsText } from "./format.js";
import { waitingCheck } from "./ready-check.js";
import { teamGroups, teamMark, teamName } from "./teams.js";

// A button's name for screen readers: its visible text first (what voice control users
// say), then whom it acts on.
function actionFor(action, nickname) {
  return gettext("%(action)s: %(nickname)s", { action, nickname });
}

// How long a "Remove" click waits for its confirming second click.
const CONFIRM_MS = 4000;

export class PlayersView {
  constructor(list, countElement, { onKick, onMakeHost, onUnkick = () => false, onChooseTeam = () => false, onReport = () => false }) {
    this.list = list;
    this.countElement = countElement;
    this.onKick = onKick;
    this.onMakeHost = onMakeHost;
    this.onUnkick = onUnkick;
    this.onChooseTeam = onChooseTeam;
    this.onReport = onReport;
    // Players removed by the host (state.kicked): shown to the host only, after the list.
    this.kickedBox = h("div", { class: "kicked-players", hidden: true });
    this.list.after(this.kickedBox);
    this.unkicking = new Set();
  }

  render(store) {
    const { state } = store;
    const playing = store.phase === "play" && state.round && state.round.status === "running";
    const players = [...state.players];
    this.countElement.textContent = `(${players.length})`;
    const teams = teamGroups(state);
    // A team button clicked redraws the list: the keyboard stays on the same button, or
    // the nearest team control.
    const focused = this.list.contains(document.activeElement) ? document.activeElement.dataset.focusKey : null;
    this.list.classList.toggle("by-team", Boolean(teams));
    if (teams) {
      this.list.replaceChildren(
        ...teams.groups.map((group) => this.teamGroup(store, group, playing)),
        ...teams.loose.map((player) => this.row(store, player, playing)),
      );
    } else {
      this.list.replaceChildren(...players.map((player) => this.row(store, player, playing)));
    }
    if (focused) {
      const again = this.list.querySelector(`[data-focus-key="${CSS.escape(focused)}"]`) || this.list.querySelector("button[data-focus-key]");
      if (again) again.focus();
    }
    this.renderKicked(store);
  }

  /** A team: its mark, its players' words (during a round) or how many they are, its
   * total over the game; "Join Team 2" for me between rounds when I am in another. */
  teamGroup(store, group, playing) {
    const { state } = store;
    const between = !state.round || state.round.status === "ended";
    const mine = group.players.some((player) => player.id === state.you);
    const figures = [
      playing ? wordsText(group.words) : playersText(group.players.length),
      gettext("total %(points)s", { points: pointsText(group.total_points) }),
    ];
    // Under the team's players: whom I would be joining.
    const join =
      between && !mine && state.you !== null
        ? h("button", {
            type: "button",
            class: "button small team-join",
            text: gettext("Join %(team)s", { team: teamName(group.team) }),
            dataset: { focusKey: `join:${group.team}` },
            on: { click: () => this.onChooseTeam(group.team, null) },
          })
        : null;
    const titleId = `team-${group.team}-title`;
    return h(
      "li",
      { class: `team-group team-${group.team}${mine ? " mine" : ""}`, dataset: { team: group.team } },
      h(
        "div",
        { class: "team-group-head" },
        h("h3", { class: "team-group-title", id: titleId }, teamMark(group.team)),
        h("span", { class: "team-group-figures" }, ...figures.map((text, index) => h("span", { class: index ? "team-total" : "team-count", text }))),
      ),
      group.players.length
        ? h("ul", { class: "team-members" }, ...group.players.map((player) => this.row(store, player, playing, group.team, between)))
        : h("p", { class: "team-empty-hint hint", text: gettext("Nobody yet.") }),
      join,
    );
  }

  renderKicked(store) {
    const kicked = store.isHost ? store.state.kicked || [] : [];
    const ids = new Set(kicked.map((item) => item.id));
    for (const id of this.unkicking) if (!ids.has(id)) this.unkicking.delete(id);
    this.kickedBox.hidden = !kicked.length;
    if (!kicked.length) {
      this.kickedBox.replaceChildren();
      return;
    }
    const focused = this.kickedBox.contains(document.activeElement) ? document.activeElement.dataset.playerId : null;
    const items = kicked.map((item) => {
      const waiting = this.unkicking.has(item.id);
      return h(
        "li",
        { class: "kicked-player", dataset: { playerId: item.id } },
        h("span", { class: "nickname", text: item.nickname }),
        h("button", {
          type: "button",
          class: "button small subtle",
          text: waiting ? gettext("Letting back…") : gettext("Let back in"),
          "aria-label": actionFor(waiting ? gettext("Letting back…") : gettext("Let back in"), item.nickname),
          dataset: { playerId: item.id },
          disabled: waiting,
          on: {
            click: () => {
              if (this.onUnkick(item.id)) {
                this.unkicking.add(item.id);
                this.renderKicked(store);
              }
            },
          },
        }),
      );
    });
    this.kickedBox.replaceChildren(
      h("h3", { class: "kicked-title", text: gettext("Removed") }),
      h("p", { class: "hint", text: gettext("They cannot join again until you let them back in.") }),
      h("ul", { class: "kicked-list" }, ...items),
    );
    if (focused) {
      const again = this.kickedBox.querySelector(`button[data-player-id="${CSS.escape(focused)}"]`);
      (again || this.list.closest("section") || this.list).focus?.();
    }
  }

  /** An unkick the server refused: its button works again. */
  failedUnkick(store) {
    this.unkicking.clear();
    this.renderKicked(store);
  }

  /** "Report": why (a nickname, cheating, something else), sent once to the staff. */
  reportMenu(player) {
    const menu = h("details", { class: "report-menu" }, h("summary", { class: "button small subtle", "aria-label": actionFor(gettext("Report"), player.nickname), text: gettext("Report") }));
    const reasons = [
      ["nickname", gettext("Offensive nickname")],
      ["cheating", gettext("Cheating")],
      ["other", gettext("Something else")],
    ];
    menu.append(
      h(
        "span",
        { class: "report-reasons" },
        ...reasons.map(([reason, text]) =>
          h("button", {
            type: "button",
            class: "button small",
            text,
            on: {
              click: () => {
                menu.open = false;
                this.onReport(player, reason);
              },
            },
          }),
        ),
      ),
    );
    return menu;
  }

  row(store, player, playing, team = null, between = false) {
    const { state } = store;
    const isYou = player.id === state.you;
    const isHost = player.id === state.host_id && !state.public; // a quick-play room has none
    const count = (state.counts || {})[String(player.id)] || 0;
    const badges = [];
    if (isHost) badges.push(h("span", { class: "badge host" }, h("span", { "aria-hidden": "true", text: "★ " }), gettext("host")));
    if (isYou) badges.push(h("span", { class: "badge you", text: gettext("you") }));
    // A ready check waiting for its players: who is ready, who is waited for.
    const check = waitingCheck(state.round);
    if (check && (check.ready || []).includes(player.id)) {
      badges.push(h("span", { class: "badge ready" }, h("span", { "aria-hidden": "true", text: "✓ " }), gettext("ready")));
    } else if (check && (check.waiting || []).includes(player.id)) {
      badges.push(h("span", { class: "badge not-ready", text: gettext("not ready") }));
    }
    const status = h(
      "span",
      { class: `presence ${player.online ? "online" : "offline"}` },
      h("span", { class: "presence-dot", "aria-hidden": "true" }),
      player.online ? gettext("online") : gettext("offline"),
    );
    const stats = [];
    if (playing) stats.push(h("span", { class: "stat live-count", text: wordsText(count) }));
    else if (player.total_points) stats.push(h("span", { class: "stat", text: pointsText(player.total_points) }));
    const actions = [];
    if (store.isHost && !isYou) {
      actions.push(
        h("button", {
          type: "button",
          class: "button small subtle",
          text: gettext("Make host"),
          "aria-label": actionFor(gettext("Make host"), player.nickname),
          on: { click: () => this.onMakeHost(player.id) },
        }),
        this.kickButton(player),
      );
    }
    // Teams mode between rounds: the host moves anyone else to another team (and joins
    // one with the team's own "Join" button, as everyone does).
    if (team && between && store.isHost && !isYou) {
      const count = (state.settings && state.settings.team_count) || 2;
      for (let other = 1; other <= count; other += 1) {
        if (other === team) continue;
        const text = gettext("Move to %(team)s", { team: teamName(other) });
        actions.push(
          h("button", {
            type: "button",
            class: `button small subtle team-move team-${other}`,
            text,
            "aria-label": actionFor(text, player.nickname),
            dataset: { focusKey: `move:${player.id}:${other}`, team: other },
            on: { click: () => this.onChooseTeam(other, player.id) },
          }),
        );
      }
    }
    // A quick-play room's strangers can be reported to the staff (quickplay).
    if (state.public && !isYou && state.you !== null) actions.push(this.reportMenu(player));
    if (team) badges.unshift(teamMark(team, { short: true, className: "team-badge" }));
    return h(
      "li",
      { class: `player${player.online ? "" : " is-offline"}${team ? ` team-${team}` : ""}`, dataset: team ? { playerId: player.id, team } : { playerId: player.id } },
      h("span", { class: "avatar", "aria-hidden": "true", style: `--hue:${hue(player.nickname)}`, text: initial(player.nickname) }),
      h(
        "span",
        { class: "player-main" },
        h("span", { class: "player-name" }, h("span", { class: "nickname", text: player.nickname }), ...badges),
        h("span", { class: "player-meta" }, status, ...stats),
      ),
      actions.length ? h("span", { class: "player-actions" }, ...actions) : null,
    );
  }

  kickButton(player) {
    const button = h("button", {
      type: "button",
      class: "button small subtle danger",
      text: gettext("Remove"),
      "aria-label": actionFor(gettext("Remove"), player.nickname),
    });
    let timer = null;
    button.addEventListener("click", () => {
      if (button.dataset.confirm) {
        window.clearTimeout(timer);
        this.onKick(player.id);
        return;
      }
      button.dataset.confirm = "1";
      button.textContent = gettext("Sure? Remove");
      button.setAttribute("aria-label", actionFor(gettext("Sure? Remove"), player.nickname));
      timer = window.setTimeout(() => {
        delete button.dataset.confirm;
        button.textContent = gettext("Remove");
        button.setAttribute("aria-label", actionFor(gettext("Remove"), player.nickname));
      }, CONFIRM_MS);
    });
    return button;
  }
}

function initial(nickname) {
  return [...nickname.trim()][0]?.toUpperCase() || "?";
}

/** A stable hue per nickname, only to tell avatars apart at a glance (names say who). */
function hue(nickname) {
  let sum = 0;
  for (const char of nickname) sum = (sum * 31 + char.codePointAt(0)) % 360;
  return sum;
}
