"""The import graph keeps its shape: layers import downwards only, and no module imports in a circle.

    core  <-  perception  <-  orchestration  <-  validation  <-  server

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
