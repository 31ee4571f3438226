// A room's themed word rules as the pages say them (docs/api.md, "Themed word rules"):
// what a round's theme counts, and why a word is off it.

import { gettext } from "../lib/i18n.js";

// The theme rules, in the order the host's menu offers them, and those that name a letter.
export const THEME_RULES = ["none", "palindromes", "contains", "starts_with", "common", "list"];
export const LETTER_RULES = ["contains", "starts_with"];

// Each rule's two texts: what it counts, and why a word the dictionary has does not count
// (the server's off_theme reason, solver.themes.Theme.reason, in the page's language).
const TEXTS = {
  palindromes: { counts: () => gettext("palindromes only"), refuses: () => gettext("not a palindrome") },
  contains: {
    counts: ({ letter }) => gettext("words containing %(letter)s", { letter }),
    refuses: ({ letter }) => gettext("has no %(letter)s", { letter }),
  },
  starts_with: {
    counts: ({ letter }) => gettext("words starting with %(letter)s", { letter }),
    refuses: ({ letter }) => gettext("does not start with %(letter)s", { letter }),
  },
  common: { counts: () => gettext("common words only"), refuses: () => gettext("not a common word") },
  list: {
    counts: ({ title }) => gettext("words from the theme list %(title)s", { title }),
    refuses: ({ title }) => gettext("not in the theme list %(title)s", { title }),
  },
};

/** The names a theme's texts use: its letter as printed on a die, its list's title. */
function themeNames(theme) {
  return { letter: (theme.letter || "").toUpperCase(), title: theme.title || theme.list };
}

/** What a theme ({rule, letter, list, title}) counts: "palindromes only", "words containing E". */
export function themeText(theme) {
  const texts = TEXTS[theme.rule];
  return texts ? texts.counts(themeNames(theme)) : gettext("every word");
}

/** Why a word the dictionary has is off a round's theme: "not a palindrome", "has no E". */
export function offThemeText(theme) {
  const texts = TEXTS[theme.rule];
  return texts ? texts.refuses(themeNames(theme)) : gettext("off the round's theme");
}

/** "Theme: palindromes only" for a round, or "" when it has no theme. */
export function themeLine(round) {
  return round && round.theme ? gettext("Theme: %(theme)s", { theme: themeText(round.theme) }) : "";
}

/** The settings' theme in a round's shape (the list's title from the state's `theme_lists`),
 * or null when the room plays every word. */
export function settingsTheme(settings, lists = {}) {
  const rule = settings.theme || "none";
  if (rule === "none") return null;
  return { rule, letter: settings.theme_letter, list: settings.theme_list, title: lists[settings.theme_list] || null };
}
