"""The board-wide orientation prior that settles M/W and N/Z."""

from __future__ import annotations

import numpy as np

from vision.classify import apply_turn_prior
from vision.faces import FACE_INDEX, FACES, TURNS, normalise_label


def _die(face: str, turns: int, p: float = 1.0) -> np.ndarray:
    joint = np.zeros((len(FACES), TURNS))
    joint[FACE_INDEX[face], turns] = p
    return joint


def test_unbarred_m_or_w_follows_the_board() -> None:
    """Upside-down W looks like M: on a board of upright dice, it is read as M."""
    upright = [_die(face, 0) for face in "abcdefgh"]
    ambiguous = 0.5 * _die("m", 0) + 0.5 * _die("w", 2)
    posterior = apply_turn_prior(np.array([*upright, ambiguous]))
    marginal = posterior[-1].sum(axis=-1)
    assert FACES[int(marginal.argmax())] == "m"
    upside_down = [_die(face, 2) for face in "abcdefgh"]
    posterior = apply_turn_prior(np.array([*upside_down, ambiguous]))
    assert FACES[int(posterior[-1].sum(axis=-1).argmax())] == "w"


def test_prior_keeps_clear_readings() -> None:
    """A confident reading is not overturned by the other dice's orientation."""
    others = [_die(face, 1) for face in "abcdefgh"]
    clear = 0.95 * _die("n", 0) + 0.05 * _die("z", 1)
    posterior = apply_turn_prior(np.array([*others, clear]))
    assert FACES[int(posterior[-1].sum(axis=-1).argmax())] == "n"
    assert np.allclose(posterior.sum(axis=(1, 2)), 1)


def test_label_aliases() -> None:
    """Data-set labels are normalised to board faces."""
    assert normalise_label("Q") == "qu"
    assert normalise_label("wild") == "#"
    assert normalise_label("An") == "an"
