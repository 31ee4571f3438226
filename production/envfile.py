"""Environment files as systemd's ``EnvironmentFile=`` reads them, in the subset the
template uses (deploy/boggle.env.example): ``KEY=value`` lines, blank lines and ``#``
comments; a value may be wrapped in one pair of quotes. The supervisor's processes read the
same file through ``production.run --env-file``, so both see the same values."""

from __future__ import annotations

import re
from pathlib import Path

KEY = re.compile(r"^[A-Za-z_][A-Za-z0-9_]*$")


class EnvFileError(ValueError):
    """A line that is not ``KEY=value``: says which, so the operator can fix it."""


def parse(text: str, source: str = "environment file") -> dict[str, str]:
    values: dict[str, str] = {}
    for number, raw in enumerate(text.splitlines(), start=1):
        line = raw.strip()
        if not line or line.startswith(("#", ";")):
            continue
        key, equals, value = line.partition("=")
        key, value = key.strip(), value.strip()
        if not equals or not KEY.match(key):
            raise EnvFileError(f"{source}, line {number}: expected KEY=value, not {raw!r}")
        if len(value) >= 2 and value[0] == value[-1] and value[0] in "\"'":
            value = value[1:-1]
        values[key] = value
    return values


def read(path: Path) -> dict[str, str]:
    return parse(path.read_text(encoding="utf-8"), str(path))


def with_values(template: str, values: dict[str, str]) -> str:
    """``template`` (an environment file) with the given keys' values replaced, its comments
    kept; keys it lacks are added at the end."""
    lines, seen = [], set()
    for raw in template.splitlines():
        key = raw.partition("=")[0].strip()
        if "=" in raw and not raw.lstrip().startswith("#") and key in values:
            lines.append(f"{key}={values[key]}")
            seen.add(key)
        else:
            lines.append(raw)
    missing = [key for key in values if key not in seen]
    if missing:
        lines.append("")
        lines.extend(f"{key}={values[key]}" for key in missing)
    return "\n".join(lines) + "\n"
