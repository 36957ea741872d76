"""Every library module imports on its own, first: no import cycle hides behind a lucky order."""

from __future__ import annotations

import ast
import subprocess
import sys
from collections.abc import Mapping
from pathlib import Path

# Run in a child interpreter: dropping modules from sys.modules here would leave the test
# process with two copies of some classes and registries.
CHECK = """
import importlib, pkgutil, sys
import warroom
names = sorted(
    info.name
    for info in pkgutil.walk_packages(warroom.__path__, "warroom.")
    if ".tests" not in info.name and not info.name.endswith("_pb2_grpc")
)
failures = []
for name in names:
    for key in [k for k in sys.modules if k.startswith("warroom.") and "_pb2" not in k]:
        del sys.modules[key]
    try:
        importlib.import_module(name)
    except Exception as exc:
        failures.append(f"{name}: {type(exc).__name__}: {exc}")
print(len(names))
print("\\n".join(failures))
sys.exit(1 if failures else 0)
"""


def test_each_module_imports_first() -> None:
    done = subprocess.run([sys.executable, "-c", CHECK], capture_output=True, text=True)
    assert done.returncode == 0, done.stdout + done.stderr
    assert int(done.stdout.split()[0]) > 50


LIBS = Path(__file__).resolve().parents[2] / "libs"


def _module_files() -> dict[str, Path]:
    """Every library module of warroom (tests and generated code left out) by dotted name."""
    found: dict[str, Path] = {}
    for path in sorted((LIBS / "warroom").rglob("*.py")):
        parts = list(path.relative_to(LIBS).with_suffix("").parts)
        if "tests" in parts or "_pb2" in parts[-1]:
            continue
        if parts[-1] == "__init__":
            parts.pop()
        found[".".join(parts)] = path
    return found


def _owner(name: str, modules: Mapping[str, Path]) -> str | None:
    """The library module an imported name lives in (the longest known prefix)."""
    while name and name not in modules:
        name = name.rpartition(".")[0]
    return name or None


def _imports(module: str, path: Path, modules: Mapping[str, Path]) -> set[str]:
    """The library modules `module` imports anywhere in its body, functions included."""
    package = module if path.name == "__init__.py" else module.rpartition(".")[0]
    found: set[str] = set()
    for node in ast.walk(ast.parse(path.read_text(), str(path))):
        if isinstance(node, ast.Import):
            names = [alias.name for alias in node.names]
        elif isinstance(node, ast.ImportFrom):
            base = node.module or ""
            if node.level:
                anchor = package.rsplit(".", node.level - 1)[0] if node.level > 1 else package
                base = f"{anchor}.{base}" if base else anchor
            names = [f"{base}.{alias.name}" for alias in node.names]
            names = [n if n in modules else base for n in names]
        else:
            continue
        found.update(o for n in names if (o := _owner(n, modules)) is not None)
    found.discard(module)
    return found


def _cycles(graph: Mapping[str, set[str]]) -> list[list[str]]:
    """The strongly connected components of more than one module (Tarjan, iterative)."""
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
            node, edges = work[-1]
            step = next(edges, None)
            if step is not None:
                if step not in index:
                    index[step] = low[step] = len(index)
                    stack.append(step)
                    on_stack.add(step)
                    work.append((step, iter(sorted(graph[step]))))
                elif step in on_stack:
                    low[node] = min(low[node], index[step])
                continue
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


def test_no_import_cycle_in_libs() -> None:
    """The import graph of libs/warroom is acyclic, counting imports inside functions too.

    A lazy import inside a function hides a cycle from the interpreter but not from a
    reader: the modules still depend on each other. Break a cycle with a seam the lower
    module defines (see warroom.games.ncw.seam), not with an import moved into a function.
    """
    modules = _module_files()
    graph = {name: _imports(name, path, modules) for name, path in modules.items()}
    assert len(graph) > 50
    assert _cycles(graph) == []


def test_the_cycle_check_finds_a_cycle() -> None:
    graph = {"a": {"b"}, "b": {"c"}, "c": {"a"}, "d": {"a"}, "e": set()}
    assert _cycles(graph) == [["a", "b", "c"]]
