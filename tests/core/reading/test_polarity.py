"""The polarity reader (core/reading/polarity.py): which clause of a sentence states what, and
whether it is negated. Sentences from restic's and Poetry's documentation."""

import pytest

from core.reading.polarity import SUBORDINATE, clauses, negation_cue


@pytest.mark.parametrize("clause,cue", [
    ("Restic does not have a built-in way of scheduling backups", "not"),
    ("Yes, restic will resume interrupted backups when they are re-run.", ""),
    ("The shell command was moved to a plugin", ""),
    ("Poetry doesn't sign distributions", "doesn't"),
    ("restic cannot read the repository", "cannot"),
    ("There is no built-in scheduler", "no"),
    ("It can not only read but also write", ""),  # "not only" affirms
    ("Whether or not the cache is used, restic checks the data", ""),
    ("该功能不支持加密。", "不"),
    ("restic 没有内置的调度器。", "没有"),
    ("这两个版本不同。", ""),  # 不同 "different" is no negation
    ("未来的版本将支持压缩。", ""),  # 未来 "future"
])
def test_negation_cues(clause, cue):
    assert negation_cue(clause) == cue


def test_a_flag_named_no_is_not_a_negation():
    """`--no-root` names a flag: 'Use --no-root to skip installing the project' affirms."""
    assert [negation_cue(c) for c in clauses("Use --no-root to install only the dependencies.")] == [""]
    assert negation_cue(clauses("Pass ``--no-cache`` to disable the cache.")[0]) == ""


def test_a_condition_is_its_own_clause():
    """The negation in the condition does not negate the statement."""
    parts = clauses("If you do not pass --retry-lock, restic fails at once.")
    assert len(parts) == 2 and SUBORDINATE.match(parts[0]) and not SUBORDINATE.match(parts[1])
    assert negation_cue(parts[0]) == "not" and negation_cue(parts[1]) == ""


def test_but_splits_what_is_not_done_from_what_is():
    parts = clauses("Restic cannot resume a prune, but it will resume interrupted backups.")
    assert [negation_cue(p) for p in parts] == ["cannot", ""]


@pytest.mark.parametrize("text, cue", [
    ("The shell command was moved to a plugin: poetry-plugin-shell", "moved"),
    ("You can exclusively look up packages only from the configured package sources.", "exclusively"),
    ("Restic encrypts all data with AES-256 before it leaves the machine.", ""),
    ("Use --only-root to install the project alone.", ""),  # a flag's name
    ("该命令仅在 Linux 上可用。", "仅"),
])
def test_what_keeps_an_affirmed_statement_from_saying_yes(text, cue):
    from core.reading.polarity import shift_cue

    assert shift_cue(text) == cue
