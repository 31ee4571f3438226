// The room's dice set for photos (docs/api.md, "Dice sets"): which real set of dice the
// board photos show, so that the reader learns that set from the boards the host confirms.
// The host chooses a set or starts one, and says whether its dice may be kept; everyone
// else sees which set it is. Changes go out as settings (update_settings), between rounds.

import { h } from "../lib/dom.js";
import { gettext, ngettext } from "../lib/i18n.js";

// dicesets.models.NAME_MAX_LENGTH: the server refuses longer names.
const NAME_MAX_LENGTH = 40;
const START_NEW = "new";

/** A set's name as shown: the installation's in the page's language. */
export function setName(set) {
  return set.installation ? gettext("The usual dice") : set.name;
}

function memoryText(photoSet) {
  // No room teaches the installation's set (staff approve what it reads): a room learning
  // on it gets a set of its own at its first confirmed board (docs/api.md, "Dice sets").
  if (photoSet.installation && photoSet.learn) {
    return gettext("Boards the host confirms will start this room's own set; the usual dice learn only what the site's staff approve.");
  }
  if (!photoSet.exemplars) return gettext("Nothing learnt yet: confirm a board read from a photo.");
  const remembers = ngettext("Remembers %(count)s die", "Remembers %(count)s dice", photoSet.exemplars) + " " +
    ngettext("(%(faces)s letter).", "(%(faces)s letters).", photoSet.faces, { faces: photoSet.faces });
  const checked = checkedText(photoSet);
  return checked ? `${remembers} ${checked}` : remembers;
}

/** What the room's photos are checked against (docs/api.md, "Dice sets": checked_against):
 * the official sets its confirmed boards all fit, per board size; "" before that. */
export function checkedText(photoSet) {
  return (photoSet.checked_against || []).map((fit) => {
    const side = Math.round(Math.sqrt(fit.dice));
    return gettext("Its %(size)s photos are checked against the dice of %(sets)s.", {
      size: `${side}x${side}`,
      sets: fit.sets.map((set) => set.title).join(gettext(" or ")),
    });
  }).join(" ");
}

function optionText(set) {
  if (!set.exemplars) return setName(set);
  return ngettext("%(name)s (%(count)s die)", "%(name)s (%(count)s dice)", set.exemplars, { name: setName(set) });
}

export class PhotoSetView {
  /** `box`: the host's controls; `summary`: the settings' summary (a `dl`) that everyone
   * else sees, which this view adds its lines to after the settings view drew it. */
  constructor({ box, summary }, { onChange }) {
    this.box = box;
    this.summary = summary;
    this.onChange = onChange;
    this.built = false;
  }

  render(store) {
    const photoSet = store.state.photo_set;
    for (const line of this.summary.querySelectorAll(".photo-set-line")) line.remove();
    this.box.hidden = !photoSet || !store.isHost;
    if (!photoSet) return;
    if (store.isHost) {
      if (!this.built) this.build();
      this.fill(photoSet, store.phase !== "play");
    } else {
      this.summary.append(...this.describe(photoSet));
    }
  }

  build() {
    this.select = h("select", { id: "setting-photo_set", name: "photo_set", "aria-describedby": "photo-set-memory" });
    this.nameInput = h("input", {
      id: "photo-set-name",
      type: "text",
      maxlength: NAME_MAX_LENGTH,
      autocomplete: "off",
      autocapitalize: "sentences",
      enterkeyhint: "done",
      placeholder: gettext("e.g. Grandma's set"),
    });
    this.startButton = h("button", { type: "submit", class: "button", text: gettext("Start") });
    this.newField = h(
      "form",
      { class: "field photo-set-new", hidden: true, on: { submit: (event) => this.start(event) } },
      h("label", { for: "photo-set-name", text: gettext("Name of the new set") }),
      h("div", { class: "copy-row" }, this.nameInput, this.startButton),
    );
    this.learn = h("input", { type: "checkbox", name: "learn_photo_set" });
    this.memory = h("p", { id: "photo-set-memory", class: "hint photo-set-memory" });
    this.fields = h(
      "fieldset",
      { class: "photo-set-fields" },
      h("legend", { class: "visually-hidden", text: gettext("The dice in the photos") }),
      h("div", { class: "field" }, h("label", { for: "setting-photo_set", text: gettext("Dice set in the photos") }), this.select),
      this.newField,
      h(
        "label",
        { class: "check" },
        this.learn,
        h(
          "span",
          {},
          gettext("Help the reader learn this set"),
          h("small", {
            text: gettext(
              "Keeps the dice of boards the host confirms from photos in this room's own set (at most 8 pictures a letter, on this site), so that photos of this set read better. Letters the reader learns this way are always shown for checking.",
            ),
          }),
        ),
      ),
      this.memory,
    );
    this.select.addEventListener("change", () => this.chosen());
    this.learn.addEventListener("change", () => this.onChange({ learn_photo_set: this.learn.checked }));
    this.box.replaceChildren(this.fields);
    this.built = true;
  }

  fill(photoSet, between) {
    const choosingNew = this.select.value === START_NEW;
    this.select.replaceChildren(
      ...photoSet.choices.map((set) => new Option(optionText(set), String(set.id))),
      ...(photoSet.can_start ? [new Option(gettext("Start a new set…"), START_NEW)] : []),
    );
    this.select.value = choosingNew && photoSet.can_start ? START_NEW : String(photoSet.id);
    this.newField.hidden = this.select.value !== START_NEW;
    this.learn.checked = photoSet.learn;
    this.memory.textContent = memoryText(photoSet);
    this.fields.disabled = !between;
    this.shown = photoSet.id;
  }

  chosen() {
    if (this.select.value === START_NEW) {
      this.newField.hidden = false;
      this.nameInput.focus();
      return;
    }
    this.newField.hidden = true;
    this.onChange({ photo_set: Number(this.select.value) });
  }

  start(event) {
    event.preventDefault();
    const name = this.nameInput.value.trim();
    if (!name) {
      this.nameInput.focus();
      return;
    }
    this.nameInput.value = "";
    this.select.value = String(this.shown);
    this.newField.hidden = true;
    this.onChange({ new_photo_set: name });
  }

  describe(photoSet) {
    const item = (term, value) => [h("dt", { class: "photo-set-line", text: term }), h("dd", { class: "photo-set-line", text: value })];
    return [
      ...item(gettext("Dice set"), setName(photoSet)),
      ...item(gettext("Learning"), photoSet.learn ? gettext("from confirmed photos") : gettext("off")),
    ];
  }
}
