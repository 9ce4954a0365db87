"""Words a question asks with and the words a document answers with, as BM25 tokens.

"Who wrote PEP 484?" is answered by "Author: Guido van Rossum"; "Who won X?" by "the X
winner"; "Was PEP 3103 accepted?" by "Status: Rejected". The stemmer leaves irregular forms
apart (won/win, held/hold), so they are listed with the agent noun that names the doer. Read
by the composer and validation (a sentence carrying a group's word carries the term,
`orchestration.focus.present`). General English only: never a word for one corpus.

Not used to expand keyword queries: measured on the PEPs, "Who wrote PEP 484?" expanded to
"author" ranked PEP 1 (which discusses PEP authors throughout) above PEP 484 itself, each added
word scoring as much as the asked one; a synonym-aware BM25 (one IDF per group) would be needed.
"""

from __future__ import annotations

from .tokenize import tokenize

# what a document's version field says of its subject: the version that added it
_ADDED = ("add", "added", "introduce", "introduced", "implement", "implemented")
_GROUPS = (
    ("author", "wrote", "written", "write", "writer"),
    ("win", "won", "winner", "wins", "champion"),
    ("acquire", "acquired", "acquisition", "buy", "bought", "purchase", "purchased"),
    ("hold", "held", "host", "hosted"),
    ("lead", "led", "leader"),
    ("begin", "began", "begun", "start", "started"),
    ("make", "made", "maker"),
    ("build", "built", "builder"),
    ("sell", "sold", "seller"),
    ("pay", "paid", "payment"),
    ("keep", "kept"),
    ("give", "gave", "given"),
    ("choose", "chose", "chosen"),
    ("direct", "directed", "director"),
    ("found", "founded", "founder"),
    ("release", "released", "launch", "launched", "publish", "published"),
    _ADDED,
    # the verbs of who-does-what in policies and processes
    ("check", "verify", "verifies", "examine", "inspect", "audit"),
    ("approve", "approval", "approves", "authorise", "authorises"),  # not "authorize": its stem is "author"
    # a proposal's fate, which a document states as its status
    ("status", "accept", "accepted", "acceptance", "reject", "rejected", "rejection", "adopt", "adopted",
     "withdrawn", "deferred"),
)
SAME_TERMS: tuple[frozenset[str], ...] = tuple(frozenset(tokenize(" ".join(group))) for group in _GROUPS)
EQUIVALENT: dict[str, frozenset[str]] = {term: group - {term} for group in SAME_TERMS for term in group}
