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

from perception.question import Question

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
    ("validation", "orchestration.compose"): set(),
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
           "is_code", "Quantity", "Measure", "StatedDate", "IDENTIFIER", "YEAR", "NUMBER_RUN")


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


# --- the question is read once, in perception/ (issue 23, item 2) ---------------------------------
# Perception reads what a query asks into `perception.question` (perception/question.py, from the
# question-kind table of config/perception.yaml); no later layer matches the question text itself.
# The rule below finds, in every module of orchestration/, validation/ and server/, a regular
# expression applied to the question text: a call of a pattern method (`search`, `match`,
# `fullmatch`, `finditer`, `findall`, `sub`, `subn`, `split`, on a compiled pattern or on `re`)
# whose matched text carries the question. The question is what flows, inside one function, from a
# parameter named `query`, `question`, `asked` or `ask`, or from an attribute of that name
# (`perception.query`, `terms.query`, `self.question.text`, `part.ask`), through assignments, loops
# and comprehensions (`text = perception.query if text is None else text; _NAME_WORD.findall(text)`
# is found); what Perception read of it (`question.numbers`, `question.counted`, READ_FIELDS) is
# free. Tokenising the question for search terms (`tokenize(question.ask)`) is no pattern
# match and is allowed. The exceptions are listed with their reason; a listed one that is gone fails.
QUESTION_NAMES = frozenset({"query", "question", "asked", "ask"})
# what Perception read of the question (its kind, slot, counted noun, numbers, words, ...) is the
# reading's result, free to use; only its text fields carry the question text itself
READ_FIELDS = frozenset(Question.__dataclass_fields__) - {"text", "ask", "terms", "parts"} | {"length"}
PATTERN_METHODS = frozenset({"search", "match", "fullmatch", "finditer", "findall", "sub", "subn", "split"})
QUESTION_READERS_ALLOWED = {
    # router.yaml's `when: {text: <regex>}` condition: an operator's own pattern over the query,
    # part of the router's config language (DESIGN.md section 6), not a reading of the question
    "orchestration.router.conditions:_t_text",
}


def _carries(node: ast.AST, tainted: set[str]) -> bool:
    """True when an expression uses the question: a tainted name or a question-named attribute
    (of a pattern call, only the text it matches counts: `re.sub(re.escape(n), " ", sentence)`)."""
    subject = _matched_text(node)
    if subject is not None:
        return _carries(subject, tainted)
    if isinstance(node, ast.Attribute) and node.attr in READ_FIELDS:
        return False
    if isinstance(node, ast.Name) and node.id in tainted:
        return True
    if isinstance(node, ast.Attribute) and node.attr in QUESTION_NAMES:
        return True
    return any(_carries(child, tainted) for child in ast.iter_child_nodes(node))


def _targets(node: ast.AST) -> list[str]:
    """The names an assignment target binds."""
    return [n.id for n in ast.walk(node) if isinstance(n, ast.Name)]


def _matched_text(node: ast.AST) -> ast.AST | None:
    """The text a pattern call matches (`pattern.search(text)`, `pattern.sub(repl, text)`,
    `re.search(pattern, text)`), or None when the node is no pattern call. A pattern built from
    the question's fields and matched against a sentence reads the sentence, not the question."""
    if not (isinstance(node, ast.Call) and isinstance(node.func, ast.Attribute)
            and node.func.attr in PATTERN_METHODS):
        return None
    keyword = next((k.value for k in node.keywords if k.arg == "string"), None)
    if keyword is not None:
        return keyword
    index = int(isinstance(node.func.value, ast.Name) and node.func.value.id == "re")
    index += int(node.func.attr in ("sub", "subn"))
    return node.args[index] if len(node.args) > index else None


def question_matches(source: str) -> list[str]:
    """'function:line' of each pattern applied to the question text in a module's source."""
    found = []
    for func in ast.walk(ast.parse(source)):
        if not isinstance(func, ast.FunctionDef | ast.AsyncFunctionDef | ast.Lambda):
            continue
        args = func.args
        tainted = {a.arg for a in [*args.posonlyargs, *args.args, *args.kwonlyargs] if a.arg in QUESTION_NAMES}
        for _ in range(3):  # flow through assignments until nothing new is tainted
            for node in ast.walk(func):
                if isinstance(node, ast.Assign | ast.AnnAssign | ast.AugAssign | ast.NamedExpr) \
                        and node.value is not None and _carries(node.value, tainted):
                    targets = node.targets if isinstance(node, ast.Assign) else [node.target]
                    tainted.update(t for target in targets for t in _targets(target))
                elif isinstance(node, ast.For | ast.comprehension) and _carries(node.iter, tainted):
                    tainted.update(_targets(node.target))
        for node in ast.walk(func):
            subject = _matched_text(node)
            if subject is not None and _carries(subject, tainted):
                found.append(f"{getattr(func, 'name', '<lambda>')}:{node.lineno}")
    return sorted(set(found))


def test_no_module_after_perception_matches_the_question_text():
    found = set()
    for name, path in _modules().items():
        if name.split(".")[0] in ("orchestration", "validation", "server"):
            found |= {f"{name}:{where.split(':')[0]}" for where in question_matches(path.read_text(encoding="utf-8"))}
    assert found - QUESTION_READERS_ALLOWED == set(), (
        "patterns applied to the question text outside perception/ (read it into perception.question "
        "instead):\n" + "\n".join(sorted(found - QUESTION_READERS_ALLOWED)))
    assert QUESTION_READERS_ALLOWED - found == set(), "allowed question readers that are gone: " + ", ".join(
        sorted(QUESTION_READERS_ALLOWED - found))


@pytest.mark.parametrize("source, found", [
    # what compose/focus.py, compose/comparison.py and validation did before the Question
    ("def counted_noun(asked):\n    return _COUNTED.search(asked)\n", ["counted_noun:2"]),
    ("def of(cls, perception, text=None):\n    text = perception.query if text is None else text\n"
     "    return [w for w in _NAME_WORD.findall(text[1:])]\n", ["of:3"]),
    ("def subject(self):\n    return _ASKED_SUBJECT.match(self.question)\n", ["subject:2"]),
    ("def temporal(terms):\n    q = terms.query.lower()\n    return re.search(r'when', q)\n", ["temporal:3"]),
    ("def ids(perception):\n    return [m for m in IDENTIFIER.finditer(perception.query)]\n", ["ids:2"]),
    ("def blank(query, text):\n    return re.sub(r'x', ' ', query)\n", ["blank:2"]),
    # reading sentences, and the question's fields, is allowed; so is a pattern built from them
    ("def blank(asked, text):\n    for n in asked.numbers:\n        text = re.sub(re.escape(n), ' ', text)\n"
     "    return text\n", []),
    ("def fills(slot, text, asked):\n    return _SLOT[slot].search(text) and asked.counted\n", []),
    ("def terms(perception):\n    return tokenize(perception.query)\n", []),
])
def test_the_question_rule_finds_a_pattern_on_the_question(source, found):
    assert question_matches(source) == found


# --- documents are read into answer units once, at ingest (issue 23, item 1) ---------------------
# The chunker splits a document into typed units and the store keeps them with each chunk; every
# later reader of a chunk goes through its units (`chunking.unit_texts`, `compose.sentences`), so
# the sentence splitter is used by the ingest alone. The exceptions are listed with their reason.
SPLITTER_USERS_ALLOWED = {
    "orchestration.compose.llm.reply": "splits the model's reply into claims (a reply is no stored chunk)",
}


def test_only_the_ingest_splits_text_into_sentences():
    users = set()
    for name, path in _modules().items():
        if _within(name, "orchestration.kb"):
            continue
        for node in ast.walk(ast.parse(path.read_text(encoding="utf-8"))):
            if isinstance(node, ast.ImportFrom) and any(a.name == "split_sentences" for a in node.names):
                users.add(name)
    assert users - set(SPLITTER_USERS_ALLOWED) == set(), f"modules splitting text again: {users}"
    assert set(SPLITTER_USERS_ALLOWED) - users == set(), "allowed users that are gone: drop them"


# --- one request, one date (issue 37, item 4) ----------------------------------------------------
# A request's date is read once, in server/ (server/context.py: RequestContext.now, the UTC date of
# its arrival unless the request gives one), and passed down as a plain date: no layer below
# server/ reads the clock to know what day a request is, so two layers cannot disagree. Reading
# the clock below server/ is left to the ingest's stamps, each listed with its reason; a listed
# one that is gone fails, so the list only shrinks.
CLOCK_CALLS = frozenset({"now", "today", "utcnow", "time", "time_ns"})  # datetime.now(), date.today(), time.time()
CLOCK_OWNERS = frozenset({"datetime", "date", "time"})
CLOCK_READERS_ALLOWED = {
    "orchestration.kb.ingest": "the build time written into a knowledge base's manifest",
    "orchestration.kb.layout": "the name of a new build directory",
    "orchestration.kb.register": "the date in the comment of the config entry `sightline ingest` adds",
}


def clock_reads(source: str) -> list[str]:
    """'line: call' of each clock reading in a module's source (`datetime.now()`, `dt.date.today()`,
    `time.time()`, a `from time import time` then `time()`, ...)."""
    found = []
    tree = ast.parse(source)
    imported = {alias.asname or alias.name for node in ast.walk(tree) if isinstance(node, ast.ImportFrom)
                and node.module in ("time", "datetime") for alias in node.names if alias.name in CLOCK_CALLS}
    for node in ast.walk(tree):
        if not isinstance(node, ast.Call):
            continue
        func = node.func
        owner = func.value.attr if isinstance(func, ast.Attribute) and isinstance(func.value, ast.Attribute) \
            else func.value.id if isinstance(func, ast.Attribute) and isinstance(func.value, ast.Name) else None
        if (isinstance(func, ast.Attribute) and func.attr in CLOCK_CALLS and owner in CLOCK_OWNERS) or \
                (isinstance(func, ast.Name) and func.id in imported):
            found.append(f"{node.lineno}: {ast.unparse(func)}")
    return found


def test_no_layer_below_server_reads_the_clock_for_a_request():
    readers = {name for name, path in _modules().items() if name.split(".")[0] != "server"
               and clock_reads(path.read_text(encoding="utf-8"))}
    assert readers - set(CLOCK_READERS_ALLOWED) == set(), (
        "modules below server/ reading the clock (take the request's date, RequestContext.now, as a "
        "parameter instead):\n" + "\n".join(sorted(readers - set(CLOCK_READERS_ALLOWED))))
    assert set(CLOCK_READERS_ALLOWED) - readers == set(), "allowed clock readers that are gone: " + ", ".join(
        sorted(set(CLOCK_READERS_ALLOWED) - readers))


def test_server_reads_a_request_date_from_the_clock_in_one_place():
    """Below the request context, server/ takes the date from it: no `datetime.now(...).date()`."""
    found = set()
    for name, path in _modules().items():
        if name.split(".")[0] == "server":
            tree = ast.parse(path.read_text(encoding="utf-8"))
            found |= {name for node in ast.walk(tree) if isinstance(node, ast.Call)
                      and isinstance(node.func, ast.Attribute) and node.func.attr == "date"
                      and clock_reads(ast.unparse(node.func.value))}
    assert found == set(), f"server modules taking today's date from the clock: {sorted(found)}"


@pytest.mark.parametrize("source, found", [
    ("import datetime as dt\nx = dt.datetime.now(dt.UTC).date()\n", ["2: dt.datetime.now"]),
    ("from datetime import date\nx = date.today()\n", ["2: date.today"]),
    ("from time import time\nx = time()\n", ["2: time"]),
    ("import time\nx = time.time_ns()\n", ["2: time.time_ns"]),
    ("import time\nx = time.perf_counter()\n", []),  # a duration, not a date
    ("def f(now):\n    return now.date()\n", []),
])
def test_the_clock_rule_finds_a_clock_reading(source, found):
    assert clock_reads(source) == found
