// The player list: who is here, who is online, who hosts, live word counts during a
// round, running totals; the host's "Make host" and "Remove" buttons.

import { h } from "../lib/dom.js";
import { plural, pointsText } from "./format.js";

// How long a "Remove" click waits for its confirming second click.
const CONFIRM_MS = 4000;

export class PlayersView {
  constructor(list, countElement, { onKick, onMakeHost }) {
    this.list = list;
    this.countElement = countElement;
    this.onKick = onKick;
    this.onMakeHost = onMakeHost;
  }

  render(store) {
    const { state } = store;
    const playing = store.phase === "play" && state.round && state.round.status === "running";
    const players = [...state.players];
    this.countElement.textContent = `(${players.length})`;
    this.list.replaceChildren(...players.map((player) => this.row(store, player, playing)));
  }

  row(store, player, playing) {
    const { state } = store;
    const isYou = player.id === state.you;
    const isHost = player.id === state.host_id;
    const count = (state.counts || {})[String(player.id)] || 0;
    const badges = [];
    if (isHost) badges.push(h("span", { class: "badge host" }, h("span", { "aria-hidden": "true", text: "★ " }), "host"));
    if (isYou) badges.push(h("span", { class: "badge you", text: "you" }));
    const status = h(
      "span",
      { class: `presence ${player.online ? "online" : "offline"}` },
      h("span", { class: "presence-dot", "aria-hidden": "true" }),
      player.online ? "online" : "offline",
    );
    const stats = [];
    if (playing) stats.push(h("span", { class: "stat live-count", text: plural(count, "word") }));
    else if (player.total_points) stats.push(h("span", { class: "stat", text: pointsText(player.total_points) }));
    const actions = [];
    if (store.isHost && !isYou) {
      actions.push(
        h("button", {
          type: "button",
          class: "button small subtle",
          text: "Make host",
          "aria-label": `Make ${player.nickname} the host`,
          on: { click: () => this.onMakeHost(player.id) },
        }),
        this.kickButton(player),
      );
    }
    return h(
      "li",
      { class: `player${player.online ? "" : " is-offline"}`, dataset: { playerId: player.id } },
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
      text: "Remove",
      "aria-label": `Remove ${player.nickname} from the room`,
    });
    let timer = null;
    button.addEventListener("click", () => {
      if (button.dataset.confirm) {
        window.clearTimeout(timer);
        this.onKick(player.id);
        return;
      }
      button.dataset.confirm = "1";
      button.textContent = "Sure? Remove";
      button.setAttribute("aria-label", `Press again to remove ${player.nickname}`);
      timer = window.setTimeout(() => {
        delete button.dataset.confirm;
        button.textContent = "Remove";
        button.setAttribute("aria-label", `Remove ${player.nickname} from the room`);
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
