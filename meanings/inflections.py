"""Guessing the dictionary form of a Dutch or French word (FreeDict lists lemmas only).

WordNet has morphy for English; here a short list of regular endings per language does
the same: each rule turns the word into a candidate lemma, and a candidate counts only if
the dictionary has it ("maisons" -> "maison", "chantaient" -> "chanter", "huizen" ->
"huis", "loopt" -> "lopen"). Words are folded (no accents), as boards spell them.
Irregular forms ("yeux", "liep") are not found: the site then shows the Wiktionary link.
"""

from __future__ import annotations

from collections.abc import Callable, Iterator

# French: (ending, replacement), most telling first.
_FRENCH_ER = (
    "eraient", "assions", "assiez", "erions", "eriez", "erons", "eront", "erais", "erait",
    "assent", "asses", "aient", "erent", "erai", "eras", "erez", "ions", "iez", "ons",
    "ais", "ait", "ant", "ent", "era", "ees", "ez", "es", "ee", "ai", "as", "e", "a",
)  # fmt: skip
_FRENCH_IR = (
    "issaient", "issions", "issiez", "issons", "issez", "issent", "issais", "issait",
    "issant", "iraient", "irons", "iront", "irais", "irait", "irent", "irai", "iras",
    "irez", "isse", "ira", "ies", "is", "it", "ie", "i",
)  # fmt: skip
_FRENCH_RE = (
    "aient",
    "ions",
    "iez",
    "ons",
    "ent",
    "ais",
    "ait",
    "ues",
    "ez",
    "ue",
    "us",
    "u",
    "s",
    "t",
)
FRENCH_RULES: tuple[tuple[str, str], ...] = (
    ("aux", "al"),
    ("ives", "if"),
    ("ive", "if"),
    ("euses", "eux"),
    ("euse", "eux"),
    ("elles", "el"),
    ("elle", "el"),
    ("ennes", "en"),
    ("enne", "en"),
    ("eres", "er"),
    ("ere", "er"),
    ("es", ""),
    ("s", ""),
    ("x", ""),
    ("e", ""),
    *((ending, "er") for ending in _FRENCH_ER),
    *((ending, "ir") for ending in _FRENCH_IR),
    *((ending, "re") for ending in _FRENCH_RE),
)

_VOWELS = set("aeiou")


def _dutch_stems(stem: str, open_syllable: bool) -> Iterator[str]:
    """Spellings a Dutch stem may have in its dictionary form: as is, with a doubled
    consonant undone ("bakk" -> "bak"), a vowel doubled back ("bom" -> "boom"), and v, z at
    the end written f, s ("huiz" -> "huis", "brieven": "briev" -> "brief"). Before an
    ending that starts with a vowel (``open_syllable``), a single vowel and consonant
    spell a long vowel ("bomen", "grote"): the doubled form comes first ("boom", "groot"
    rather than "bom", "grot"); a few short ones ("dagen") still find their stem after."""
    forms = [stem]
    if len(stem) >= 3 and stem[-1] == stem[-2] and stem[-1] not in _VOWELS:
        forms.append(stem[:-1])
    if (
        len(stem) >= 3
        and stem[-1] not in _VOWELS
        and stem[-2] in "aeou"
        and stem[-3] not in _VOWELS
    ):
        doubled = stem[:-2] + stem[-2] * 2 + stem[-1]
        if open_syllable:
            forms.insert(0, doubled)
        else:
            forms.append(doubled)
    for form in list(forms):
        if form.endswith("v"):
            forms.append(form[:-1] + "f")
        elif form.endswith("z"):
            forms.append(form[:-1] + "s")
    yield from forms


def _dutch_infinitives(stem: str) -> Iterator[str]:
    """Infinitives of a verb stem: "werk" -> "werken", "loop" -> "lopen", "leef" ->
    "leven", "zet" -> "zetten"."""
    yield stem + "en"
    base = stem
    if stem.endswith("f"):
        base = stem[:-1] + "v"
    elif stem.endswith("s") and not stem.endswith("ss"):
        base = stem[:-1] + "z"
    if len(base) >= 3 and base[-2] == base[-3] and base[-2] in "aeou":
        yield base[:-2] + base[-1] + "en"  # loop -> lopen, leev -> leven
    yield base + "en"
    yield stem + stem[-1] + "en"  # zet -> zetten


# Diminutives, plurals, declined adjectives, comparatives ("-st" is left out: as often a
# verb's "bonst" as a superlative).
_DUTCH_ENDINGS = ("etjes", "etje", "tjes", "tje", "pjes", "pje", "jes", "je", "en", "ens", "e", "s", "er")  # fmt: skip
_DUTCH_VERB_ENDINGS = ("den", "ten", "de", "te", "end", "t", "d")


def dutch_candidates(word: str) -> Iterator[str]:
    """Possible Dutch lemmas of ``word``, likeliest first."""
    for ending in _DUTCH_ENDINGS:
        if word.endswith(ending) and len(word) > len(ending) + 1:
            yield from _dutch_stems(word[: -len(ending)], open_syllable=ending[0] in _VOWELS)
    if word.endswith("end"):  # lopend -> lopen
        yield word[:-1]
    for ending in _DUTCH_VERB_ENDINGS:
        if word.endswith(ending) and len(word) > len(ending) + 1:
            stem = word[: -len(ending)]
            if stem.startswith("ge") and len(stem) > 4:  # gewerkt -> werken
                yield from _dutch_infinitives(stem[2:])
            yield from _dutch_infinitives(stem)
    yield from _dutch_infinitives(word)  # werk (I work) -> werken


def french_candidates(word: str) -> Iterator[str]:
    """Possible French lemmas of ``word``, likeliest first."""
    for ending, replacement in FRENCH_RULES:
        if word.endswith(ending) and len(word) > len(ending) + 1:
            yield word[: -len(ending)] + replacement


CANDIDATES: dict[str, Callable[[str], Iterator[str]]] = {
    "fr": french_candidates,
    "nl": dutch_candidates,
}


def guess_lemmas(
    word: str, language: str, known: Callable[[str], bool], most: int = 2
) -> list[str]:
    """Up to ``most`` lemmas of ``word`` that ``known`` accepts (never the word itself)."""
    found: list[str] = []
    rules = CANDIDATES.get(language)
    if rules is None:
        return found
    for candidate in rules(word):
        # Lemmas of one or two letters are mostly false friends ("enne" is not "en").
        if (
            len(candidate) >= 3
            and candidate != word
            and candidate not in found
            and known(candidate)
        ):
            found.append(candidate)
            if len(found) >= most:
                break
    return found
