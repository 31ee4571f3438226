"""Reading GCIDE, the Collaborative International Dictionary of English (Debian ``dict-gcide``,
GPL; Webster's 1913 revised, with additions), in its dictd plain-text form. An entry reads::

    Pursual \\Pur*su"al\\, n. [L. ...]
       1. (Law) The act of pursuit. [R.]
          [1913 Webster]

             A quotation, indented further.   --Author.
       [1913 Webster]

       Note: ...   Syn: ...   {Sub-entry} (phrases), ...

The head line gives the headword, its pronunciation between backslashes, the part of speech
("n.", "v. t.", "a.") and the etymology in brackets; the senses follow, numbered or not.
Players get the senses' text only: no etymology, quotation, note, synonyms, source mark.
"""

from __future__ import annotations

import re
import unicodedata
from collections.abc import Iterator
from dataclasses import dataclass, replace
from pathlib import Path

from meanings.dictd import read_entries

DEBIAN_PACKAGE = "dict-gcide"
DICTIONARY = "gcide"
MAX_SENSES = 3
# A sense is cut at the end of the sentence after this many characters.
MAX_SENSE_CHARS = 200

# Webster's abbreviations and the part of speech shown to players (spaces normalised).
PARTS_OF_SPEECH = {
    "n.": "noun",
    "n. pl.": "noun",
    "n. sing.": "noun",
    "n. sing. & pl.": "noun",
    "v. t.": "verb",
    "v. i.": "verb",
    "v.": "verb",
    "v. t. & i.": "verb",
    "v. i. & t.": "verb",
    "a.": "adjective",
    "adj.": "adjective",
    "prop. a.": "adjective",
    "adv.": "adverb",
    "prep.": "preposition",
    "conj.": "conjunction",
    "interj.": "interjection",
    "pron.": "pronoun",
    "imp.": "verb",
    "p. p.": "verb",
    "imp. & p. p.": "verb",
    "p. pr.": "verb",
    "p. pr. & vb. n.": "verb",
    "p. a.": "adjective",
}

# "Dog \Dog\ (d[add]g), n. [AS. docga]" (and "Color \Col"or\, Colour \Col"our\, n.").
_HEAD = re.compile(r"(?P<head>[^\\\n]+?)\s*\\[^\\\n]*\\(?:,\s*[^\\\n,]+?\s*\\[^\\\n]*\\)*")
_SPELLING = re.compile(r"(?:^|,)\s*(?P<name>[^\\,\n]+?)\s*\\[^\\\n]*\\")
_PRONUNCIATION = re.compile(r"\s*\([^)\n]*\)")
_PART = re.compile(r"[ \t]*,?[ \t]*(?P<part>(?:(?:[a-z]+\.|&)[ \t]*)+)")
# A field label before a sense: "(Zool.)", "(Railroad)", "(Naut. & Mil.)".
_LABEL = re.compile(r"\s*\([A-Z][A-Za-z.&, ]{0,24}\)\s*")
_NUMBER = re.compile(r"^(?:\d+\.|\([a-z]\))\s+")
_SENSE_START = re.compile(r"^ {0,7}(?:\d+\.|\([a-z]\))\s")
# GCIDE's character codes: [ae] -> æ, ['e] -> é, ["u] -> ü, [,c] -> ç.
_LIGATURES = {"ae": "æ", "AE": "Æ", "oe": "œ", "OE": "Œ"}
_ACCENTS = {
    "'": "\u0301",
    "`": "\u0300",
    "^": "\u0302",
    '"': "\u0308",
    "~": "\u0303",
    ",": "\u0327",
}
_ACCENTED = re.compile(r"\[(?P<mark>['`^\"~,])(?P<letter>[A-Za-z])\]")
_CITATION = re.compile(r"\s--\s?[A-Z][^;]*$")
_EXAMPLE = re.compile(r";\s*as,\s.*$")
_QUOTED = re.compile(r"\s\".*$")
_SPACES = re.compile(r"\s+")


@dataclass(frozen=True)
class GcideEntry:
    headword: str
    part_of_speech: str  # "" when the entry names none
    senses: tuple[str, ...]
    # Every spelling the head line gives ("Color", "Colour"), the headword first.
    spellings: tuple[str, ...] = ()


def _characters(text: str) -> str:
    text = _ACCENTED.sub(
        lambda match: unicodedata.normalize("NFC", match["letter"] + _ACCENTS[match["mark"]]),
        text,
    )
    return re.sub(r"\[(ae|AE|oe|OE)\]", lambda match: _LIGATURES[match[1]], text)


def _without_brackets(text: str) -> str:
    """The text without its [bracketed] parts (etymology, "[Obs.]", "[1913 Webster]"),
    nested or over several lines."""
    kept: list[str] = []
    depth = 0
    for char in text:
        if char == "[":
            depth += 1
        elif char == "]" and depth:
            depth -= 1
        elif not depth:
            kept.append(char)
    return "".join(kept)


def _after_bracket(text: str) -> str:
    """The text after its first bracketed part (nested brackets included)."""
    depth = 0
    for position, char in enumerate(text):
        if char == "[":
            depth += 1
        elif char == "]" and depth:
            depth -= 1
            if not depth:
                return text[position + 1 :]
    return ""


def _clean(text: str) -> str:
    text = _SPACES.sub(" ", _without_brackets(text)).strip()
    text = text.replace("{", "").replace("}", "")
    label = _LABEL.match(text)
    text = text[label.end() :] if label else text
    text = _CITATION.sub("", text)
    # Examples ("; as, a sly dog") go, as WordNet's do.
    text = _QUOTED.sub("", _EXAMPLE.sub("", text)).strip(" ;,")
    if text and text[-1] not in ".!?)":
        text += "."
    if len(text) > MAX_SENSE_CHARS:
        end = text.find(". ", MAX_SENSE_CHARS)
        text = text if end < 0 else text[: end + 1]
    return text


def _paragraphs(body: str) -> Iterator[list[str]]:
    """The body's paragraphs (split on blank lines), each a sense's lines."""
    lines: list[str] = []
    for line in body.splitlines():
        if not line.strip():
            if lines:
                yield lines
            lines = []
        elif _SENSE_START.match(line) and lines:
            yield lines  # numbered senses not parted by a blank line
            lines = [line]
        else:
            lines.append(line)
    if lines:
        yield lines


def _is_sense(lines: list[str]) -> bool:
    first = lines[0]
    indent = len(first) - len(first.lstrip())
    text = first.strip()
    # Quotations are indented further; notes, synonyms, phrases ("{To dog}") and source
    # marks ("[1913 Webster]") are not meanings.
    return indent <= 7 and not text.startswith(("Note:", "Syn:", "Usage:", "{", "[", "--"))


def parse_entry(text: str) -> GcideEntry | None:
    """An entry's headword, part of speech and first senses, or None when it has none."""
    text = _characters(text.strip("\n"))
    head = _HEAD.match(text)
    if head is None:
        return None
    rest = text[head.end() :]
    pronunciation = _PRONUNCIATION.match(rest)
    if pronunciation:
        rest = rest[pronunciation.end() :]
    part_match = _PART.match(rest)
    part = ""
    if part_match:
        part = _SPACES.sub(" ", part_match["part"]).strip()
        rest = rest[part_match.end() :]
    while rest.lstrip().startswith("["):  # the etymology, "[Written also ...]", "[Obs.]"
        rest = _after_bracket(rest)
    senses: list[str] = []
    for lines in _paragraphs(rest):
        if not _is_sense(lines):
            continue
        sense = _clean(_NUMBER.sub("", _SPACES.sub(" ", " ".join(lines)).strip()))
        if sense and any(char.isalpha() for char in sense) and sense not in senses:
            senses.append(sense[0].upper() + sense[1:])
        if len(senses) >= MAX_SENSES:
            break
    if not senses:
        return None
    spellings = tuple(match["name"].strip() for match in _SPELLING.finditer(head[0]))
    return GcideEntry(
        spellings[0] if spellings else head["head"].strip(),
        PARTS_OF_SPEECH.get(part, ""),
        tuple(senses),
        spellings,
    )


def read_dictionary(index_path: Path, data_path: Path) -> Iterator[tuple[str, GcideEntry]]:
    """(index headword, entry) for the entries that are the index headword's own (GCIDE also
    indexes words an entry merely mentions: "dog" in "Sundog")."""
    seen: set[tuple[str, str]] = set()
    for headword, text in read_entries(index_path, data_path):
        key = (headword.lower(), text)
        if key in seen:
            continue
        seen.add(key)
        entry = parse_entry(text)
        if entry is None:
            continue
        spelling = next((s for s in entry.spellings if s.lower() == headword.lower()), None)
        if spelling is not None:
            yield headword, replace(entry, headword=spelling)
