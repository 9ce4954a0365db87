"""Focus term matching: the fast `_present` agrees with the per-token `_related` rule."""

import itertools

from orchestration.compose.focus import _present, _related

TERMS = ["a320", "reimburs", "reimbursement", "fee", "acquir", "举办", "举", "leap-1a", "2023", "apple"]
TOKENS = ["a320neo", "a32", "reimbursement", "reimb", "fee", "fees", "acquisit", "acquir", "举办地", "举",
          "举办", "leap-1a26", "20231", "2023", "appl", "applesauc", "app"]


def test_present_matches_the_token_by_token_rule_on_every_subset():
    for size in (0, 1, 2, 3):
        for tokens in itertools.combinations(TOKENS, size):
            have = set(tokens)
            for term in TERMS:
                expected = term in have or any(_related(term, t) for t in have)
                assert _present(term, have) == expected, (term, tokens)


def test_a_question_verb_finds_the_noun_a_document_answers_with():
    """Found on the PEPs: "Who wrote PEP 484?" was refused, the header line "PEP 484 – Author:
    Guido van Rossum, ..." carrying no "wrote"."""
    from orchestration.compose.focus import Focus
    from orchestration.retrieval.tokenize import tokenize
    from perception import PerceptionAgent

    agent = PerceptionAgent(use_ner=False)
    focus = Focus.of(agent.run("Who wrote PEP 484?", "2026-01-01"))
    assert focus.coverage(tokenize("PEP 484 – Author: Guido van Rossum, Jukka Lehtosalo.")) == 1.0
    assert focus.coverage(tokenize("PEP 484 – Status: Final.")) < 1.0
    asked = Focus.of(agent.run("Who is the author of PEP 8?", "2026-01-01"))
    assert asked.coverage(tokenize("PEP 8 was written by Guido van Rossum and Barry Warsaw.")) == 1.0
