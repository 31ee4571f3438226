// Interface text in the reader's language. Django's JavaScript catalogue (served at
// /jsi18n/, loaded by base.html before the page's modules) defines the global gettext
// functions; without it (a failed load) the English text is shown. The names gettext and
// ngettext are what `makemessages -d djangojs` looks for, so keep calling them by these names.

const catalogue = globalThis;

// Fills "%(name)s" placeholders from values (missing names are left as they are).
export function interpolate(text, values) {
  if (!values) return text;
  return text.replace(/%\(([a-z_]+)\)s/g, (whole, name) => (name in values ? String(values[name]) : whole));
}

// The translation of text, with its %(name)s placeholders filled from values.
export function gettext(text, values) {
  const translated = typeof catalogue.gettext === "function" ? catalogue.gettext(text) : text;
  return interpolate(translated, values);
}

// The singular or plural translation for count; values.count defaults to count.
export function ngettext(singular, plural, count, values) {
  const translated =
    typeof catalogue.ngettext === "function"
      ? catalogue.ngettext(singular, plural, count)
      : count === 1
        ? singular
        : plural;
  return interpolate(translated, { count, ...values });
}

// The interface language the page was served in (<html lang>), e.g. "en", "nl", "fr".
export function pageLanguage() {
  return document.documentElement.lang || "en";
}
