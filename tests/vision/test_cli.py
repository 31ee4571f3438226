"""``python -m vision recognize``: JSON lines in order, errors per photo, exit status."""

from __future__ import annotations

import io
import json
import os
import subprocess
import sys
from pathlib import Path

import numpy as np

from vision import cli
from vision.synth import render_board

REPO = Path(__file__).resolve().parents[2]


def _board_file(tmp_path: Path, encode) -> Path:
    board = render_board(np.random.default_rng(21), 4, fill=0.75)
    path = tmp_path / "board.jpg"
    path.write_bytes(encode(board.image, quality=92))
    return path


def test_json_lines_in_order(tmp_path: Path, reader, monkeypatch, encode) -> None:
    """Each photo gives one JSON object, in the order given, with the documented keys."""
    monkeypatch.setattr(cli, "BoardReader", lambda models: reader)  # reuse the loaded models
    good = _board_file(tmp_path, encode)
    bad = tmp_path / "notes.txt"
    bad.write_text("not a photo")
    out = io.StringIO()
    status = cli.main(["recognize", str(good), str(bad), str(good), "--json"], out=out)
    lines = [json.loads(line) for line in out.getvalue().splitlines()]
    assert status == 1  # one photo failed
    assert [line["path"] for line in lines] == [str(good), str(bad), str(good)]
    first = lines[0]
    assert set(first) == {
        "path",
        "rows",
        "cols",
        "letters",
        "confidence",
        "centers",
        "corners",
        "remembered",
        "set_check",
        "unaided",
    }
    assert first["set_check"] == []  # no --dice: not checked
    assert first["unaided"] == {"letters": first["letters"], "confidence": first["confidence"]}
    assert (first["rows"], first["cols"]) == (4, 4)
    for key in ("letters", "confidence", "centers"):
        assert len(first[key]) == 4
        assert all(len(row) == 4 for row in first[key])
    assert all(
        isinstance(face, str) and face == face.lower() for row in first["letters"] for face in row
    )
    assert all(len(point) == 2 for row in first["centers"] for point in row)
    assert lines[1] == {
        "path": str(bad),
        "error": "the file is not an image (JPEG, PNG, WebP, ...)",
    }


def test_text_output_and_size_hint(tmp_path: Path, reader, monkeypatch, encode) -> None:
    """Without --json the board is printed as rows; a wrong --size is an error line."""
    monkeypatch.setattr(cli, "BoardReader", lambda models: reader)
    good = _board_file(tmp_path, encode)
    out = io.StringIO()
    assert cli.main(["recognize", str(good), "--size", "4x4"], out=out) == 0
    text = out.getvalue().splitlines()
    assert text[0] == f"{good}: 4x4"
    assert len(text) == 6
    out = io.StringIO()
    assert cli.main(["recognize", str(good), "--size", "6x6"], out=out) == 1
    assert out.getvalue().strip() == f"{good}: error: found 16 dice, expected 36"


def test_module_entry_point(tmp_path: Path, encode) -> None:
    """The real command runs in a fresh process (models loaded from models/)."""
    blank = tmp_path / "blank.png"
    blank.write_bytes(encode(np.full((200, 200, 3), 90, np.uint8), "PNG"))
    env = {**os.environ, "PYTHONPATH": str(REPO)}
    done = subprocess.run(
        [sys.executable, "-m", "vision", "recognize", str(blank), "--json", "--threads", "1"],
        capture_output=True,
        text=True,
        cwd=REPO,
        env=env,
        timeout=120,
        check=False,
    )
    assert done.returncode == 1, done.stderr
    assert json.loads(done.stdout) == {"path": str(blank), "error": "no grid found"}


def test_missing_model_is_a_usage_error(tmp_path: Path, capsys) -> None:
    """Without the model files the command says what is missing and exits 2."""
    out = io.StringIO()
    status = cli.main(["recognize", "x.jpg", "--models", str(tmp_path)], out=out)
    assert status == 2
    assert "model file missing" in capsys.readouterr().err
    assert out.getvalue() == ""


def test_remember_then_recognize_with_the_set(tmp_path, validation_photos) -> None:
    """``remember`` keeps a confirmed board's dice in the set's folder; ``recognize --set``
    reads with them (same JSON as without)."""
    photo = validation_photos[0]
    out = io.StringIO()
    read = cli.main(["recognize", str(photo.path), "--json"], out=out)
    assert read == 0
    first = json.loads(out.getvalue())
    board = " ".join("".join("q" if f == "qu" else f for f in row) for row in first["letters"])
    folder = tmp_path / "grandmas-set"
    out = io.StringIO()
    assert cli.main(["remember", "--set", str(folder), str(photo.path), board], out=out) == 0
    assert f"{first['rows'] * first['cols']} exemplars" in out.getvalue()
    out = io.StringIO()
    assert cli.main(["recognize", "--set", str(folder), str(photo.path), "--json"], out=out) == 0
    assert json.loads(out.getvalue())["letters"] == first["letters"]


def test_remember_refuses_a_board_that_is_not_one(tmp_path, validation_photos) -> None:
    status = cli.main(
        ["remember", "--set", str(tmp_path / "set"), str(validation_photos[0].path), "abc de"],
        out=io.StringIO(),
    )
    assert status == 2 and not (tmp_path / "set").exists()
