// What a word means, in the results: a button beside a picked word (and on each refused
// word) opens a dialog with its lemma, up to three senses, where they come from and a link
// to the language's Wiktionary. The meanings come from GET /api/definitions/<dictionary>/
// <word> (compiled offline from WordNet and FreeDict, or written by staff; docs/api.md,
// "Definitions"); the server fetches nothing, the Wiktionary link is the player's to open.

import { getJSON } from "../lib/api.js";
import { h } from "../lib/dom.js";
import { gettext } from "../lib/i18n.js";

// Senses shown; the API sends up to six.
const SHOWN_SENSES = 3;

// Answers by "dictionary/word", kept for the page's life: a word looked up twice is asked once.
const answers = new Map();
let dialog = null;

function lookUp(dictionary, word) {
  const key = `${dictionary}/${word}`;
  if (!answers.has(key)) {
    const url = `/api/definitions/${encodeURIComponent(dictionary)}/${encodeURIComponent(word)}`;
    const answer = getJSON(url);
    // A failure is not kept: the next click asks again (the network may be back).
    answer.catch(() => answers.delete(key));
    answers.set(key, answer);
  }
  return answers.get(key);
}

function sourceText(source) {
  if (source === "wordnet") return gettext("Source: WordNet 3.0 (Princeton University).");
  if (source === "freedict") return gettext("Source: FreeDict, English translations.");
  if (source === "staff") return gettext("Source: this site's staff.");
  if (source === "gcide") return gettext("Source: GCIDE (Webster's 1913, revised).");
  return "";
}

/** The dialog, made once and kept in the page (outside the results, which are redrawn). */
function theDialog() {
  if (dialog) return dialog;
  dialog = h(
    "dialog",
    { class: "definition-dialog", "aria-labelledby": "definition-title" },
    h(
      "div",
      { class: "definition-head" },
      h("h2", { id: "definition-title", class: "definition-title" }),
      h("button", {
        type: "button",
        class: "button small subtle definition-close",
        text: gettext("Close"),
        on: { click: () => dialog.close() },
      }),
    ),
    h("div", { class: "definition-body", "aria-live": "polite" }),
  );
  // A click on the backdrop (outside the box) closes it, as Escape does.
  dialog.addEventListener("click", (event) => {
    if (event.target === dialog) dialog.close();
  });
  document.body.append(dialog);
  return dialog;
}

function senseList(answer) {
  const translation = answer.source === "freedict";
  const items = answer.senses.slice(0, SHOWN_SENSES).map((sense) =>
    h(
      "li",
      { class: "definition-sense" },
      sense.part_of_speech ? h("span", { class: "definition-pos", text: sense.part_of_speech }) : null,
      sense.lemma && sense.lemma !== answer.lemma ? h("span", { class: "definition-lemma", text: sense.lemma }) : null,
      h("span", {
        class: "definition-text",
        text: translation ? gettext("English translation: %(text)s", { text: sense.text }) : sense.text,
      }),
    ),
  );
  return h("ol", { class: "definition-senses" }, ...items);
}

function wiktionaryLink(url) {
  return h(
    "a",
    { class: "definition-wiktionary", href: url, target: "_blank", rel: "noopener" },
    gettext("Look it up on Wiktionary"),
    h("span", { class: "visually-hidden", text: gettext("(opens in a new tab)") }),
  );
}

function render(body, word, answer) {
  const title = dialog.querySelector(".definition-title");
  const lemma = answer.lemma && answer.lemma.toLowerCase() !== word.toLowerCase() ? answer.lemma : null;
  title.replaceChildren(h("span", { class: "caption-word", text: word }));
  if (lemma) title.append(h("span", { class: "definition-of", text: gettext("a form of %(lemma)s", { lemma }) }));
  if (!answer.senses.length) {
    body.replaceChildren(
      h("p", { class: "definition-none", text: gettext("No definition available.") }),
      wiktionaryLink(answer.wiktionary_url),
    );
    return;
  }
  body.replaceChildren(
    senseList(answer),
    h("p", { class: "definition-source", text: sourceText(answer.source) }),
    wiktionaryLink(answer.wiktionary_url),
  );
}

/** Open the dialog for `word` of a round played with `dictionary` (a dictionary's name). */
export async function showDefinition(word, dictionary, opener = null) {
  const box = theDialog();
  const body = box.querySelector(".definition-body");
  box.querySelector(".definition-title").replaceChildren(h("span", { class: "caption-word", text: word }));
  body.replaceChildren(h("p", { class: "hint", text: gettext("Looking it up…") }));
  box.dataset.word = word;
  if (opener) box.addEventListener("close", () => opener.isConnected && opener.focus(), { once: true });
  if (!box.open) box.showModal();
  try {
    const answer = await lookUp(dictionary, word);
    if (box.dataset.word === word) render(body, word, answer);
  } catch (error) {
    if (box.dataset.word !== word) return;
    body.replaceChildren(
      h("p", { class: "definition-none", text: gettext("No definition available.") }),
      h("p", { class: "hint", text: error.message }),
    );
  }
}

/** A button that opens `word`'s meaning; `compact` for a chip (refused words). */
export function meaningButton(word, dictionary, { compact = false } = {}) {
  const button = h("button", {
    type: "button",
    class: compact ? "button small subtle meaning-button compact" : "button small meaning-button",
    // A compact chip shows an icon only; a full button shows its whole name, word included.
    "aria-label": compact ? gettext("What does %(word)s mean?", { word: word.toUpperCase() }) : null,
    "aria-haspopup": "dialog",
    dataset: { define: word },
    title: compact ? gettext("What does %(word)s mean?", { word: word.toUpperCase() }) : null,
    text: compact ? null : gettext("What does %(word)s mean?", { word: word.toUpperCase() }),
    on: { click: () => showDefinition(word, dictionary, button) },
  }, compact ? h("span", { class: "meaning-icon", "aria-hidden": "true", text: "i" }) : null);
  return button;
}
