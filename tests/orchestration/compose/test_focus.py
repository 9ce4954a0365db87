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
