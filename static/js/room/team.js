// Co-op mode: the room plays as one team against the board (docs/api.md, "Co-op").
// What the store keeps of the team during a round (`state.team`, merged from the
// `round.counts` frames), the progress bar with its goal marker, the round's team panel
// (the words found so far, newest first, each with its finder), and the banner of a co-op
// round's results. Used by the room page and the table screen alike.

import { announce, h } from "../lib/dom.js";
import { gettext, ngettext } from "../lib/i18n.js";
import { percentText, pointsText, wordsText } from "./format.js";

// How long a word that just came in stays highlighted.
export const FRESH_MS = 2500;
// The newest words shown while the list is folded (a phone keeps the board in view).
const FOLDED_WORDS = 3;
// Where the room page has two columns (site.css, "room layout").
const WIDE_SCREEN = "(min-width: 60rem)";

/** Whether a round dict is of a co-op round. */
export function isCoop(round) {
  return Boolean(round && round.mode === "coop");
}

/** The team of a co-op round before the server has said anything of it: its goal, and
 * the board's words counted from the round's `word_counts` when it has them. */
export function emptyTeam(round) {
  const total = (round.word_counts || []).reduce((sum, row) => sum + row.total, 0);
  return { goal: round.coop_goal, total: round.word_counts ? total : null, found: 0, words: [] };
}

/**
 * The team with a `round.counts` frame's `team` merged in: new words appended (a word
 * already listed keeps its first finder; repeats are ignored), `found` never stepping back
 * (frames from different processes may cross, and my own words come first). `at`: when the frame came (ms), so that
 * the words it brought are highlighted a moment.
 */
export function mergeTeam(team, frame, at = Date.now()) {
  const base = team || { goal: frame.goal, total: frame.total, found: 0, words: [] };
  const known = new Set(base.words.map((entry) => entry.word));
  const added = [];
  for (const entry of frame.new_words || []) {
    if (known.has(entry.word)) continue;
    known.add(entry.word);
    added.push({ word: entry.word, player_id: entry.player_id, at });
  }
  const words = [...base.words, ...added];
  return {
    goal: frame.goal ?? base.goal,
    total: frame.total ?? base.total,
    // Every listed word is one of the board's: the count is at least the list's.
    found: Math.max(base.found || 0, frame.found || 0, words.length),
    words,
  };
}

/** The team with one word of mine just accepted (before the next frame brings it). */
export function addMyWord(team, word, playerId, at = Date.now()) {
  if (!team || team.words.some((entry) => entry.word === word)) return team;
  return { ...team, found: (team.found || 0) + 1, words: [...team.words, { word, player_id: playerId, at }] };
}

/** The share found (0..1), or 0 while the board's count is unknown. */
function shareOf(found, total) {
  return total ? Math.min(1, found / total) : 0;
}

/** "12 of 87 words · goal 50%" (the count alone while the total is unknown). */
export function teamLine(team) {
  const goal = gettext("goal %(goal)s", { goal: percentText(team.goal / 100) });
  const count =
    team.total === null || team.total === undefined
      ? wordsText(team.found)
      : ngettext("%(found)s of %(count)s word", "%(found)s of %(count)s words", team.total, { found: team.found });
  return `${count} · ${goal}`;
}

/** Whether the team's share has reached its goal. */
export function goalReached(team) {
  return Boolean(team.total) && (team.found / team.total) * 100 >= team.goal;
}

/** The progress bar: the share found, and a marker at the goal. `id` names it for its label. */
export class TeamBar {
  constructor({ className = "" } = {}) {
    this.fill = h("span", { class: "team-fill" });
    this.marker = h("span", { class: "team-goal", "aria-hidden": "true" });
    this.element = h(
      "div",
      {
        class: `team-bar ${className}`.trim(),
        role: "progressbar",
        "aria-label": gettext("Team progress"),
        "aria-valuemin": "0",
      },
      this.fill,
      this.marker,
    );
  }

  render(team) {
    const share = shareOf(team.found, team.total);
    this.fill.style.width = `${share * 100}%`;
    this.marker.style.left = `${Math.min(100, Math.max(0, team.goal))}%`;
    this.element.classList.toggle("reached", goalReached(team));
    this.element.setAttribute("aria-valuemax", String(team.total || 0));
    this.element.setAttribute("aria-valuenow", String(team.found));
    this.element.setAttribute("aria-valuetext", teamLine(team));
  }
}

/**
 * The team panel of a co-op round on the room page: the bar, "12 of 87 words · goal 50%",
 * and the words found so far, newest first, each with who found it (the newest highlighted
 * a moment). On a phone it sits under the verdict, folded to the newest few words so that
 * the board and the word field stay in view; on a wide screen it heads the side column
 * (`wide`, the element it goes first in), open.
 */
export class TeamView {
  constructor({ narrow, wide }, { nickname }) {
    this.nickname = nickname;
    this.bar = new TeamBar();
    this.line = h("p", { class: "team-line", id: "team-line" });
    this.title = h("h2", { class: "team-title", id: "team-title", text: gettext("Team") });
    this.list = h("ol", { class: "team-words", id: "team-words", "aria-labelledby": "team-title" });
    this.empty = h("p", { class: "team-empty hint", text: gettext("Every word anyone finds counts for the team.") });
    this.toggle = h("button", {
      type: "button",
      class: "button small subtle team-toggle",
      "aria-controls": "team-words",
      "aria-expanded": "false",
      on: { click: () => this.setOpen(!this.open) },
    });
    this.root = h(
      "section",
      { class: "team-panel", id: "team-panel", "aria-labelledby": "team-title", hidden: true },
      h("div", { class: "team-head" }, this.title, this.line),
      this.bar.element,
      this.list,
      this.empty,
      this.toggle,
    );
    this.anchors = { narrow, wide };
    this.wideScreen = window.matchMedia(WIDE_SCREEN);
    this.wideScreen.addEventListener("change", () => this.place());
    this.place();
    this.open = this.wideScreen.matches;
    this.team = null;
    this.you = null;
    this.roundNumber = null;
    this.reached = false;
    this.timer = null;
  }

  /** Under the verdict on a phone, first in the side column on a wide screen. */
  place() {
    const wide = this.wideScreen.matches;
    this.root.classList.toggle("card", wide);
    // There the list scrolls when long: a keyboard reaches it too.
    if (wide) this.list.setAttribute("tabindex", "0");
    else this.list.removeAttribute("tabindex");
    if (wide && this.root.parentElement !== this.anchors.wide) this.anchors.wide.prepend(this.root);
    if (!wide && this.root.previousElementSibling !== this.anchors.narrow) this.anchors.narrow.after(this.root);
  }

  setOpen(open) {
    this.open = open;
    if (this.team) this.draw();
  }

  /** The store's team while a co-op round is played; hidden otherwise. */
  render(store) {
    const round = store.round;
    const team = isCoop(round) && store.phase === "play" ? store.state.team : null;
    this.root.hidden = !team;
    this.team = team;
    this.you = store.you;
    if (!team) return;
    if (this.roundNumber !== round.number) {
      this.roundNumber = round.number;
      this.reached = goalReached(team);
    } else if (!this.reached && goalReached(team)) {
      this.reached = true;
      announce(gettext("Goal reached! The team found %(share)s of the words.", { share: percentText(team.found / team.total) }));
    }
    this.draw();
  }

  draw() {
    const team = this.team;
    const now = Date.now();
    this.bar.render(team);
    this.line.textContent = teamLine(team);
    this.line.classList.toggle("reached", goalReached(team));
    const newest = [...team.words].reverse();
    const shown = this.open ? newest : newest.slice(0, FOLDED_WORDS);
    let nextExpiry = null;
    this.list.replaceChildren(
      ...shown.map((entry) => {
        const age = entry.at ? now - entry.at : Infinity;
        const fresh = age < FRESH_MS;
        if (fresh) nextExpiry = Math.min(nextExpiry ?? Infinity, FRESH_MS - age);
        const mine = entry.player_id === this.you;
        return h(
          "li",
          { class: `team-word${mine ? " mine" : ""}${fresh ? " fresh" : ""}`, dataset: { word: entry.word, player: entry.player_id } },
          h("span", { class: "team-word-text", text: entry.word }),
          h("span", { class: "team-word-by", text: mine ? gettext("you") : this.nickname(entry.player_id) }),
        );
      }),
    );
    this.empty.hidden = team.words.length > 0;
    const more = team.words.length > FOLDED_WORDS;
    this.toggle.hidden = !more;
    this.toggle.setAttribute("aria-expanded", String(this.open));
    this.toggle.textContent = this.open
      ? gettext("Show fewer")
      : ngettext("All %(count)s team word", "All %(count)s team words", team.words.length);
    // Unhighlight once the newest word has been shown long enough.
    window.clearTimeout(this.timer);
    if (nextExpiry !== null) this.timer = window.setTimeout(() => this.team && this.draw(), nextExpiry + 20);
  }
}

/** "Goal reached! …" or "Not this time: …" of a co-op round's results (`results.team`). */
export function teamResultText(team) {
  const values = {
    share: percentText(team.share),
    found: team.found,
    total: team.total,
    goal: percentText(team.goal / 100),
  };
  return {
    title: team.reached ? gettext("Goal reached!") : gettext("Not this time"),
    text: team.reached
      ? gettext("The team found %(share)s of the words (%(found)s of %(total)s), goal %(goal)s.", values)
      : gettext("The team found %(share)s of the words (%(found)s of %(total)s); the goal was %(goal)s.", values),
    points: gettext("Team points: %(points)s", { points: pointsText(team.points) }),
  };
}

/**
 * The banner of a co-op round's results: reached or not, the share with its bar and goal,
 * and the team's points. `level`: its heading's level.
 */
export function teamBanner(team, { level = 2, className = "" } = {}) {
  const { title, text, points } = teamResultText(team);
  const bar = new TeamBar();
  bar.render({ goal: team.goal, total: team.total, found: team.found });
  return h(
    "section",
    {
      class: `team-banner ${team.reached ? "reached" : "missed"} ${className}`.trim(),
      "aria-labelledby": "team-banner-title",
      dataset: { reached: String(team.reached) },
    },
    h(
      `h${level}`,
      { class: "team-banner-title", id: "team-banner-title" },
      h("span", { class: "team-banner-icon", "aria-hidden": "true", text: team.reached ? "★" : "☆" }),
      ` ${title}`,
    ),
    h("p", { class: "team-banner-text", text }),
    bar.element,
    h("p", { class: "team-banner-points", text: points }),
  );
}
