"""The JSON examples of docs/api.md, checked against (or rewritten from) real responses.

An example block is marked with an HTML comment on the line before its fence::

    <!-- example: create-room -->
    ```json
    {...}
    ```

``tests/games/test_doc_examples.py`` plays a scenario that produces the real response (or
socket message) for every marked example, with the example's own inputs, and compares the
two after ``normalised`` has blanked what differs from run to run (room codes, tokens,
times, ids). A block holds one JSON value, or one message per line (a request, then its
answers): then the scenario sends the block's requests as written and compares the rest.

Elisions a block may use: an object with the key ``"..."`` lists only some of its fields
(only those are compared); a list whose last item is ``"..."`` shows only its first items.

To rewrite the marked blocks from real responses (after changing the API)::

    python -m tests.games.doc_examples --write
"""

from __future__ import annotations

import json
import os
import re
import subprocess
import sys
from dataclasses import dataclass
from pathlib import Path
from typing import Any

API_DOC = Path(__file__).resolve().parents[2] / "docs" / "api.md"
# Set by ``--write``: the test rewrites the blocks instead of comparing them.
WRITE_ENV = "BOGGLE_WRITE_DOC_EXAMPLES"
ELIDED = "..."
# Values that differ from run to run: blanked before comparing (null stays null).
VOLATILE_KEYS = frozenset(
    {"token", "key", "join_url", "websocket_path", "poll_url", "server_time", "date"}
)
ID_KEYS = frozenset(
    {
        "id",
        "host_id",
        "you",
        "player_id",
        "uploaded_by",
        "challenge_id",
        "photo_id",
        "turn",
        "winner",
    }
)
ID_LIST_KEYS = frozenset({"found_by", "voters", "voted", "winners", "out"})
MARKER = re.compile(r"^<!-- example: ([a-z0-9-]+) -->\n```json\n(.*?)\n```$", re.M | re.S)
WIDTH = 100


@dataclass(frozen=True)
class Example:
    name: str
    text: str  # the block's JSON text
    start: int  # where the text starts in the document
    end: int

    @property
    def lines(self) -> list[Any]:
        """The block as messages: its one JSON value, or one value per line."""
        try:
            return [json.loads(self.text)]
        except json.JSONDecodeError:
            return [json.loads(line) for line in self.text.splitlines() if line.strip()]


def examples(document: str | None = None) -> dict[str, Example]:
    """The marked example blocks of docs/api.md, by name."""
    text = API_DOC.read_text() if document is None else document
    found: dict[str, Example] = {}
    for match in MARKER.finditer(text):
        assert match.group(1) not in found, f"two examples named {match.group(1)!r}"
        found[match.group(1)] = Example(match.group(1), match.group(2), *match.span(2))
    return found


def normalised(value: Any, parent: dict | None = None, key: str | None = None) -> Any:
    """``value`` with what differs between runs blanked: volatile fields, ids, times (keys
    ending in ``_at``) and room codes (``code`` outside an error)."""
    if isinstance(value, dict):
        return {k: normalised(v, value, k) for k, v in value.items()}
    if isinstance(value, list):
        if key in ID_LIST_KEYS:
            return ["<id>" for _ in value]
        return [normalised(item, parent, None) for item in value]
    if value is None or key is None:
        return value
    room_code = key == "code" and parent is not None and "message" not in parent
    if key in VOLATILE_KEYS or key in ID_KEYS or key.endswith("_at") or room_code:
        return f"<{key}>"
    return value


def shaped_like(documented: Any, real: Any) -> Any:
    """``real`` with the documented example's elisions: what the block should show."""
    if isinstance(documented, dict) and isinstance(real, dict):
        if ELIDED in documented:
            return {k: shaped_like(documented[k], real[k]) for k in documented if k in real} | {
                ELIDED: ELIDED
            }
        return {k: shaped_like(documented.get(k), v) for k, v in real.items()}
    if isinstance(documented, list) and isinstance(real, list):
        if documented and documented[-1] == ELIDED:
            shown = documented[:-1]
            return [shaped_like(d, r) for d, r in zip(shown, real, strict=False)] + [ELIDED]
        return [
            shaped_like(documented[i] if i < len(documented) else None, item)
            for i, item in enumerate(real)
        ]
    return real


def mismatch(documented: Any, real: Any) -> tuple[Any, Any] | None:
    """The two normalised values when the documented example is not the real one shaped
    like it, else None."""
    want, got = normalised(documented), normalised(shaped_like(documented, real))
    return None if want == got else (want, got)


def pretty(value: Any, indent: int = 0, column: int | None = None) -> str:
    """JSON on one line when it fits ``WIDTH``, else its members packed onto lines of at
    most ``WIDTH`` (a member too long for a line of its own is broken the same way).
    ``column``: where the value starts on its first line (after its key)."""
    flat = json.dumps(value, ensure_ascii=True)
    if (
        (indent if column is None else column) + len(flat) <= WIDTH
        or not isinstance(value, (dict, list))
        or not value
    ):
        return flat
    inner = indent + 2
    if isinstance(value, dict):
        members = [
            f"{json.dumps(k)}: {pretty(v, inner, inner + len(json.dumps(k)) + 2)}"
            for k, v in value.items()
        ]
        opening, closing = "{", "}"
    else:
        members = [pretty(item, inner) for item in value]
        opening, closing = "[", "]"
    lines: list[str] = []
    for member in members:
        if lines and "\n" not in lines[-1] and "\n" not in member:
            joined = f"{lines[-1]}, {member}"
            if inner + len(joined) + 1 <= WIDTH:
                lines[-1] = joined
                continue
        lines.append(member)
    pad = " " * inner
    return f"{opening}\n{pad}" + f",\n{pad}".join(lines) + f"\n{' ' * indent}{closing}"


def block_text(example: Example, real_lines: list[Any]) -> str:
    """The text a block should hold: its requests as written, its answers from ``real``."""
    documented = example.lines
    if len(documented) == 1:
        return pretty(shaped_like(documented[0], real_lines[0]))
    return "\n".join(
        json.dumps(shaped_like(d, r), ensure_ascii=True)
        for d, r in zip(documented, real_lines, strict=True)
    )


def rewrite(real: dict[str, list[Any]]) -> list[str]:
    """Rewrite the named blocks of docs/api.md from real messages; returns the names
    rewritten. Reads the file afresh: other edits made meanwhile are kept."""
    text = API_DOC.read_text()
    changed = []
    for example in sorted(examples(text).values(), key=lambda e: e.start, reverse=True):
        if example.name not in real:
            continue
        new = block_text(example, real[example.name])
        if new != example.text:
            text = text[: example.start] + new + text[example.end :]
            changed.append(example.name)
    API_DOC.write_text(text)
    return sorted(changed)


def main(argv: list[str]) -> int:
    if argv != ["--write"]:
        print("usage: python -m tests.games.doc_examples --write", file=sys.stderr)
        return 2
    test = Path(__file__).with_name("test_doc_examples.py")
    env = os.environ | {WRITE_ENV: "1"}
    return subprocess.run(
        [sys.executable, "-m", "pytest", "-q", "-p", "no:cacheprovider", str(test)],
        env=env,
        check=False,
    ).returncode


if __name__ == "__main__":
    raise SystemExit(main(sys.argv[1:]))
