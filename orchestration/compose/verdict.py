"""The verdict of a yes/no question ("Does restic come with a built-in scheduler?"): "No." before
the unit that decides it, when one does.

A unit decides the question when it carries the question's predicate terms (COVERAGE of their
weight), read where it stands (its text, its headings and its document title: "It does not
support X." under a heading naming the subject): a unit that says less is evidence on the
topic, not an answer to it, and gets no verdict (the quote stands alone, as before). The
verdict is the unit's polarity, read in the clause that carries most of the question's terms
(`core.reading.polarity`): negated -> "No.", affirmed -> "Yes.". A question asking the negative
("Isn't X ...?") gets the same word: "No" says X is not so, in either form.
"""

from __future__ import annotations

import re
from collections.abc import Sequence
from dataclasses import dataclass, replace

from core.reading.polarity import SUBORDINATE, clauses, negation_cue, shift_cue
from core.text import is_question
from orchestration.focus import Focus
from orchestration.retrieval.tokenize import tokenize

from .comparison import Point
from .sentences import Candidate

YES, NO = "yes", "no"
_SAYS_IT = re.compile(r"^\s*(?:yes|no)\b|^\s*(?:是的|不是|否)", re.I)
# The share of the question's predicate weight the deciding unit carries: three quarters, as a
# question's light verb ("Does restic come with a built-in scheduler?") is rarely repeated by
# the sentence that answers it ("Restic does not have a built-in way of scheduling backups").
COVERAGE = 0.75
_COMPARING = frozenset({"比", "than"})


@dataclass(frozen=True)
class Verdict:
    """What the deciding unit says: `answer` "yes" or "no", the clause it was read in, and the
    negation word found there ("" when affirmed)."""

    answer: str
    clause: str
    cue: str
    said: bool = False  # the unit opens with the word itself ("Yes, restic will ...")
    basis: str = ""  # for a comparison: the relation found against the one asked

    def explain(self) -> str:
        if self.basis:
            return f"{self.answer}: {self.basis}"
        said = f"negated by {self.cue!r}" if self.cue else "affirmed"
        return f"{self.answer}: the lead unit states it ({said} in {self.clause!r})"


def decide(focus: Focus, lead: Candidate) -> Verdict | None:
    """The verdict `lead` gives a yes/no question, or None when it does not decide it: it carries
    less than COVERAGE of the question's predicate terms (read with its headings and title), or
    is itself a question, or code; or it affirms with a word that says the thing changed or holds
    only in part ("moved", "only": `polarity.shift_cue`)."""
    if focus.slot != "yes_no" or not focus.predicate or lead.unit == "code" or is_question(lead.text):
        return None
    if focus.coverage(lead.context_tokens) < COVERAGE - 1e-9:
        return None
    parts = clauses(lead.text)
    if not parts:
        return None
    main = [c for c in parts if not SUBORDINATE.match(c)] or parts
    clause = max(main, key=lambda c: focus.coverage(tokenize(c)))  # the first of equals
    cue = negation_cue(clause)
    if not cue and shift_cue(lead.text):
        return None  # "The shell command was moved to a plugin" says neither yes nor no to "still built in?"
    return Verdict(NO if cue else YES, clause, cue, bool(_SAYS_IT.match(lead.text)))


def compared(focus: Focus, relation: str | None, points: Sequence[Point] | None) -> Verdict | None:
    """The verdict of a yes/no comparison ("Does A burn less fuel per seat than B?"): "yes" when the
    relation the comparison found between its first two sides is the one the question's
    comparative asks of the first (`Question.direction`), else "no"; None when the question is
    not asked as yes/no, asks no direction, or a compared value's unit carries under COVERAGE of
    the question's predicate terms ("Is A more efficient than B?" over fuel-burn figures: the
    figures do not say which is more efficient)."""
    asked = focus.question.direction
    if not focus.question.polarity or not asked or relation is None or not points:
        return None
    # the comparative and the comparison's own marker are what the figures decide, not words they say
    decided = _COMPARING | set(tokenize(focus.question.comparative))
    asking = replace(focus, predicate={t: w for t, w in focus.predicate.items() if t not in decided})
    if any(asking.coverage(p.candidate.context_tokens) < COVERAGE - 1e-9 for p in points):
        return None
    first, second = points[0].side.name, points[1].side.name
    found = f"{first} is {relation} than {second}" if relation != "same" else f"{first} and {second} are the same"
    return Verdict(YES if relation == asked else NO, found, "", basis=f"the comparison found {found}; the question "
                                                                       f"asks whether {first} is {asked}")
