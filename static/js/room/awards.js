// A game's awards (docs/api.md, "The end of the game": `standing.awards`, and a game's
// stats' `awards`): something to cheer for besides the winner. One list, drawn alike at the
// end of the game on the room page (standing.js), on the table screen (table/results.js)
// and in the room's history (history.js): each award's title, its winner (winners, on a
// tie) and what earned it. An award nobody earned is not in the list; so neither here.

import { h, svg } from "../lib/dom.js";
import { gettext, ngettext, pageLanguage } from "../lib/i18n.js";
import { wordsText } from "./format.js";

// Simple line icons (24×24, the text's colour): the same on every phone, where an emoji
// would not be.
const ICONS = {
  // Two bars and an arrow between them: length.
  longest_word: ["M3 5v14", "M21 5v14", "M6.5 12h11", "M9.5 8.5 6 12l3.5 3.5", "M14.5 8.5 18 12l-3.5 3.5"],
  // A magnifying glass: found by searching where nobody else did.
  most_unique: ["M10.5 4a6.5 6.5 0 1 0 0 13a6.5 6.5 0 1 0 0-13z", "m15.2 15.2 5.3 5.3"],
  // A cut gem: a rare word.
  best_find: ["M7 4h10l4 5-9 11L3 9z", "M3 9h18", "M12 20 8.5 9 10 4", "M12 20l3.5-11L14 4"],
  // A lightning bolt: quick.
  fastest_first_word: ["M13 2 4 14h7l-1 8 9-12h-7z"],
  // A rising line: better and better.
  most_improved: ["M3 18l6-6 4 4 8-8", "M14 8h7v7"],
};

// Each award's title, in the page's language (a function: the catalogue is read when drawn).
const TITLES = {
  longest_word: () => gettext("Longest word"),
  most_unique: () => gettext("Most words nobody else found"),
  best_find: () => gettext("Best find"),
  fastest_first_word: () => gettext("Fastest first word"),
  most_improved: () => gettext("Most improved"),
};

/** The title of an award ("Longest word"); an award this page does not know by its code. */
export function awardTitle(award) {
  const title = TITLES[award];
  return title ? title() : award.replaceAll("_", " ");
}

function icon(award) {
  const paths = ICONS[award] || ["M12 3l2.6 5.6 6.1.7-4.5 4.2 1.2 6L12 16.5 6.6 19.5l1.2-6-4.5-4.2 6.1-.7z"];
  const image = svg("svg", { viewBox: "0 0 24 24", width: 24, height: 24, class: "award-icon-svg", "aria-hidden": "true", focusable: "false" });
  for (const d of paths) image.append(svg("path", { d }));
  return h("span", { class: "award-icon" }, image);
}

/** A number of seconds with one decimal at most, as the page's language writes it (2.5, 2,5). */
function secondsText(seconds) {
  return new Intl.NumberFormat(pageLanguage(), { maximumFractionDigits: 1 }).format(seconds || 0);
}

/** No line break between a number and the words beside it: "(round 2)", "0.3 s", "2 words". */
function keepNumbers(text) {
  return text.replace(/(\d) /g, "$1\u00a0").replace(/ (\d)/g, "\u00a0$1");
}

/** The translated `text` with its %(word)s placeholder replaced by the word, shown as the
 * site shows words (capitals, bold); the other placeholders are filled already. */
function withWord(text, word) {
  const [before, ...after] = keepNumbers(text).split("%(word)s");
  return [before, h("span", { class: "award-word", text: word }), after.join(word)].filter((part) => part !== "");
}

/** What earned the award: "QUIET (round 2)", "2 words", "CATS in 2.5 s (round 1)", "0 → 3 points". */
function earned(award, winner, roundNumber) {
  const round = roundNumber(winner.round);
  if (award === "longest_word" || award === "best_find") {
    return withWord(gettext("%(word)s (round %(number)s)", { number: round }), winner.word);
  }
  if (award === "fastest_first_word") {
    return withWord(gettext("%(word)s in %(seconds)s s (round %(number)s)", { seconds: secondsText(winner.seconds), number: round }), winner.word);
  }
  if (award === "most_unique") return [keepNumbers(wordsText(winner.count))];
  if (award === "most_improved") {
    return [keepNumbers(ngettext("%(from)s → %(count)s point", "%(from)s → %(count)s points", winner.to, { from: winner.from }))];
  }
  return [];
}

function winnerLine(tag, award, winner, { you, roundNumber }) {
  const mine = you !== null && you !== undefined && winner.id === you;
  return h(
    tag,
    { class: mine ? "award-winner mine" : "award-winner", dataset: { playerId: winner.id } },
    h("span", { class: "nickname", text: winner.nickname }),
    mine ? h("span", { class: "badge you", text: gettext("you") }) : null,
    gettext(": "),
    h("span", { class: "award-earned" }, ...earned(award, winner, roundNumber)),
  );
}

/**
 * The awards as a section: a heading ("Awards", at `level`) and a list, one item per award
 * with its title (a heading one level below), then its winner or winners.
 *
 * Options: `id` (the heading's id, unique on the page), `level` (2 or 3), `you` (the
 * viewer's player id: their awards are marked), `roundNumber` (the number players see for a
 * room's round number: rounds count from 1 in each game), `className` (extra classes).
 * Returns null when there is no award.
 */
export function awardsSection(awards, { id, level = 2, you = null, roundNumber = (number) => number, className = "" } = {}) {
  if (!awards || !awards.length) return null;
  const items = awards.map((entry) => {
    const winners = entry.winners || [];
    const mine = winners.some((winner) => you !== null && winner.id === you);
    const options = { you, roundNumber };
    return h(
      "li",
      { class: mine ? "award mine" : "award", dataset: { award: entry.award } },
      icon(entry.award),
      h(
        "div",
        { class: "award-text" },
        h(`h${level + 1}`, { class: "award-title", text: awardTitle(entry.award) }),
        winners.length === 1
          ? winnerLine("p", entry.award, winners[0], options)
          : h("ul", { class: "award-winners" }, ...winners.map((winner) => winnerLine("li", entry.award, winner, options))),
      ),
    );
  });
  return h(
    "section",
    { class: `awards ${className}`.trim(), "aria-labelledby": id },
    h(`h${level}`, { id, class: "awards-title", text: gettext("Awards") }),
    h("ul", { class: "award-list" }, ...items),
  );
}

/** For a game's rounds whose last one is `round` (room-wide `number`, `number_in_game`):
 * the number players see for a room's round number. */
export function roundInGameFrom(round) {
  const offset = round && round.number_in_game ? round.number - round.number_in_game : 0;
  return (number) => number - offset;
}
