"""Staff write definitions in the admin; the look-up key is the word as boards spell it."""

from __future__ import annotations

import pytest
from django.test import Client

from definitions.models import Definition

pytestmark = pytest.mark.django_db

ADD = "/admin/definitions/definition/add/"


def test_staff_add_a_definition_and_its_key_is_folded(admin_client: Client) -> None:
    response = admin_client.post(
        ADD, {"language": "FR", "word": "Élève", "part_of_speech": "noun", "text": "pupil"}
    )
    assert response.status_code == 302
    definition = Definition.objects.get()
    assert (definition.language, definition.word, definition.key) == ("fr", "Élève", "eleve")
    assert admin_client.get("/admin/definitions/definition/").status_code == 200


def test_a_phrase_is_refused_with_a_reason(admin_client: Client) -> None:
    response = admin_client.post(ADD, {"language": "en", "word": "hot dog", "text": "food"})
    assert response.status_code == 200
    assert "A single word of letters only." in response.content.decode()
    assert not Definition.objects.exists()
