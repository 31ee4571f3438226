// The room's settings for the next round: a form for the host (each change applies at
// once, between rounds only), a read-only summary for everyone else.

import { h } from "../lib/dom.js";
import { gettext } from "../lib/i18n.js";
import { clockShrinks, clockText, durationText, nextRoundText, percentText } from "./format.js";
import { LETTER_RULES, settingsTheme, THEME_RULES, themeText } from "./word-theme.js";

const SIZES = [
  ["4x4", "4×4", gettext("classic")],
  ["5x5", "5×5", gettext("big")],
  ["6x6", "6×6", gettext("super big")],
];
const ROUND_SECONDS = [30, 60, 90, 120, 180, 240, 300, 600];
const MIN_LENGTHS = [3, 4, 5, 6];
// Classic: every player for themselves; co-op: the room plays as one team (team.js);
// teams: two to four teams against each other (teams.js).
const MODES = [
  ["classic", gettext("Classic"), gettext("everyone for themselves")],
  ["coop", gettext("Co-op"), gettext("the room plays as one team")],
  ["teams", gettext("Teams"), gettext("teams play against each other")],
  ["chess", gettext("Chess clock"), gettext("in turns, each against a clock")],
];
// How many teams a teams room plays in (docs/api.md, "Settings").
const TEAM_COUNTS = [2, 3, 4];
// A chess-clock room: each player's time, in seconds (docs/api.md, "Chess clock": 20 to 300).
const CHESS_SECONDS = [20, 30, 45, 60, 90, 120, 180, 300];
// The co-op team's goal: a share of the board's words, in percent (docs/api.md, "Settings").
const GOAL_MIN = 10;
const GOAL_MAX = 100;
const GOAL_DEFAULT = 50;
// The shrinking clock: seconds off each round (0: off), and the lengths it may stop at.
const SHRINK_STEPS = [0, 10, 15, 20, 30, 45, 60];
const SHRINK_FLOORS = [30, 60, 90, 120, 180];
// The host's menu of themes (docs/api.md, "Themed word rules").
const THEME_LABELS = {
  none: () => gettext("Every word"),
  palindromes: () => gettext("Palindromes only"),
  contains: () => gettext("With a letter"),
  starts_with: () => gettext("Starting with a letter"),
  common: () => gettext("Common words only"),
  list: () => gettext("From a theme list"),
};
// The letter a letter theme starts with when the host picks it.
const DEFAULT_THEME_LETTER = "e";

export class SettingsView {
  constructor({ form, summary, note, status }, { onChange }) {
    this.form = form;
    this.summary = summary;
    this.note = note;
    this.status = status;
    this.onChange = onChange;
    this.built = false;
  }

  render(store) {
    const { settings, dictionaries } = store.state;
    const lists = store.state.theme_lists || {};
    const editable = store.isHost;
    const between = store.phase !== "play";
    this.form.hidden = !editable;
    this.summary.hidden = editable;
    if (editable) {
      if (!this.built) this.build(dictionaries);
      this.fill(settings, dictionaries, lists);
      this.form.querySelector("fieldset.settings-fields").disabled = !between;
      this.note.textContent = between ? gettext("Changes apply from the next round.") : gettext("Settings can change when this round is over.");
    } else {
      this.summary.replaceChildren(...this.describe(settings, dictionaries, lists));
      this.note.textContent = gettext("The host chooses these.");
    }
  }

  build(dictionaries) {
    const sizes = h(
      "div",
      { class: "segmented", role: "radiogroup", "aria-label": gettext("Board size") },
      ...SIZES.map(([value, label, name]) =>
        h(
          "label",
          {},
          h("input", { type: "radio", name: "board_size", value }),
          h("span", {}, label, h("small", { text: name })),
        ),
      ),
    );
    const select = (name, label, options) =>
      h(
        "div",
        { class: "field" },
        h("label", { for: `setting-${name}`, text: label }),
        h("select", { id: `setting-${name}`, name }, ...options),
      );
    const check = (name, label, hint) =>
      h(
        "label",
        { class: "check" },
        h("input", { type: "checkbox", name }),
        h("span", {}, label, h("small", { text: hint })),
      );
    const modes = h(
      "div",
      { class: "segmented modes", role: "radiogroup", "aria-labelledby": "setting-mode-label" },
      ...MODES.map(([value, label, name]) =>
        h(
          "label",
          {},
          h("input", { type: "radio", name: "mode", value }),
          h("span", {}, label, h("small", { text: name })),
        ),
      ),
    );
    const goal = h(
      "div",
      { class: "field coop-goal", id: "setting-coop-goal-field", hidden: true },
      h("label", { for: "setting-coop_goal", text: gettext("Team goal") }),
      h(
        "span",
        { class: "percent-input" },
        h("input", {
          type: "number",
          id: "setting-coop_goal",
          name: "coop_goal",
          min: GOAL_MIN,
          max: GOAL_MAX,
          step: 1,
          inputmode: "numeric",
          "aria-describedby": "setting-coop_goal-hint",
        }),
        h("span", { class: "percent-sign", "aria-hidden": "true", text: "%" }),
      ),
      h("small", {
        class: "hint",
        id: "setting-coop_goal-hint",
        text: gettext("The share of the board's words the team aims to find (10 to 100). Shared words count once; verdicts come at once."),
      }),
    );
    const teamCount = h(
      "div",
      { class: "field team-count", id: "setting-team-count-field", hidden: true },
      h("label", { for: "setting-team_count", text: gettext("Number of teams") }),
      h("select", { id: "setting-team_count", name: "team_count" }, ...TEAM_COUNTS.map((count) => new Option(String(count), String(count)))),
    );
    // The shrinking clock: how much shorter each round is, down to what; the next round's length.
    const clock = h(
      "div",
      { class: "field shrink-clock" },
      h(
        "div",
        { class: "field-row" },
        select("shrink_seconds", gettext("Shrinking clock"), []),
        h(
          "div",
          { class: "field", id: "setting-shrink-floor-field", hidden: true },
          h("label", { for: "setting-shrink_floor", text: gettext("Down to") }),
          h("select", { id: "setting-shrink_floor", name: "shrink_floor" }),
        ),
      ),
      h("small", { class: "hint", id: "setting-next-round", "aria-live": "polite" }),
    );
    // Themed word rules: which of the dictionary's words count; a letter or a list for some.
    const theme = h(
      "div",
      { class: "field word-theme" },
      h(
        "div",
        { class: "field-row" },
        select("theme", gettext("Word theme"), THEME_RULES.map((rule) => new Option(THEME_LABELS[rule](), rule))),
        h(
          "div",
          { class: "field theme-letter", id: "setting-theme-letter-field", hidden: true },
          h("label", { for: "setting-theme_letter", text: gettext("Letter") }),
          h("input", {
            type: "text",
            id: "setting-theme_letter",
            name: "theme_letter",
            maxlength: 1,
            size: 2,
            autocomplete: "off",
            autocapitalize: "characters",
            spellcheck: "false",
            "aria-describedby": "setting-theme-hint",
          }),
        ),
        h(
          "div",
          { class: "field", id: "setting-theme-list-field", hidden: true },
          h("label", { for: "setting-theme_list", text: gettext("Theme list") }),
          h("select", { id: "setting-theme_list", name: "theme_list" }),
        ),
      ),
      h("small", {
        class: "hint",
        id: "setting-theme-hint",
        text: gettext("On top of the dictionary: only the theme's words count, and rolled boards hold enough of them."),
      }),
    );
    const fields = h(
      "fieldset",
      { class: "settings-fields" },
      h("legend", { class: "visually-hidden", text: gettext("Settings for the next round") }),
      h("div", { class: "field" }, h("span", { class: "label", id: "setting-mode-label", text: gettext("Mode") }), modes),
      goal,
      teamCount,
      this.chessField(),
      h("div", { class: "field" }, h("span", { class: "label", id: "setting-size-label", text: gettext("Board") }), sizes),
      h(
        "div",
        { class: "field-row" },
        select("round_seconds", gettext("Round length"), []),
        select("min_length", gettext("Shortest word"), []),
      ),
      clock,
      select("dictionary", gettext("Dictionary"), Object.entries(dictionaries).map(([name, title]) => new Option(title, name))),
      theme,
      check(
        "cancel_duplicates",
        gettext("Duplicates cancel"),
        gettext("A word found by two or more players scores for nobody; in teams, only a word two teams found."),
      ),
      check("instant_verdicts", gettext("Instant verdicts"), gettext("Tell players at once whether each word counts.")),
      check("ready_check", gettext("Ready check before each round"), gettext("Every phone asks “Ready?”; the round starts when everyone is ready, or when you start it.")),
      check(
        "paper",
        gettext("Play on paper"),
        gettext("The phones keep time while everyone writes their words down; when the time is up, each player types their list in and you score the lists."),
      ),
    );
    this.form.replaceChildren(fields);
    this.form.addEventListener("change", (event) => this.changed(event.target));
    this.form.addEventListener("submit", (event) => event.preventDefault());
    this.built = true;
  }

  fill(settings, dictionaries, lists = {}) {
    const form = this.form;
    for (const radio of form.querySelectorAll("input[name=board_size]")) radio.checked = radio.value === settings.board_size;
    const seconds = new Set(ROUND_SECONDS);
    if (settings.round_seconds) seconds.add(settings.round_seconds);
    const secondsSelect = form.querySelector("select[name=round_seconds]");
    secondsSelect.replaceChildren(
      ...[...seconds].sort((a, b) => a - b).map((value) => new Option(durationText(value), String(value))),
      new Option(gettext("Untimed (host ends it)"), ""),
    );
    secondsSelect.value = settings.round_seconds ? String(settings.round_seconds) : "";
    const lengths = new Set(MIN_LENGTHS);
    lengths.add(settings.min_length);
    const lengthSelect = form.querySelector("select[name=min_length]");
    lengthSelect.replaceChildren(
      ...[...lengths].sort((a, b) => a - b).map((value) => new Option(gettext("%(count)s letters", { count: value }), String(value))),
    );
    lengthSelect.value = String(settings.min_length);
    const dictionarySelect = form.querySelector("select[name=dictionary]");
    if (!dictionaries[settings.dictionary]) dictionarySelect.append(new Option(settings.dictionary, settings.dictionary));
    dictionarySelect.value = settings.dictionary;
    form.querySelector("input[name=cancel_duplicates]").checked = settings.cancel_duplicates;
    form.querySelector("input[name=instant_verdicts]").checked = settings.instant_verdicts;
    form.querySelector("input[name=ready_check]").checked = Boolean(settings.ready_check);
    form.querySelector("input[name=paper]").checked = Boolean(settings.paper);
    const mode = settings.mode || "classic";
    for (const radio of form.querySelectorAll("input[name=mode]")) radio.checked = radio.value === mode;
    form.querySelector("#setting-coop-goal-field").hidden = mode !== "coop";
    form.querySelector("#setting-team-count-field").hidden = mode !== "teams";
    this.fillChess(settings, mode);
    form.querySelector("select[name=team_count]").value = String(settings.team_count || TEAM_COUNTS[0]);
    const goal = form.querySelector("input[name=coop_goal]");
    // Not while the host is typing a new goal (another change's settings.changed).
    if (document.activeElement !== goal) goal.value = String(settings.coop_goal ?? GOAL_DEFAULT);
    this.fillClock(settings);
    this.fillTheme(settings, lists);
  }

  /** A chess-clock room's time per player (shown in chess mode only). */
  chessField() {
    return h(
      "div",
      { class: "field chess-seconds", id: "setting-chess-field", hidden: true },
      h("label", { for: "setting-chess_seconds", text: gettext("Time per player") }),
      h("select", { id: "setting-chess_seconds", name: "chess_seconds", "aria-describedby": "setting-chess-hint" }),
      h("small", {
        class: "hint",
        id: "setting-chess-hint",
        text: gettext("Players take turns; only the player whose turn it is enters a word. A word nobody played passes the turn; whoever runs out of time is out, and the last one left wins."),
      }),
    );
  }

  fillChess(settings, mode) {
    const seconds = settings.chess_seconds || 60;
    const select = this.form.querySelector("select[name=chess_seconds]");
    const values = new Set([...CHESS_SECONDS, seconds]);
    select.replaceChildren(...[...values].sort((a, b) => a - b).map((value) => new Option(durationText(value), String(value))));
    select.value = String(seconds);
    this.form.querySelector("#setting-chess-field").hidden = mode !== "chess";
  }

  fillClock(settings) {
    const form = this.form;
    const step = settings.shrink_seconds || 0;
    const steps = new Set([...SHRINK_STEPS, step]);
    const stepSelect = form.querySelector("select[name=shrink_seconds]");
    stepSelect.replaceChildren(
      ...[...steps]
        .sort((a, b) => a - b)
        .map((value) => new Option(value ? gettext("−%(seconds)s s", { seconds: value }) : gettext("Off"), String(value))),
    );
    stepSelect.value = String(step);
    const floors = new Set([...SHRINK_FLOORS, settings.shrink_floor || SHRINK_FLOORS[0]]);
    const floorSelect = form.querySelector("select[name=shrink_floor]");
    floorSelect.replaceChildren(...[...floors].sort((a, b) => a - b).map((value) => new Option(durationText(value), String(value))));
    floorSelect.value = String(settings.shrink_floor || SHRINK_FLOORS[0]);
    form.querySelector("#setting-shrink-floor-field").hidden = !step;
    let hint = gettext("Each round of a game shorter than the one before, down to a floor.");
    if (step && !settings.round_seconds) hint = gettext("Untimed rounds do not shrink.");
    else if (step) hint = `${this.shrinkText(settings)}. ${nextRoundText(settings)}`;
    form.querySelector("#setting-next-round").textContent = hint;
  }

  fillTheme(settings, lists) {
    const form = this.form;
    const rule = settings.theme || "none";
    const ruleSelect = form.querySelector("select[name=theme]");
    ruleSelect.value = rule;
    // A list theme needs a list staff made: without one, the menu does not offer it.
    ruleSelect.querySelector("option[value=list]").disabled = !Object.keys(lists).length && rule !== "list";
    const letter = form.querySelector("input[name=theme_letter]");
    if (document.activeElement !== letter) letter.value = (settings.theme_letter || "").toUpperCase();
    const listSelect = form.querySelector("select[name=theme_list]");
    const entries = Object.entries(lists);
    if (settings.theme_list && !lists[settings.theme_list]) entries.push([settings.theme_list, settings.theme_list]);
    listSelect.replaceChildren(...entries.map(([name, title]) => new Option(title, name)));
    // The room's list, else the first: what picking the list theme sends.
    listSelect.value = settings.theme_list || (entries.length ? entries[0][0] : "");
    this.showThemeFields(rule);
  }

  /** The letter for a letter rule, the list for the list rule. */
  showThemeFields(rule) {
    this.form.querySelector("#setting-theme-letter-field").hidden = !LETTER_RULES.includes(rule);
    this.form.querySelector("#setting-theme-list-field").hidden = rule !== "list";
  }

  /** A theme rule picked: sent with the letter or list it needs (the letter shown, else
   * "E"; the list shown, else the first), which the server checks together. */
  themeChange(rule) {
    this.showThemeFields(rule);
    const changes = { theme: rule };
    if (LETTER_RULES.includes(rule)) {
      const letter = this.form.querySelector("input[name=theme_letter]");
      if (!/^[a-z]$/i.test(letter.value)) letter.value = DEFAULT_THEME_LETTER.toUpperCase();
      changes.theme_letter = letter.value.toLowerCase();
    }
    if (rule === "list") changes.theme_list = this.form.querySelector("select[name=theme_list]").value;
    return changes;
  }

  changed(control) {
    let value;
    if (control.name === "theme") {
      this.say(gettext("Saving…"));
      this.onChange(this.themeChange(control.value));
      return;
    }
    if (control.name === "theme_letter") {
      if (!/^[a-z]$/i.test(control.value)) {
        this.say(gettext("The theme's letter is one letter, A to Z."));
        return;
      }
      control.value = control.value.toUpperCase();
      value = control.value.toLowerCase();
    } else if (control.name === "coop_goal") {
      value = Number(control.value);
      if (!Number.isInteger(value) || value < GOAL_MIN || value > GOAL_MAX) {
        this.say(gettext("The team goal is a whole number from 10 to 100."));
        return;
      }
    } else if (control.name === "mode") {
      // Co-op shows its goal at once (the server's settings.changed confirms both).
      this.form.querySelector("#setting-coop-goal-field").hidden = control.value !== "coop";
      this.form.querySelector("#setting-team-count-field").hidden = control.value !== "teams";
      this.form.querySelector("#setting-chess-field").hidden = control.value !== "chess";
      value = control.value;
    } else if (control.type === "checkbox") value = control.checked;
    else if (control.name === "round_seconds") value = control.value ? Number(control.value) : null;
    else if (["min_length", "team_count", "chess_seconds", "shrink_seconds", "shrink_floor"].includes(control.name)) value = Number(control.value);
    else value = control.value;
    this.say(gettext("Saving…"));
    this.onChange({ [control.name]: value });
  }

  saved() {
    this.say(gettext("Saved ✓"));
  }

  failed(message) {
    this.say(message);
  }

  say(text) {
    this.status.textContent = text;
    window.clearTimeout(this.timer);
    if (text) this.timer = window.setTimeout(() => (this.status.textContent = ""), 4000);
  }

  /** "Each round 30 s shorter, down to 1 min". */
  shrinkText(settings) {
    return gettext("Each round %(seconds)s s shorter, down to %(floor)s", {
      seconds: settings.shrink_seconds,
      floor: durationText(settings.shrink_floor),
    });
  }

  /** How duplicates score; in teams, a word cancels between teams only. */
  duplicatesText(settings) {
    if (!settings.cancel_duplicates) return gettext("score for everyone");
    return settings.mode === "teams" ? gettext("cancel between teams (teammates both score)") : gettext("cancel (score for nobody)");
  }

  describe(settings, dictionaries, lists = {}) {
    const item = (term, value) => [h("dt", { text: term }), h("dd", { text: value })];
    const theme = settingsTheme(settings, lists);
    const size = SIZES.find(([value]) => value === settings.board_size);
    const coop = settings.mode === "coop";
    let mode = gettext("classic");
    if (coop) mode = gettext("co-op, team goal %(goal)s", { goal: percentText((settings.coop_goal ?? GOAL_DEFAULT) / 100) });
    else if (settings.mode === "teams") mode = gettext("teams: %(count)s", { count: settings.team_count || TEAM_COUNTS[0] });
    else if (settings.mode === "chess") mode = gettext("chess clock: %(time)s each", { time: durationText(settings.chess_seconds) });
    return [
      ...item(gettext("Mode"), mode),
      ...item(gettext("Board"), size ? `${size[1]} ${size[2]}` : settings.board_size),
      // A chess round has the players' clocks instead.
      ...(settings.mode === "chess" ? [] : item(gettext("Round length"), durationText(settings.round_seconds))),
      ...(clockShrinks(settings)
        ? [
            ...item(gettext("Shrinking clock"), this.shrinkText(settings)),
            ...item(gettext("Next round"), clockText((settings.next_round_seconds || 0) * 1000)),
          ]
        : []),
      ...item(gettext("Shortest word"), gettext("%(count)s letters", { count: settings.min_length })),
      ...item(gettext("Dictionary"), dictionaries[settings.dictionary] || settings.dictionary),
      ...(theme ? item(gettext("Word theme"), themeText(theme)) : []),
      // A co-op round never cancels a word and gives its verdicts at once, whatever these say.
      ...(coop ? [] : item(gettext("Duplicates"), this.duplicatesText(settings))),
      ...(coop ? [] : item(gettext("Verdicts"), settings.instant_verdicts ? gettext("at once") : gettext("with the results"))),
      ...item(gettext("Ready check"), settings.ready_check ? gettext("before each round") : gettext("off")),
      ...(settings.paper ? item(gettext("Words"), gettext("written on paper, entered when the time is up")) : []),
      ...(settings.next_board ? item(gettext("Next board"), gettext("set by the host")) : []),
    ];
  }
}
