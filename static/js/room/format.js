// How things read on the page: dice faces, times, points, shares.

import { gettext, ngettext, pageLanguage } from "../lib/i18n.js";
import { offThemeText } from "./word-theme.js";

/** A die face as printed: "A", "Qu", "Th"; "" for a blocked square. */
export function faceText(face) {
  if (!face || face === "#") return "";
  return face[0].toUpperCase() + face.slice(1);
}

/** The number players see for a round: its number within the game (each new game
 * counts from 1), where `round.number` runs on across the room's games (addresses keep it). */
export function roundInGame(round) {
  return round.number_in_game || round.number;
}

/** m:ss for a number of milliseconds (rounded up, never negative). */
export function clockText(ms) {
  const total = Math.max(0, Math.ceil(ms / 1000));
  const minutes = Math.floor(total / 60);
  const seconds = String(total % 60).padStart(2, "0");
  return `${minutes}:${seconds}`;
}

/** Whether the shrinking clock (docs/api.md, "Shrinking clock") changes the room's rounds:
 * timed rounds only. */
export function clockShrinks(settings) {
  return Boolean(settings && settings.shrink_seconds && settings.round_seconds);
}

/** "Next round: 2:30" while the shrinking clock runs, else "". */
export function nextRoundText(settings) {
  if (!clockShrinks(settings) || !settings.next_round_seconds) return "";
  return gettext("Next round: %(time)s", { time: clockText(settings.next_round_seconds * 1000) });
}

/** "3 min", "90 s", "untimed" for a round length in seconds (null: untimed). */
export function durationText(seconds) {
  if (!seconds) return gettext("untimed");
  if (seconds % 60 === 0) return gettext("%(minutes)s min", { minutes: seconds / 60 });
  if (seconds > 60) {
    return gettext("%(minutes)s min %(seconds)s s", { minutes: Math.floor(seconds / 60), seconds: seconds % 60 });
  }
  return gettext("%(seconds)s s", { seconds });
}

/** English only ("3 words"): for text in the page's language use ngettext, or the
 * helpers below, since other languages' plurals are not "add an s". */
export function plural(count, one, many = `${one}s`) {
  return `${count} ${count === 1 ? one : many}`;
}

// Why a word does not count, by the verdict code the server sends with its English reason
// (solver.judge.Verdict; round_over from games.words): shown in the page's language.
const VERDICT_REASONS = {
  not_a_word: () => gettext("only letters make a word"),
  too_short: () => gettext("too short"),
  already_entered: () => gettext("you already have that word"),
  not_in_dictionary: () => gettext("not in the dictionary"),
  not_on_board: () => gettext("not on the board"),
  off_theme: () => gettext("off the round's theme"),
  // Chess-clock rounds (chess.js).
  not_your_turn: () => gettext("not your turn"),
  already_played: () => gettext("someone played that word"),
  round_over: () => gettext("the round is over"),
};

/** The reason a refused entry ({verdict, reason}) does not count, in the page's language;
 * the entry's `round` tells an off_theme word's theme (word-theme.js). */
export function reasonText(entry, round = null) {
  if (entry.verdict === "off_theme" && round && round.theme) return offThemeText(round.theme);
  const known = VERDICT_REASONS[entry.verdict];
  return known ? known() : entry.reason;
}

/** "1 word", "12 words" in the page's language. */
export function wordsText(count) {
  return ngettext("%(count)s word", "%(count)s words", count);
}

/** "1 player", "4 players" in the page's language. */
export function playersText(count) {
  return ngettext("%(count)s player", "%(count)s players", count);
}

/** "1 round", "5 rounds" in the page's language. */
export function roundsText(count) {
  return ngettext("%(count)s round", "%(count)s rounds", count);
}

/** A share of the maximum (0..1) as a percentage in the page's language: "12%", "3.5%",
 * "0%" (French "3,5 %"). */
export function percentText(share) {
  const value = share || 0;
  const digits = value === 0 || value * 100 >= 10 ? 0 : 1;
  return new Intl.NumberFormat(pageLanguage(), {
    style: "percent",
    minimumFractionDigits: digits,
    maximumFractionDigits: digits,
  }).format(value);
}

/** Points a word scores by the round's table (letters counted, so Qu is two). */
export function wordPoints(word, pointsTable) {
  const table = pointsTable || {};
  const length = word.length;
  if (table[String(length)] !== undefined) return table[String(length)];
  const lengths = Object.keys(table).map(Number);
  if (!lengths.length) return 0;
  const longest = Math.max(...lengths);
  return length > longest ? table[String(longest)] : 0;
}

export function pointsText(points) {
  return ngettext("%(count)s pt", "%(count)s pts", points);
}

/** 1st, 2nd, 3rd, 4th … (English's suffixes by the last digits; other languages translate
 * each form, e.g. Dutch "%(n)se" for all, French "1er" for the first only.) */
export function ordinal(n) {
  if (n === 1) return gettext("1st");
  const tens = n % 100;
  if (tens >= 11 && tens <= 13) return gettext("%(n)sth", { n });
  const last = n % 10;
  if (last === 1) return gettext("%(n)sst", { n });
  if (last === 2) return gettext("%(n)snd", { n });
  if (last === 3) return gettext("%(n)srd", { n });
  return gettext("%(n)sth", { n });
}

/** Each player's place in a round's results (ranked by the server): equal points, equal
 * place; in a chess round (`round`), the server's order is the outcome: one place each. */
export function roundRanks(players, round = null) {
  if (round && round.mode === "chess") return players.map((_, index) => index + 1);
  let rank = 0;
  let previous = null;
  return players.map((entry, index) => {
    if (entry.round_points !== previous) rank = index + 1;
    previous = entry.round_points;
    return rank;
  });
}

/** A player's words that scored (cancelled duplicates left out). */
export function countedWords(entry) {
  return entry.words_counted;
}
