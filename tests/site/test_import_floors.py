"""The floors of docs/architecture.md, checked over the project's import graph.

docs/architecture.md ("The floors") puts every first-party package on a floor: the ground
(``web``, ``solver``, ``vision``, ``meanings``, ``netlab``), the apps above it, the project's
wiring (``boggle_site``) and the operations (``production``) on top. A package imports only
what its row's Imports column names; no two packages import each other, directly or round a
loop; ``solver``, ``vision`` and ``meanings`` are plain Python, without Django. ``farm-studio
look`` draws the same graph; this test keeps it so on every run of bin/test.

The graph is built with the standard library only: ``ast`` over every ``.py`` file of every
top-level directory with an ``__init__.py`` (migrations included, with their app), every
``import`` and ``from ... import`` wherever it stands (inside functions and ``if
TYPE_CHECKING:`` too), relative imports resolved, and ``from x import y`` counted as an
import of the module ``x.y`` when ``y`` is one. ``tests/`` and ``bench/`` are not under
contract. Names imported by string (settings, ``importlib``) are not seen.

The contracts are data, in one place below (``FLOORS``); the checking functions take a graph
and the contracts as arguments, and the last tests feed them synthetic graphs to show that
they do report a violation, a cycle, Django on the ground and a package off the table.
"""

from __future__ import annotations

import ast
import re
from collections.abc import Iterable, Mapping
from dataclasses import dataclass
from itertools import pairwise
from pathlib import Path

import pytest

REPO_ROOT = Path(__file__).resolve().parents[2]
ARCHITECTURE = REPO_ROOT / "docs" / "architecture.md"

# --- The contracts ---------------------------------------------------------------------------


@dataclass(frozen=True)
class Floor:
    """One row of docs/architecture.md's floors table, as data.

    ``imports``: the first-party packages (or single modules, ``web.network``) the package
    may import besides its own modules. ``and_below``: the row says "`x` and below", so the
    package may also import whatever those packages may, transitively. ``everything``: the
    project's wiring, which may import every package.
    """

    floor: str
    imports: frozenset[str] = frozenset()
    and_below: bool = False
    everything: bool = False


def _floor(floor: str, *imports: str, and_below: bool = False, everything: bool = False) -> Floor:
    return Floor(floor, frozenset(imports), and_below=and_below, everything=everything)


# docs/architecture.md, "The floors": the Floor and Imports columns of its table, row by row.
# A new package goes on a floor there and here (test_every_package_is_on_a_floor and
# test_the_document_names_the_same_packages fail until both say so).
FLOORS: dict[str, Floor] = {
    "production": _floor(
        "operations", "web.network", "web.start_banner", "games.warm_up", "games.draining"
    ),
    "boggle_site": _floor("project", everything=True),
    "daily": _floor("apps", "games", "photos", and_below=True),
    "dicesets": _floor("apps", "games", "photos", and_below=True),
    "solve": _floor("apps", "games", "photos", and_below=True),
    "quickplay": _floor("apps", "games", and_below=True),
    "offline": _floor("apps", "dictionaries", "games", "solver", "web"),
    "profiles": _floor("apps", "web"),
    "photos": _floor("apps", "games", "vision", and_below=True),
    "games": _floor("apps", "dictionaries", "definitions", "web", "solver"),
    "definitions": _floor("apps", "dictionaries", "meanings", "solver", "web"),
    "dictionaries": _floor("apps", "solver", "web"),
    "web": _floor("ground"),  # Django, Channels, Redis: nothing of the project
    "solver": _floor("ground"),
    "vision": _floor("ground", "solver"),
    "meanings": _floor("ground", "solver"),
    "netlab": _floor("ground"),
}

# Imports the table does not allow but the code has, each with its reason: (importer,
# imported), each a module or a whole package (its submodules too). Keep this short: an entry
# is a debt, paid back by changing the code or, where the table is merely incomplete, the
# table's Imports column (and FLOORS with it); test_known_exceptions_are_still_needed fails
# once an entry is no longer used.
KNOWN_EXCEPTIONS: dict[tuple[str, str], str] = {}

# Plain Python: these packages import no Django (docs/architecture.md, under the table).
WITHOUT_DJANGO = frozenset({"solver", "vision", "meanings"})
DJANGO_PACKAGES = frozenset({"django", "channels"})

# Top-level directories with an __init__.py that are not under contract.
NOT_UNDER_CONTRACT = frozenset({"tests", "bench"})
SKIPPED_DIRS = frozenset({".venv", "node_modules", "__pycache__", ".git"})


def allowed_imports(floors: Mapping[str, Floor]) -> dict[str, frozenset[str] | None]:
    """Each package's allowed first-party imports, "and below" expanded; ``None``: all."""

    def below(package: str, seen: frozenset[str]) -> frozenset[str]:
        """What ``package`` may import, and what those may import, transitively."""
        floor = floors.get(package)
        if floor is None or floor.everything:
            return frozenset()
        reachable = set(floor.imports)
        for name in floor.imports:
            named = name.partition(".")[0]  # "web.network": web's own imports
            if named not in seen:
                reachable |= below(named, seen | {named})
        return frozenset(reachable)

    allowed: dict[str, frozenset[str] | None] = {}
    for package, floor in floors.items():
        if floor.everything:
            allowed[package] = None
        elif floor.and_below:
            allowed[package] = below(package, frozenset({package}))
        else:
            allowed[package] = floor.imports
    return allowed


# --- The import graph ------------------------------------------------------------------------


@dataclass(frozen=True)
class Import:
    """One import statement's target, as the importing module sees it."""

    path: str  # the importing file, relative to the repository
    line: int
    importer: str  # the importing module, "games.rounds"
    imported: str  # the imported module, "solver.judge" (or a third-party one, "django.db")

    @property
    def source_package(self) -> str:
        return self.importer.partition(".")[0]

    @property
    def target_package(self) -> str:
        return self.imported.partition(".")[0]

    def __str__(self) -> str:
        return f"{self.path}:{self.line}: {self.importer} imports {self.imported}"


def first_party_packages(root: Path) -> list[str]:
    """The top-level directories of ``root`` with an ``__init__.py``, but tests/ and bench/."""
    return sorted(
        entry.name
        for entry in root.iterdir()
        if entry.is_dir()
        and entry.name not in SKIPPED_DIRS | NOT_UNDER_CONTRACT
        and (entry / "__init__.py").is_file()
    )


def _python_files(package_dir: Path) -> Iterable[Path]:
    for path in sorted(package_dir.rglob("*.py")):
        if not SKIPPED_DIRS.intersection(path.relative_to(package_dir).parts):
            yield path


def _module_name(root: Path, path: Path) -> str:
    parts = list(path.relative_to(root).with_suffix("").parts)
    if parts[-1] == "__init__":
        parts.pop()
    return ".".join(parts)


def _is_module(root: Path, dotted: str) -> bool:
    base = root.joinpath(*dotted.split("."))
    return base.with_suffix(".py").is_file() or (base / "__init__.py").is_file()


def imports_of_file(root: Path, path: Path) -> list[Import]:
    """Every module that ``path`` imports, wherever in the file the import stands."""
    importer = _module_name(root, path)
    # The package relative imports start from: the module's own, or itself for __init__.py.
    package = importer if path.name == "__init__.py" else importer.rpartition(".")[0]
    relative_path = path.relative_to(root).as_posix()
    found: list[Import] = []

    def add(line: int, imported: str) -> None:
        edge = Import(relative_path, line, importer, imported)
        if edge not in found:  # "from x import a, b": one import of x
            found.append(edge)

    tree = ast.parse(path.read_text(encoding="utf-8"), filename=str(path))
    for node in ast.walk(tree):
        if isinstance(node, ast.Import):
            for alias in node.names:
                add(node.lineno, alias.name)
        elif isinstance(node, ast.ImportFrom):
            if node.level:
                base_parts = package.split(".") if package else []
                if node.level - 1 >= len(base_parts):
                    raise AssertionError(
                        f"{relative_path}:{node.lineno}: relative import beyond the package"
                    )
                base = ".".join(base_parts[: len(base_parts) - (node.level - 1)])
                module = f"{base}.{node.module}" if node.module else base
            else:
                module = node.module or ""
            for alias in node.names:
                submodule = f"{module}.{alias.name}"
                is_submodule = alias.name != "*" and _is_module(root, submodule)
                add(node.lineno, submodule if is_submodule else module)
    return found


def import_graph(root: Path, packages: Iterable[str]) -> list[Import]:
    """The imports of every ``.py`` file of ``packages`` under ``root``."""
    graph: list[Import] = []
    for package in packages:
        for path in _python_files(root / package):
            graph.extend(imports_of_file(root, path))
    return graph


# --- The checks: each returns its problems, one readable line each ---------------------------


def _is_within(module: str, name: str) -> bool:
    """``module`` is ``name`` or one of its submodules."""
    return module == name or module.startswith(name + ".")


def refused_imports(graph: Iterable[Import], floors: Mapping[str, Floor]) -> list[Import]:
    """First-party imports that the importing package's contract does not allow."""
    allowed = allowed_imports(floors)
    refused = []
    for edge in graph:
        source, target = edge.source_package, edge.target_package
        if target not in floors or target == source or source not in allowed:
            continue
        may_import = allowed[source]
        if may_import is None or any(_is_within(edge.imported, name) for name in may_import):
            continue
        refused.append(edge)
    return refused


def _excepted(edge: Import, exception: tuple[str, str]) -> bool:
    importer, imported = exception
    return _is_within(edge.importer, importer) and _is_within(edge.imported, imported)


def contract_violations(
    graph: Iterable[Import],
    floors: Mapping[str, Floor],
    exceptions: Iterable[tuple[str, str]],
) -> list[str]:
    """The refused imports that no known exception allows, one readable line each."""
    allowed = allowed_imports(floors)
    known = list(exceptions)
    problems = []
    for edge in refused_imports(graph, floors):
        if any(_excepted(edge, exception) for exception in known):
            continue
        names = ", ".join(sorted(allowed[edge.source_package] or ())) or "nothing of the project"
        problems.append(f"{edge} ({edge.source_package} may import {names}: docs/architecture.md)")
    return problems


def unused_exceptions(
    graph: Iterable[Import],
    floors: Mapping[str, Floor],
    exceptions: Iterable[tuple[str, str]],
) -> list[tuple[str, str]]:
    """Known exceptions that excuse no refused import (the code or the table changed)."""
    refused = refused_imports(graph, floors)
    return [
        exception
        for exception in exceptions
        if not any(_excepted(edge, exception) for edge in refused)
    ]


def package_cycles(graph: Iterable[Import], packages: Iterable[str]) -> list[str]:
    """Loops between first-party packages, each with one import per step."""
    known = set(packages)
    witness: dict[tuple[str, str], Import] = {}
    for edge in graph:
        source, target = edge.source_package, edge.target_package
        if source in known and target in known and source != target:
            witness.setdefault((source, target), edge)
    successors: dict[str, list[str]] = {package: [] for package in sorted(known)}
    for source, target in sorted(witness):
        successors[source].append(target)

    # Depth-first search; a grey package met again closes a loop. One report per loop.
    white, grey, black = 0, 1, 2
    colour = dict.fromkeys(successors, white)
    stack: list[str] = []
    loops: list[list[str]] = []

    def visit(package: str) -> None:
        colour[package] = grey
        stack.append(package)
        for successor in successors[package]:
            if colour[successor] == grey:
                loops.append([*stack[stack.index(successor) :], successor])
            elif colour[successor] == white:
                visit(successor)
        stack.pop()
        colour[package] = black

    for package in successors:
        if colour[package] == white:
            visit(package)

    problems = []
    for loop in loops:
        steps = "; ".join(str(witness[pair]) for pair in pairwise(loop))
        problems.append(f"loop {' -> '.join(loop)}: {steps}")
    return problems


def django_on_the_ground(graph: Iterable[Import], plain: Iterable[str]) -> list[str]:
    """Imports of Django or Channels by the packages that must stay plain Python."""
    plain_packages = set(plain)
    return [
        f"{edge} (plain Python: no Django in {edge.source_package})"
        for edge in graph
        if edge.source_package in plain_packages and edge.target_package in DJANGO_PACKAGES
    ]


def packages_off_the_table(on_disk: Iterable[str], floors: Mapping[str, Floor]) -> list[str]:
    """Packages on disk without a floor, floors without a package, names that are no package."""
    disk, table = set(on_disk), set(floors)
    problems = [
        f"{name}/ has an __init__.py but no floor: place it in docs/architecture.md and FLOORS"
        for name in sorted(disk - table)
    ]
    problems += [f"FLOORS names {name}, which is no package" for name in sorted(table - disk)]
    for package, floor in sorted(floors.items()):
        for name in sorted(floor.imports):
            if name.partition(".")[0] not in table:
                problems.append(f"FLOORS[{package!r}] allows {name}, which is no package")
    return problems


def documented_floors(markdown: str) -> dict[str, str]:
    """The floors table of docs/architecture.md: each backticked package and its floor."""
    section = markdown.split("## The floors", 1)[1].split("\n## ", 1)[0]
    rows = [line for line in section.splitlines() if line.startswith("|")]
    floors: dict[str, str] = {}
    for row in rows[2:]:  # past the header and the --- line
        cells = [cell.strip() for cell in row.strip("|").split("|")]
        for package in re.findall(r"`([a-z_]+)/?`", cells[1]):
            floors[package] = cells[0]
    return floors


# --- The project -----------------------------------------------------------------------------

PACKAGES = first_party_packages(REPO_ROOT)
GRAPH = import_graph(REPO_ROOT, PACKAGES)


def _report(problems: list[str]) -> str:
    return "\n".join(problems)


def test_every_package_is_on_a_floor() -> None:
    """A new package must be placed on a floor; every floor's package exists."""
    problems = packages_off_the_table(PACKAGES, FLOORS)
    assert not problems, _report(problems)


def test_the_document_names_the_same_packages() -> None:
    """docs/architecture.md's floors table and FLOORS name the same packages, same floors."""
    documented = documented_floors(ARCHITECTURE.read_text(encoding="utf-8"))
    assert documented == {package: floor.floor for package, floor in FLOORS.items()}


def test_no_package_imports_above_its_floor() -> None:
    problems = contract_violations(GRAPH, FLOORS, KNOWN_EXCEPTIONS)
    assert not problems, _report(problems)


def test_known_exceptions_are_still_needed() -> None:
    """An allowance that excuses nothing any more is removed."""
    stale = unused_exceptions(GRAPH, FLOORS, KNOWN_EXCEPTIONS)
    assert not stale, f"KNOWN_EXCEPTIONS no longer needed: {stale}"


def test_no_loop_between_packages() -> None:
    problems = package_cycles(GRAPH, PACKAGES)
    assert not problems, _report(problems)


def test_solver_vision_and_meanings_import_no_django() -> None:
    problems = django_on_the_ground(GRAPH, WITHOUT_DJANGO)
    assert not problems, _report(problems)


def test_the_graph_sees_the_imports() -> None:
    """A sanity check of the walk itself: it finds known imports of the project."""
    edges = {(edge.source_package, edge.target_package) for edge in GRAPH}
    assert ("games", "solver") in edges
    assert ("boggle_site", "games") in edges
    assert "migrations" in {part for edge in GRAPH for part in edge.importer.split(".")}


# --- The checks fail when they should: synthetic graphs --------------------------------------


def _edge(importer: str, imported: str) -> Import:
    return Import(importer.replace(".", "/") + ".py", 1, importer, imported)


SYNTHETIC_FLOORS: dict[str, Floor] = {
    "top": _floor("project", everything=True),
    "app": _floor("apps", "lib", and_below=True),
    "lib": _floor("apps", "base"),
    "base": _floor("ground"),
    "ops": _floor("operations", "base.network"),
}


def test_and_below_is_transitive() -> None:
    """Read "`mid` and below" as mid, what mid may import, what those may import, ..."""
    floors = {
        "top": _floor("apps", "mid", and_below=True),
        "mid": _floor("apps", "low"),
        "low": _floor("apps", "ground"),
        "ground": _floor("ground"),
        "wiring": _floor("project", everything=True),
    }
    assert allowed_imports(floors) == {
        "top": {"mid", "low", "ground"},
        "mid": {"low"},  # without "and below", only what the row names
        "low": {"ground"},
        "ground": set(),
        "wiring": None,
    }


def test_a_violation_is_reported() -> None:
    graph = [
        _edge("top.urls", "app.views"),  # the wiring may import everything
        _edge("app.views", "base.text"),  # "lib and below": base too
        _edge("app.views", "app.models"),  # its own package
        _edge("ops.run", "base.network.address"),  # a submodule of an allowed module
        _edge("base.grid", "app.models"),  # the ground imports an app
        _edge("ops.run", "base.text"),  # not the one module it may import
        _edge("lib.words", "django.db"),  # third party: not a floor's business
    ]
    problems = contract_violations(graph, SYNTHETIC_FLOORS, [])
    assert len(problems) == 2
    assert problems[0].startswith("base/grid.py:1: base.grid imports app.models")
    assert "base may import nothing of the project" in problems[0]
    assert problems[1].startswith("ops/run.py:1: ops.run imports base.text")
    # An exception excuses its import (a module or a whole package), and only that one.
    assert contract_violations(graph, SYNTHETIC_FLOORS, [("base.grid", "app.models")]) == [
        problems[1]
    ]
    assert contract_violations(graph, SYNTHETIC_FLOORS, [("base", "app")]) == [problems[1]]
    assert unused_exceptions(graph, SYNTHETIC_FLOORS, [("base", "app"), ("app", "lib")]) == [
        ("app", "lib")  # allowed anyway: excuses nothing
    ]


def test_a_loop_is_reported() -> None:
    graph = [
        _edge("app.views", "lib.words"),
        _edge("lib.words", "base.text"),
        _edge("base.text", "app.models"),
        _edge("top.urls", "app.views"),
    ]
    problems = package_cycles(graph, SYNTHETIC_FLOORS)
    assert problems == [
        "loop app -> lib -> base -> app: "
        "app/views.py:1: app.views imports lib.words; "
        "lib/words.py:1: lib.words imports base.text; "
        "base/text.py:1: base.text imports app.models"
    ]
    assert package_cycles(graph[:2] + graph[3:], SYNTHETIC_FLOORS) == []


def test_django_on_the_ground_is_reported() -> None:
    graph = [_edge("base.grid", "django.conf"), _edge("base.grid", "channels.layers")]
    graph.append(_edge("lib.words", "django.db"))
    problems = django_on_the_ground(graph, {"base"})
    assert problems == [
        "base/grid.py:1: base.grid imports django.conf (plain Python: no Django in base)",
        "base/grid.py:1: base.grid imports channels.layers (plain Python: no Django in base)",
    ]


def test_a_package_off_the_table_is_reported() -> None:
    floors = {**SYNTHETIC_FLOORS, "gone": _floor("apps", "nowhere")}
    problems = packages_off_the_table(["top", "app", "lib", "base", "ops", "new"], floors)
    assert problems == [
        "new/ has an __init__.py but no floor: place it in docs/architecture.md and FLOORS",
        "FLOORS names gone, which is no package",
        "FLOORS['gone'] allows nowhere, which is no package",
    ]


def test_the_table_is_read_from_markdown() -> None:
    markdown = (
        "## The floors\n\n| Floor | Package | Owns | Imports |\n| --- | --- | --- | --- |\n"
        "| apps | `a/`, `b/` | things, `not_a_package` | `c` |\n"
        "| ground | `c/` | more | nothing |\n\n## Next\n\n| x | `d/` | y | z |\n"
    )
    assert documented_floors(markdown) == {"a": "apps", "b": "apps", "c": "ground"}


def test_the_walk_resolves_relative_and_submodule_imports(tmp_path: Path) -> None:
    (tmp_path / "app" / "sub").mkdir(parents=True)
    (tmp_path / "lib").mkdir()
    for name in ("app/__init__.py", "app/sub/__init__.py", "lib/__init__.py", "lib/words.py"):
        (tmp_path / name).write_text("")
    (tmp_path / "app" / "sub" / "mod.py").write_text(
        "from . import sibling\n"
        "from .. import models\n"
        "from lib import words, WordList\n"
        "def later() -> None:\n"
        "    import lib.words as w\n"
    )
    (tmp_path / "app" / "models.py").write_text("")
    imported = [edge.imported for edge in imports_of_file(tmp_path, tmp_path / "app/sub/mod.py")]
    # "sibling" is no module: the package itself; "models" is one; WordList is a name in lib.
    assert imported == ["app.sub", "app.models", "lib.words", "lib", "lib.words"]
    assert first_party_packages(tmp_path) == ["app", "lib"]
    (tmp_path / "app" / "beyond.py").write_text("from .. import outside\n")
    with pytest.raises(AssertionError, match="relative import beyond the package"):
        imports_of_file(tmp_path, tmp_path / "app" / "beyond.py")
