"""Which PEPs the `peps` knowledge base holds: a fixed list, chosen before any run.

The rule: every PEP that holds the answer to an answerable question of
evaluation/data/peps_questions.jsonl (TARGETS), plus distractors (DISTRACTORS): PEPs on the
same topics as the targets that a retriever could confuse with them (other governance and
process PEPs, the other release schedules, typing PEPs next to PEP 484/544/563, syntax PEPs
next to pattern matching and f-strings, packaging PEPs next to PEP 518/427, runtime PEPs next
to PEP 703), so that finding the right PEP is part of the task. PEPs of every status are in
it on purpose (final, active, accepted, superseded, rejected, deferred, withdrawn, draft).
Unanswerable questions are about the same topics; their answers are in none of these PEPs
(checked by grep when they were written). 109 PEPs, about 340,000 words after cleanup (2,034
chunks), so the knowledge base builds in about 4 minutes on two shared cores. Changing the
lists changes what the figures mean: say so in the commit.
"""

from __future__ import annotations

# PEPs holding the answer of at least one answerable question (tests check each is named by one).
TARGETS: tuple[int, ...] = (
    1, 8, 13, 20, 405, 416, 427, 465, 484, 498, 515, 518, 544, 557, 563, 572, 594, 602, 604, 622,
    634, 636, 664, 680, 686, 693, 703, 814, 2026, 3099, 3103, 3105, 3131, 8000, 8001, 8016, 8100,
)

# Neighbouring PEPs, by the topic they sit next to.
DISTRACTORS: tuple[int, ...] = (
    # governance, process and conventions (next to PEP 1, 8, 13, 8000, 8016, 8100)
    2, 4, 7, 10, 11, 12, 387, 609, 729, 732, 8010, 8011, 8012, 8013, 8014, 8015, 8101, 8102,
    # release schedules (next to PEP 602, 664, 693, 719)
    619, 719, 745,
    # typing (next to PEP 484, 544, 563, 604)
    483, 526, 585, 586, 589, 591, 593, 612, 613, 647, 649, 673, 695, 698, 742, 749,
    # syntax and language (next to PEP 572, 498, 634, 3103, 3105, 3131)
    275, 505, 531, 617, 637, 640, 654, 657, 671, 678, 701, 750, 3100, 3101, 3102, 3107, 3120,
    3125, 3126, 3132, 3136,
    # packaging (next to PEP 405, 427, 518)
    508, 517, 621, 723, 735,
    # runtime and standard library (next to PEP 703, 680, 686, 416/814, 515)
    554, 574, 616, 618, 632, 659, 683, 684, 779,
)

SUBSET: tuple[int, ...] = tuple(sorted(set(TARGETS) | set(DISTRACTORS)))
