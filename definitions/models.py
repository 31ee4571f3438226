"""Definitions staff write in the admin: they win over the compiled ones (meanings/)."""

from __future__ import annotations

from typing import Any

from django.core.exceptions import ValidationError
from django.db import models
from django.utils.translation import gettext
from django.utils.translation import gettext_lazy as _

from meanings.store import fold


class Definition(models.Model):
    """One sense of a word in a language, shown instead of WordNet's or FreeDict's. A word
    may have several (one row each); a definition of a lemma ("wolf") also serves its forms
    ("wolves") when the compiled data knows them."""

    language = models.CharField(
        max_length=16,
        db_index=True,
        help_text=_(
            "Language code, e.g. en, nl, fr: applies to every dictionary of that language."
        ),
    )
    word = models.CharField(
        max_length=64, help_text=_("As it is written, accents included (élève); letters only.")
    )
    key = models.CharField(
        max_length=64,
        editable=False,
        db_index=True,
        help_text=_("The word as boards spell it (lower case, no accents): what look-ups match."),
    )
    part_of_speech = models.CharField(
        max_length=32, blank=True, help_text=_("e.g. noun, verb, adjective (optional).")
    )
    text = models.TextField(help_text=_("The meaning, as players will read it."))
    created_at = models.DateTimeField(auto_now_add=True)
    updated_at = models.DateTimeField(auto_now=True)

    class Meta:
        ordering = ["language", "key", "id"]
        indexes = [models.Index(fields=["language", "key"], name="definition_lookup")]

    def __str__(self) -> str:
        return f"{self.word} ({self.language})"

    def clean(self) -> None:
        self.language = self.language.strip().lower()
        self.word = self.word.strip()
        if not fold(self.word).isalpha():
            raise ValidationError({"word": gettext("A single word of letters only.")})

    def save(self, *args: Any, **kwargs: Any) -> None:
        self.key = fold(self.word)
        super().save(*args, **kwargs)
