"""Hard negatives by rule (evaluation/answers/negatives.py, negative_rules.py): each rule makes the
variant it promises on hand-written examples, and refuses where the evidence would answer it."""

from __future__ import annotations

import pytest

from evaluation.answers.name_pool import NamePool, english_names
from evaluation.answers.negative_rules import (
    Answered,
    change_number,
    negate,
    neighbour_option,
    other_slot,
    swap_entity,
    unanswered,
)
from evaluation.answers.negatives import build_pool, count_by_rule, negatives_for, variants
from perception.question import question_of

PYTEST_PAGE = "Run pytest with `-v` to see each test name. The `--verbose` flag enables verbose output."


def _q(text: str, answers: tuple[str, ...], evidence: str, **fields) -> Answered:
    return Answered(fields.pop("id", "q1"), text, answers, evidence, **fields)


def _pool(*named: tuple[str, str], corpus: str = "c", group: str = "g") -> NamePool:
    pool = NamePool()
    pool.add(corpus, group, named)
    return pool


def _rule(rule, question: Answered, pool: NamePool | None = None):
    return rule(question, question_of(question.text), pool or NamePool())


# --- swap the asked entity ------------------------------------------------------------------------

def test_swap_entity_puts_another_product_of_the_set_where_the_question_names_its_own():
    question = _q("Which flag does pytest use for verbose output?", ("--verbose",), PYTEST_PAGE,
                  corpus="pytest", product="pytest")
    negative = _rule(swap_entity, question, _pool(("pytest", "product"), ("tox", "product")))
    assert negative is not None and negative.text == "Which flag does tox use for verbose output?"
    assert (negative.replaced, negative.inserted, negative.absent) == ("pytest", "tox", ("tox",))
    assert unanswered(negative, PYTEST_PAGE)
    assert not unanswered(negative, PYTEST_PAGE + " Under tox, pass -v twice.")  # re-checked on any evidence


def test_swap_entity_refuses_when_the_evidence_writes_every_candidate():
    question = _q("Which flag does pytest use for verbose output?", ("--verbose",), PYTEST_PAGE + " tox runs it.",
                  corpus="pytest", product="pytest")
    assert _rule(swap_entity, question, _pool(("pytest", "product"), ("tox", "product"))) is None


def test_swap_entity_keeps_a_name_s_role_and_draws_it_from_the_corpus_never_from_the_evidence():
    evidence = "Flinders wrote A Voyage to Terra Australis in 1814, after sailing with Cook's charts."
    question = _q("When did Flinders write his book of discovery?", ("1814",), evidence, corpus="c", group="g")
    assert ("Flinders", "name1:agent") in english_names(question.text, question_of(question.text))
    pool = _pool(("Cook", "name1:agent"), ("Mawson", "name1:agent"), ("Hobart", "name1:place"))
    negative = _rule(swap_entity, question, pool)
    assert negative is not None and negative.text == "When did Mawson write his book of discovery?"
    assert _rule(swap_entity, question, _pool(("Cook", "name1:agent"), ("Hobart", "name1:place"))) is None


# --- change the asked number or version -----------------------------------------------------------

def test_change_number_moves_a_version_the_evidence_writes_to_one_it_does_not():
    evidence = "In Python 3.12 the --cache option enables caching; Python 3.13 keeps it."
    negative = _rule(change_number, _q("Which option enables caching in Python 3.12?", ("--cache",), evidence))
    assert negative is not None and negative.replaced == "3.12"
    assert negative.inserted in {"3.11", "3.10", "3.14"} and negative.text.endswith(f"Python {negative.inserted}?")
    assert unanswered(negative, evidence) and not unanswered(negative, f"Python {negative.inserted} also has it.")


@pytest.mark.parametrize("text, evidence", [
    ("What happened after 1990?", "After 1990 the wall fell."),                  # bounds a range
    ("show slowest 10 tests pytest", "Use --durations=10 for the 10 slowest."),  # a count: 8 is answered alike
    ("What was built in 1990?", "The bridge was built in the nineties."),        # the evidence does not write it
])
def test_change_number_refuses_a_range_a_count_and_a_number_the_evidence_does_not_write(text, evidence):
    assert _rule(change_number, _q(text, ("x",), evidence)) is None


def test_change_number_moves_a_chinese_year_and_leaves_a_range_alone():
    evidence = "范廷颂是越南的第一位枢机主教，他于1998年被任命为河内总教区总主教。"
    negative = _rule(change_number, _q("1998年谁被任命为河内总教区总主教？", ("范廷颂",), evidence, language="zh"))
    assert negative is not None and negative.replaced == "1998"
    assert negative.text == f"{negative.inserted}年谁被任命为河内总教区总主教？" and negative.inserted not in evidence
    ranged = _q("1969年9月至1970年4月，吴双战担任什么职务？", ("书记",), "1969年9月至1970年4月任书记。", language="zh")
    assert _rule(change_number, ranged) is None


# --- negate -------------------------------------------------------------------------------------

def test_negate_asks_for_the_opposite_the_evidence_never_states():
    negative = _rule(negate, _q("Which flag enables verbose output?", ("--verbose",), PYTEST_PAGE))
    assert negative is not None and negative.text == "Which flag disables verbose output?"
    assert "turn off" in negative.absent


@pytest.mark.parametrize("text, evidence", [
    ("Which flag enables verbose output?", PYTEST_PAGE + " `--quiet` disables it."),  # the opposite is stated
    ("Which flag enables verbose output?", "Pass `--verbose` for more output."),       # the word is not written
    ("I installed it from snap and it fails. Why?", "Snap installs are confined."),  # no word in the asking clause
])
def test_negate_refuses_when_the_evidence_could_answer_the_opposite(text, evidence):
    assert _rule(negate, _q(text, ("x",), evidence)) is None


# --- ask for another kind of value ----------------------------------------------------------------

def test_other_slot_asks_when_of_the_clause_with_its_answer_in_place():
    negative = _rule(other_slot, _q("Which artist did Beyonce marry?", ("Jay Z",), "Beyonce married Jay Z."))
    assert negative is not None and negative.text == "When did Beyonce marry Jay Z?" and negative.slot == "date"
    assert (negative.replaced, negative.inserted) == ("fact", "date")


@pytest.mark.parametrize("text, answers, evidence", [
    ("Which artist did Beyonce marry?", ("Jay Z",), "Beyonce married Jay Z in 2008."),  # a date and a number
    ("During what period did Gondwana break apart?", ("Jurassic",), "Gondwana broke apart in the Jurassic."),
    ("What did the Byzantines help the Khazars with?", ("build a fortress",), "They helped build a fortress."),
])
def test_other_slot_refuses_a_stated_slot_a_clause_already_in_time_and_an_answer_that_is_no_object(
        text, answers, evidence):
    assert _rule(other_slot, _q(text, answers, evidence)) is None


# --- a neighbouring option ------------------------------------------------------------------------

CORS_PAGE = """CORSMiddleware takes these arguments:

* `allow_origins` - A list of origins that may make cross-origin requests.
* `allow_methods` - A list of HTTP methods. Defaults to `['GET']`.
* `max_age` - Seconds browsers may cache CORS responses. Defaults to `600`.
"""
PROFILE_PAGE = """## Profile settings

### opt-level

The `opt-level` setting controls optimisation.

The default is 0 for dev.

### debug

The `debug` setting controls debug information.

The default is true for dev.
"""


def test_neighbour_option_asks_the_default_of_the_nearest_setting_whose_default_the_page_omits():
    negative = _rule(neighbour_option, _q("starlette cors max_age default?", ("600",), CORS_PAGE))
    assert negative is not None and negative.text == "starlette cors allow_origins default?"
    assert negative.unstated[0] == "allow_origins" and unanswered(negative, CORS_PAGE)
    assert not unanswered(negative, CORS_PAGE.replace("requests.", "requests. Defaults to `[]`."))


def test_neighbour_option_reads_a_setting_s_section_under_its_heading_and_refuses_a_stated_default():
    assert _rule(neighbour_option, _q("opt-level default?", ("0",), PROFILE_PAGE)) is None


# --- a whole set ----------------------------------------------------------------------------------

def _set() -> list[Answered]:
    return [
        _q("Which flag does pytest use for verbose output?", ("--verbose",), PYTEST_PAGE, id="p1",
           corpus="pytest", group="usage.md", product="pytest"),
        _q("Which flag enables quiet output in tox?", ("-q",), "In tox, `-q` enables quiet output.", id="t1",
           corpus="tox", group="cli.md", product="tox"),
        _q("Which flag disables colour?", (), "Colour is on.", id="u1", corpus="tox", group="cli.md", product="tox"),
    ]


def test_negatives_for_a_set_draws_products_across_corpora_counts_per_rule_and_skips_unanswerable_ones():
    negatives = negatives_for(_set())
    assert [(n.source_id, n.rule, n.text) for n in negatives] == [
        ("p1", "swap_entity", "Which flag does tox use for verbose output?"),
        ("t1", "swap_entity", "Which flag enables quiet output in pytest?"),
        ("t1", "negate", "Which flag disables quiet output in tox?")]
    assert count_by_rule(negatives) == {"swap_entity": 2, "change_number": 0, "negate": 1, "other_slot": 0,
                                        "neighbour_option": 0}


def test_negatives_are_the_same_every_run_and_seeded_by_the_question_id():
    pool = _pool(("Cook", "name1:agent"), ("Mawson", "name1:agent"), ("Ross", "name1:agent"),
                 ("Scott", "name1:agent"))
    evidence = "Flinders wrote A Voyage to Terra Australis in 1814."
    made = {qid: variants(_q("When did Flinders write his book?", ("1814",), evidence, id=qid, corpus="c",
                             group="g"), pool)[0].inserted for qid in ("a", "b", "c", "d", "e", "f")}
    again = {qid: variants(_q("When did Flinders write his book?", ("1814",), evidence, id=qid, corpus="c",
                              group="g"), pool)[0].inserted for qid in made}
    assert made == again and len(set(made.values())) > 1


def test_a_chinese_question_gets_only_the_number_and_entity_rules():
    evidence = "1998年，他开启了新政。"
    question = _q("1998年谁开启了新政？", ("他",), evidence, language="zh", corpus="c", group="g")
    assert {n.rule for n in variants(question, build_pool([question]))} == {"change_number"}


def test_a_chinese_name_is_swapped_for_one_jieba_tagged_alike_twice_in_the_corpus():
    def zh(qid: str, text: str, evidence: str) -> Answered:
        return _q(text, ("x",), evidence, id=qid, language="zh", corpus="cmrc", group=qid)

    asked = zh("a", "孙权是哪一年称帝的？", "孙权于229年称帝。")
    others = [zh("b", "曹操的儿子是谁？", "曹操的儿子是曹丕。"), zh("c", "曹操是哪里人？", "曹操是沛国谯县人。"),
              zh("d", "诸葛亮是哪一年出生的？", "诸葛亮生于181年。")]
    negative = _rule(swap_entity, asked, build_pool([asked, *others]))
    assert negative is not None and negative.text == "曹操是哪一年称帝的？"  # 诸葛亮 is tagged once only
    written = zh("a", asked.text, "孙权于229年称帝，曹操未称帝。")  # the evidence writes the only candidate
    assert _rule(swap_entity, written, build_pool([asked, *others])) is None
