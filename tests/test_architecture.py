"""The import graph keeps its shape: layers import downwards only, and no module imports in a circle.

    core  <-  perception  <-  orchestration  <-  validation  <-  server

Between sub-packages: validation reads text with `core.reading` (the readers the composer uses),
never through the composer's internals (`orchestration.compose`); `core.reading` imports nothing
of ours above core; and each reader is defined once, in `core.reading`.

Every import counts, including those inside functions and under `if TYPE_CHECKING:` (a
lazy import is still a dependency; hiding one is how the router came to import validation).
"""

from __future__ import annotations

import ast
from pathlib import Path

import pytest

REPO = Path(__file__).resolve().parents[1]
PACKAGES = ("core", "perception", "orchestration", "validation", "server")
# what each layer may import besides itself (third-party libraries are not checked)
ALLOWED = {
    "core": set(),
    "perception": {"core"},
    "orchestration": {"core", "perception"},
    "validation": {"core", "perception", "orchestration"},
    "server": {"core", "perception", "orchestration", "validation"},
}


def _modules() -> dict[str, Path]:
    out = {}
    for package in PACKAGES:
        for path in (REPO / package).rglob("*.py"):
            name = ".".join(path.relative_to(REPO).with_suffix("").parts)
            out[name.removesuffix(".__init__")] = path
    return out


def _resolve(target: str, modules: dict[str, Path]) -> str | None:
    while target and target not in modules:
        target = target.rpartition(".")[0]
    return target or None


def import_graph() -> dict[str, set[str]]:
    """module -> the modules of ours it imports (a name imported from a package counts as
    the submodule when it is one, else the package)."""
    modules = _modules()
    graph: dict[str, set[str]] = {name: set() for name in modules}
    for name, path in modules.items():
        package = name if path.name == "__init__.py" else name.rpartition(".")[0]
        for node in ast.walk(ast.parse(path.read_text(encoding="utf-8"))):
            if isinstance(node, ast.Import):
                targets = [alias.name for alias in node.names]
            elif isinstance(node, ast.ImportFrom):
                if node.level:
                    base = package.split(".")[: len(package.split(".")) - node.level + 1]
                    source = ".".join(base + ([node.module] if node.module else []))
                else:
                    source = node.module or ""
                subs = [f"{source}.{alias.name}" for alias in node.names if f"{source}.{alias.name}" in modules]
                targets = subs if len(subs) == len(node.names) else [source, *subs]
            else:
                continue
            for target in targets:
                resolved = _resolve(target, modules)
                if resolved and resolved != name:
                    graph[name].add(resolved)
    return graph


def _cycles(graph: dict[str, set[str]]) -> list[list[str]]:
    """Strongly connected components with more than one module (Tarjan, iterative)."""
    index: dict[str, int] = {}
    low: dict[str, int] = {}
    stack: list[str] = []
    on_stack: set[str] = set()
    found = []
    counter = 0
    for root in sorted(graph):
        if root in index:
            continue
        work = [(root, iter(sorted(graph[root])))]
        index[root] = low[root] = counter
        counter += 1
        stack.append(root)
        on_stack.add(root)
        while work:
            node, children = work[-1]
            child = next(children, None)
            if child is not None:
                if child not in index:
                    index[child] = low[child] = counter
                    counter += 1
                    stack.append(child)
                    on_stack.add(child)
                    work.append((child, iter(sorted(graph[child]))))
                elif child in on_stack:
                    low[node] = min(low[node], index[child])
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


def test_layers_import_downwards_only():
    wrong = sorted(f"{module} -> {target}" for module, targets in import_graph().items() for target in targets
                   if target.split(".")[0] != module.split(".")[0]
                   and target.split(".")[0] not in ALLOWED[module.split(".")[0]])
    assert wrong == [], "imports against the layering:\n" + "\n".join(wrong)


def test_no_module_imports_in_a_circle():
    cycles = _cycles(import_graph())
    assert cycles == [], "import circles:\n" + "\n".join(" -> ".join(c) for c in cycles)


@pytest.mark.parametrize("graph, expected", [
    ({"a": {"b"}, "b": {"c"}, "c": {"a"}, "d": set()}, [["a", "b", "c"]]),
    ({"a": {"b"}, "b": set()}, []),
])
def test_the_cycle_finder_finds_circles(graph, expected):
    assert _cycles(graph) == expected


# Sub-package rules: (importer prefix, forbidden target prefix) -> the imports allowed anyway, each
# with the reason it is still there. An import that is not listed fails; a listed one that is gone
# fails too, so the list only shrinks.
FORBIDDEN = {
    ("validation", "orchestration.compose"): {
        # Focus is the question's reading (asked slot, names, predicate); it moves to Perception's
        # typed Question (issue 23, item 2), after which validation reads that instead.
        "validation.checks.answerability -> orchestration.compose.focus",
    },
    ("core.reading", "orchestration"): set(),
    ("core.reading", "perception"): set(),
    ("core.reading", "validation"): set(),
    ("core.reading", "server"): set(),
}


def _within(module: str, prefix: str) -> bool:
    return module == prefix or module.startswith(prefix + ".")


@pytest.mark.parametrize("importer, forbidden", sorted(FORBIDDEN))
def test_sub_packages_keep_out_of_each_others_internals(importer, forbidden):
    found = {f"{module} -> {target}" for module, targets in import_graph().items() if _within(module, importer)
             for target in targets if _within(target, forbidden)}
    allowed = FORBIDDEN[(importer, forbidden)]
    assert found - allowed == set(), f"{importer} imports {forbidden}:\n" + "\n".join(sorted(found - allowed))
    assert allowed - found == set(), "allowed imports that are gone (drop them from FORBIDDEN):\n" + "\n".join(
        sorted(allowed - found))


# The readers of quantities, units, dates and mentions: one definition each, in core/reading.
READERS = ("stated_quantities", "date_values", "normalize_unit", "read_measure", "stated_dates",
           "extract_dates", "mention_start", "number_alias", "names_identifier", "names_operator", "names_title",
           "is_code", "Quantity", "Measure", "StatedDate", "IDENTIFIER")


def test_each_reader_is_defined_once_in_core_reading():
    defined: dict[str, list[str]] = {}
    for name, path in _modules().items():
        for node in ast.parse(path.read_text(encoding="utf-8")).body:
            if isinstance(node, ast.FunctionDef | ast.ClassDef):
                names = [node.name]
            elif isinstance(node, ast.Assign):
                names = [t.id for t in node.targets if isinstance(t, ast.Name)]
            else:
                continue
            for found in names:
                if found in READERS:
                    defined.setdefault(found, []).append(name)
    wrong = {reader: where for reader, where in defined.items()
             if len(where) != 1 or not _within(where[0], "core.reading")}
    assert wrong == {}, f"readers defined outside core/reading or twice: {wrong}"
