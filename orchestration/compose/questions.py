"""Answer shapes: `answer_bonus` rewards sentences that answer what the question asks.

The slot is Perception's (`perception.question`, and each sub-question's own, read from the one
table of question kinds in config/perception.yaml). A sentence
earns the bonus when it speaks to the question's predicate (focus.py) *and* states a fact of
the asked-for kind about the slot's head ("won" in "Who won X?"; not a number or name the
question itself writes): for "How long is the benefit paid?" a sentence giving a duration about the
benefit outranks one that only names the company. The bonus never makes an unrelated sentence
relevant: a sentence sharing no query term still scores 0 (scoring.score).
"""

from __future__ import annotations

from orchestration.focus import OPEN_SLOTS, Focus, writes_code
from orchestration.textcache import term_set

from .sentences import Candidate

COVERAGE_WEIGHT = 0.05  # share of the question's predicate the sentence carries
SLOT_WEIGHT = 0.2      # the sentence states the asked-for kind of fact (and is on the predicate)
HEAD_IN_CHUNK_ONLY = 0.5  # share of SLOT_WEIGHT when the slot's head is only elsewhere in the chunk
DEFINES_SUBJECT_WEIGHT = 0.1  # a definition whose subject is the asked term ("A wheel is ...")
# "Who proposed X?": the author field of X's document names its authors outright, where "This PEP
# proposes X" names no one
AUTHOR_FIELD_WEIGHT = 0.5
CODE_WEIGHT = 0.2  # the question asks for syntax, configuration or a command; the sentence writes code


def answer_bonus(focus: Focus, candidate: Candidate) -> float:
    """COVERAGE_WEIGHT x predicate coverage, plus SLOT_WEIGHT when it also fills the slot."""
    author_field = focus.author_field(candidate.text)
    # an author field speaks of its whole document: the title's terms count as its own
    tokens = candidate.context_tokens if author_field else candidate.tokens
    coverage = focus.coverage(tokens) if focus.predicate else 0.0
    bonus = COVERAGE_WEIGHT * coverage
    if focus.slot not in OPEN_SLOTS and (coverage > 0 or not focus.predicate) \
            and focus.answered_by(candidate.text, candidate.context_tokens, candidate.language,
                                  published=bool(candidate.chunk.metadata.get("published_at")),
                                  context=term_set(candidate.chunk.text)):
        # the head in the sentence itself beats the head elsewhere in its chunk
        bonus += SLOT_WEIGHT if focus.carries_head(candidate.context_tokens) else SLOT_WEIGHT * HEAD_IN_CHUNK_ONLY
        if author_field:
            bonus += AUTHOR_FIELD_WEIGHT
        if focus.defines_subject(candidate.text):
            bonus += DEFINES_SUBJECT_WEIGHT
    if focus.wants_code and coverage > 0 and (candidate.notes.get("code") or writes_code(candidate.text)):
        bonus += CODE_WEIGHT  # "What is the new syntax for union types?": "write int | str"
    candidate.notes["coverage"] = round(coverage, 3)
    candidate.notes["fills_slot"] = bonus >= SLOT_WEIGHT * HEAD_IN_CHUNK_ONLY
    return bonus
