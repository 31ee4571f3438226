// The room's settings for the next round: a form for the host (each change applies at
// once, between rounds only), a read-only summary for everyone else.

import { h } from "../lib/dom.js";
import { gettext } from "../lib/i18n.js";
import { durationText, percentText } from "./format.js";

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
];
// How many teams a teams room plays in (docs/api.md, "Settings").
const TEAM_COUNTS = [2, 3, 4];
// The co-op team's goal: a share of the board's words, in percent (docs/api.md, "Settings").
const GOAL_MIN = 10;
const GOAL_MAX = 100;
const GOAL_DEFAULT = 50;

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
    const editable = store.isHost;
    const between = store.phase !== "play";
    this.form.hidden = !editable;
    this.summary.hidden = editable;
    if (editable) {
      if (!this.built) this.build(dictionaries);
      this.fill(settings, dictionaries);
      this.form.querySelector("fieldset.settings-fields").disabled = !between;
      this.note.textContent = between ? gettext("Changes apply from the next round.") : gettext("Settings can change when this round is over.");
    } else {
      this.summary.replaceChildren(...this.describe(settings, dictionaries));
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
    const fields = h(
      "fieldset",
      { class: "settings-fields" },
      h("legend", { class: "visually-hidden", text: gettext("Settings for the next round") }),
      h("div", { class: "field" }, h("span", { class: "label", id: "setting-mode-label", text: gettext("Mode") }), modes),
      goal,
      teamCount,
      h("div", { class: "field" }, h("span", { class: "label", id: "setting-size-label", text: gettext("Board") }), sizes),
      h(
        "div",
        { class: "field-row" },
        select("round_seconds", gettext("Round length"), []),
        select("min_length", gettext("Shortest word"), []),
      ),
      select("dictionary", gettext("Dictionary"), Object.entries(dictionaries).map(([name, title]) => new Option(title, name))),
      check(
        "cancel_duplicates",
        gettext("Duplicates cancel"),
        gettext("A word found by two or more players scores for nobody; in teams, only a word two teams found."),
      ),
      check("instant_verdicts", gettext("Instant verdicts"), gettext("Tell players at once whether each word counts.")),
      check("ready_check", gettext("Ready check before each round"), gettext("Every phone asks “Ready?”; the round starts when everyone is ready, or when you start it.")),
    );
    this.form.replaceChildren(fields);
    this.form.addEventListener("change", (event) => this.changed(event.target));
    this.form.addEventListener("submit", (event) => event.preventDefault());
    this.built = true;
  }

  fill(settings, dictionaries) {
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
    const mode = settings.mode || "classic";
    for (const radio of form.querySelectorAll("input[name=mode]")) radio.checked = radio.value === mode;
    form.querySelector("#setting-coop-goal-field").hidden = mode !== "coop";
    form.querySelector("#setting-team-count-field").hidden = mode !== "teams";
    form.querySelector("select[name=team_count]").value = String(settings.team_count || TEAM_COUNTS[0]);
    const goal = form.querySelector("input[name=coop_goal]");
    // Not while the host is typing a new goal (another change's settings.changed).
    if (document.activeElement !== goal) goal.value = String(settings.coop_goal ?? GOAL_DEFAULT);
  }

  changed(control) {
    let value;
    if (control.name === "coop_goal") {
      value = Number(control.value);
      if (!Number.isInteger(value) || value < GOAL_MIN || value > GOAL_MAX) {
        this.say(gettext("The team goal is a whole number from 10 to 100."));
        return;
      }
    } else if (control.name === "mode") {
      // Co-op shows its goal at once (the server's settings.changed confirms both).
      this.form.querySelector("#setting-coop-goal-field").hidden = control.value !== "coop";
      this.form.querySelector("#setting-team-count-field").hidden = control.value !== "teams";
      value = control.value;
    } else if (control.type === "checkbox") value = control.checked;
    else if (control.name === "round_seconds") value = control.value ? Number(control.value) : null;
    else if (control.name === "min_length" || control.name === "team_count") value = Number(control.value);
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

  /** How duplicates score; in teams, a word cancels between teams only. */
  duplicatesText(settings) {
    if (!settings.cancel_duplicates) return gettext("score for everyone");
    return settings.mode === "teams" ? gettext("cancel between teams (teammates both score)") : gettext("cancel (score for nobody)");
  }

  describe(settings, dictionaries) {
    const item = (term, value) => [h("dt", { text: term }), h("dd", { text: value })];
    const size = SIZES.find(([value]) => value === settings.board_size);
    const coop = settings.mode === "coop";
    let mode = gettext("classic");
    if (coop) mode = gettext("co-op, team goal %(goal)s", { goal: percentText((settings.coop_goal ?? GOAL_DEFAULT) / 100) });
    else if (settings.mode === "teams") mode = gettext("teams: %(count)s", { count: settings.team_count || TEAM_COUNTS[0] });
    return [
      ...item(gettext("Mode"), mode),
      ...item(gettext("Board"), size ? `${size[1]} ${size[2]}` : settings.board_size),
      ...item(gettext("Round length"), durationText(settings.round_seconds)),
      ...item(gettext("Shortest word"), gettext("%(count)s letters", { count: settings.min_length })),
      ...item(gettext("Dictionary"), dictionaries[settings.dictionary] || settings.dictionary),
      // A co-op round never cancels a word and gives its verdicts at once, whatever these say.
      ...(coop ? [] : item(gettext("Duplicates"), this.duplicatesText(settings))),
      ...(coop ? [] : item(gettext("Verdicts"), settings.instant_verdicts ? gettext("at once") : gettext("with the results"))),
      ...item(gettext("Ready check"), settings.ready_check ? gettext("before each round") : gettext("off")),
      ...(settings.next_board ? item(gettext("Next board"), gettext("set by the host")) : []),
    ];
  }
}
