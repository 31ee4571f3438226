"""How nicknames are shown and how they are compared. Pure functions, no Django.

A nickname is shown as typed, only NFC-normalised and with whitespace collapsed. Two
nicknames clash when their *keys* are equal: the key ignores case, width and font variants
(NFKC), accents and other combining marks, invisible format characters, and Cyrillic or
Greek letters that look like Latin ones, so "Bob", "bob", "B\u043eb" (a Cyrillic o) and a
fullwidth "Bob" cannot sit in one room and be mistaken for each other.

The look-alike table is deliberately small and hand-written (the common letters of
Unicode's confusables.txt that matter for names typed on phones), not the full TR39
skeleton: it only has to stop one player passing as another at a table.
"""

from __future__ import annotations

import unicodedata

# Each Latin letter and the letters that look like it (escapes keep the source readable as
# ASCII). Letters alike only as capitals (Cyrillic Ve, En, Em, Te; Greek Beta, Eta...) are
# listed as capitals only.
_LOOKALIKES: dict[str, str] = {
    "a": "\u0430\u0410\u03b1\u0391\u0251",  # Cyrillic a A, Greek alpha Alpha, Latin alpha
    "b": "\u0412\u0392",  # Cyrillic Ve, Greek Beta
    "c": "\u0441\u0421",  # Cyrillic es Es
    "d": "\u0501",  # Cyrillic komi de
    "e": "\u0435\u0415\u0395",  # Cyrillic ie Ie, Greek Epsilon
    "g": "\u0261",  # Latin script g
    "h": "\u04bb\u041d\u0397",  # Cyrillic shha, En, Greek Eta
    "i": "\u0456\u0406\u03b9\u0399\u0131",  # Cyrillic i I, Greek iota Iota, dotless i
    "j": "\u0458\u0408\u0237",  # Cyrillic je Je, dotless j
    "k": "\u043a\u041a\u03ba\u039a",  # Cyrillic ka Ka, Greek kappa Kappa
    "l": "\u04cf\u04c0",  # Cyrillic palochka (both cases)
    "m": "\u041c\u039c",  # Cyrillic Em, Greek Mu
    "n": "\u039d",  # Greek Nu
    "o": "\u043e\u041e\u03bf\u039f",  # Cyrillic o O, Greek omicron Omicron
    "p": "\u0440\u0420\u03c1\u03a1",  # Cyrillic er Er, Greek rho Rho
    "q": "\u051b\u051a",  # Cyrillic qa Qa
    "s": "\u0455\u0405",  # Cyrillic dze Dze
    "t": "\u0422\u03a4",  # Cyrillic Te, Greek Tau
    "u": "\u03c5",  # Greek upsilon
    "v": "\u03bd",  # Greek nu
    "w": "\u051d\u051c",  # Cyrillic we We
    "x": "\u0445\u0425\u03c7\u03a7",  # Cyrillic ha Ha, Greek chi Chi
    "y": "\u0443\u0423\u04af\u04ae\u03a5",  # Cyrillic u U, straight u U, Greek Upsilon
    "z": "\u0396",  # Greek Zeta
}
_LOOKALIKE_TABLE = str.maketrans(
    {other: latin for latin, others in _LOOKALIKES.items() for other in others}
)


# Combining marks (accents, points) one character may carry in a nickname, after NFC:
# Thai tone marks over vowel signs and Hebrew points need two; a pile of them (23 accents
# on an "a") reaches over the lines around it on every screen and picture that shows it.
MAX_MARKS_PER_LETTER = 2


def longest_mark_run(text: str) -> int:
    """The most combining marks (Mn, Me) in a row in ``text`` once NFC-normalised: what
    one character carries that has no precomposed form (NFC folds "e" + acute into "é")."""
    longest = run = 0
    for ch in unicodedata.normalize("NFC", text):
        run = run + 1 if unicodedata.category(ch) in ("Mn", "Me") else 0
        longest = max(longest, run)
    return longest


def display_nickname(raw: str) -> str:
    """The nickname as shown: NFC (one code point per accented letter), runs of whitespace
    collapsed to one space, trimmed."""
    return " ".join(unicodedata.normalize("NFC", raw).split())


def nickname_key(nickname: str) -> str:
    """What two nicknames must not share in one room (see the module's docstring)."""
    text = unicodedata.normalize("NFKC", nickname)  # width, ligatures, math and font forms
    # Decompose, then drop combining marks (accents) and format characters (zero-width).
    text = "".join(
        ch
        for ch in unicodedata.normalize("NFD", text)
        if unicodedata.category(ch) not in ("Mn", "Me", "Cf")
    )
    # Look-alikes before case-folding (capital-only ones) and after (folded capitals).
    text = text.translate(_LOOKALIKE_TABLE).casefold().translate(_LOOKALIKE_TABLE)
    return " ".join(unicodedata.normalize("NFC", text).split())
