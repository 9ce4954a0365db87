"""Citation check: every claim cites evidence, and the cited chunks state what the claim says.

Promises:
- A notice claim (kind "notice") is exempt: it speaks about the answer, not the world.
- A fact or relation claim with no citation -> `missing_citation`.
- A citation number missing from `answer.citations`, or whose chunk is not in the evidence
  -> `invalid_citation` (one issue per bad number, with the chunk id when known).
- Against the valid cited chunks (title and text), with [n] markers stripped first:
  - every quantity must be stated there with the same value and a compatible unit, for the
    subject the claim states it for (validation/subjects.py: the name before it, or the
    previous claim's subject for "It"/"Its"): a value the cited sentences state only for
    another subject (the claim gives the A320neo the 737 MAX 8's 13.3 kg) is unsupported; and
    it must not be a drift: when the sentence of the chunk that matches the claim best states another
    value of the same unit (the claim says 85%, that sentence says 87%; a difference such as
    "70 kg per hour less" is no rival to an absolute value), the number is unsupported
    -> `unsupported_number`. Relation claims have their `values` checked too;
    a number in a relation's text may also be the difference of its two values (70 kg/h) or
    that difference as a percentage (3.0%).
  - every date (2023-03-15, March 15, 2023, 2023年3月15日) and standalone year must appear in
    the chunks or their metadata dates -> `unsupported_date`.
  - fact claims: every code (A320neo, E4027) and the claim's entity must occur in the chunks,
    and at least MIN_TERM_OVERLAP of the claim's content terms (not judged when the claim and
    its sources are written in different scripts: a translation) -> `unsupported_term`.
- At most one issue of each kind per claim (its detail lists every item); order: claims in
  answer order, kinds in the order above. Pure and deterministic; never raises for a finding.
"""

from __future__ import annotations

import re
from collections.abc import Sequence
from dataclasses import dataclass

from core.reading.measures import read_measure
from core.reading.quantities import Quantity
from core.reading.units import normalize_unit
from orchestration.retrieval.scored import ScoredChunk
from orchestration.types import Answer, Claim
from perception.types import Perception
from validation import subjects as sj
from validation import text as tx
from validation.context import CheckContext
from validation.types import Issue

CHECK = "citation"
MIN_TERM_OVERLAP = 0.5  # share of a fact claim's content terms the cited chunks must contain
DRIFT_MIN_SCORE = 0.3  # a competing sentence must match the claim at least this well ...
DRIFT_MARGIN = 0.15  # ... and this much better than any sentence stating the claimed number
PERCENT_TOLERANCE = 0.1  # percentage points allowed when a relation states a derived percentage
# a value stated as a difference: "70 kg per hour less", "4.5% lower than"
_DIFFERENCE_AFTER = re.compile(r"^\s*(?:[^\W\d]+\s+){0,3}?(?:less|more|lower|higher|fewer|greater|smaller|larger|"
                               r"below|above)\b", re.IGNORECASE)


@dataclass(frozen=True)
class _Subjects:
    """Who the claim's numbers are about: the names to look for and the claim's own subject."""

    names: tuple[str, ...] = ()
    claim: str | None = None


@dataclass(frozen=True)
class _Cited:
    """A valid citation of a claim: its number and its chunk."""

    n: int
    chunk: ScoredChunk

    @property
    def text(self) -> str:
        """The chunk's title and text, as one searchable string."""
        return f"{self.chunk.title}\n{self.chunk.text}"


def check(perception: Perception | None, answer: Answer, evidence: Sequence[ScoredChunk],
          context: CheckContext) -> list[Issue]:
    """Issues of every non-notice claim of the answer (see the module docstring).

    Args:
        perception: the question, whose named entities are the subjects numbers are aligned with
            (None: only the claims' own entities are).
        answer: the composed answer.
        evidence: the chunks the composer was given.
        context: unused.

    Returns:
        The issues found, in claim order; empty when every claim is cited and supported.
    """
    by_id = {chunk.chunk_id: chunk for chunk in evidence}
    names = tuple(sj.subject_names(perception, (c.entity for c in answer.claims)))
    subjects = sj.claim_subjects([c.text for c in answer.claims], names) if names else [None] * len(answer.claims)
    issues: list[Issue] = []
    for index, claim in enumerate(answer.claims):
        if claim.kind != "notice":
            issues.extend(_check_claim(index, claim, answer, by_id, _Subjects(names, subjects[index])))
    return issues


def _check_claim(index: int, claim: Claim, answer: Answer, by_id: dict[str, ScoredChunk],
                 subjects: _Subjects = _Subjects()) -> list[Issue]:
    """The issues of one claim.

    Args:
        index: the claim's position in answer.claims.
        claim: the claim.
        answer: the answer (for its citations).
        by_id: the evidence by chunk id.
        subjects: the subject names and the claim's subject (its numbers are aligned with them).

    Returns:
        missing/invalid citation issues, then the support issues against the valid citations.
    """
    if not claim.citations:
        return [Issue(CHECK, "missing_citation", f"claim {index + 1} cites no source: {_quote(claim.text)}",
                      claim=index)]
    cited, issues = _resolve(index, claim, answer, by_id)
    if not cited:
        return issues
    chunk_id = cited[0].chunk.chunk_id if len({c.chunk.chunk_id for c in cited}) == 1 else None
    refs = "".join(f"[{c.n}]" for c in cited)
    for kind, problems in (("unsupported_number", _number_problems(claim, cited, subjects)),
                           ("unsupported_date", _date_problems(claim, cited)),
                           ("unsupported_term", _term_problems(claim, cited))):
        if problems:
            detail = f"claim {index + 1} {_quote(claim.text)}: " + "; ".join(problems) + f" (cited: {refs})"
            issues.append(Issue(CHECK, kind, detail, claim=index, chunk_id=chunk_id, entity=claim.entity))
    return issues


def _resolve(index: int, claim: Claim, answer: Answer,
             by_id: dict[str, ScoredChunk]) -> tuple[list[_Cited], list[Issue]]:
    """The claim's valid citations, and an invalid_citation issue for each bad one.

    Returns:
        (valid citations in the claim's order without repeats, issues).
    """
    cited: list[_Cited] = []
    issues: list[Issue] = []
    for n in dict.fromkeys(claim.citations):
        citation = answer.citation(n)
        if citation is None:
            issues.append(Issue(CHECK, "invalid_citation",
                                f"claim {index + 1} cites [{n}], which is not among the answer's citations",
                                claim=index))
        elif citation.chunk_id not in by_id:
            issues.append(Issue(CHECK, "invalid_citation",
                                f"claim {index + 1} cites [{n}] = {citation.chunk_id}, which is not in the evidence",
                                claim=index, chunk_id=citation.chunk_id))
        else:
            cited.append(_Cited(n, by_id[citation.chunk_id]))
    return cited, issues


# --- numbers ---------------------------------------------------------------------------

def _claimed_quantities(claim: Claim) -> list[Quantity]:
    """The quantities of the claim's text and of its `numbers` list, without repeats."""
    found: list[Quantity] = list(tx.quantities(claim.text))
    for written in claim.numbers:
        for q in tx.quantities(str(written)):
            if not any(tx.same_value(q.value, f.value) and tx.units_compatible(q.unit, f.unit) for f in found):
                found.append(q)
    return found


def _number_problems(claim: Claim, cited: list[_Cited], subjects: _Subjects = _Subjects()) -> list[str]:
    """What is wrong with the claim's numbers; empty when every one is supported."""
    problems: list[str] = []
    values = _relation_values(claim)
    if claim.kind == "relation":
        problems.extend(_value_problems(claim, cited))
    claim_terms = tx.profile(claim.text)
    claimed = _claimed_quantities(claim)
    for q in claimed:
        if claim.kind == "relation" and _derived(q, values):
            continue
        mine = _subject_of(q, claim, subjects)
        # a claim that names no subject ("Its per-seat burn is ...") lacks the words the drift
        # test matches sentences on; the value stated for its subject (checked here) settles it
        carried = mine is not None and sj.sentence_subject(tx.strip_markers(claim.text), subjects.names) is None
        problem = _subject_problem(q, mine, cited, subjects.names) or _quantity_problem(
            q, claimed, claim_terms, cited, drift=claim.kind == "fact" and not carried, subject=mine,
            names=subjects.names, absolute=_absolute(q, claim))
        if problem:
            problems.append(problem)
    return problems


def _quantity_problem(q: Quantity, claimed: list[Quantity], claim_terms: frozenset[str],
                      cited: list[_Cited], drift: bool, subject: str | None = None,
                      names: Sequence[str] = (), absolute: bool = False) -> str | None:
    """Why one claimed quantity is unsupported by the cited chunks, or None when it is supported.

    Args:
        q: the quantity.
        claimed: every quantity of the claim (a value the claim states itself is no competitor).
        claim_terms: the claim's content terms, to find the sentence the claim paraphrases.
        cited: the valid citations.
        drift: also look for a better-matching sentence that states another value.
        subject: whom the claim states q for (None: unknown); a value stated for another
            subject is no rival.
        names: the subject names.
        absolute: q is an absolute value in the claim (not "70 kg less"): differences are no rivals.
    """
    sentences = [(c, s) for c in cited for s in (c.chunk.title, *tx.sentences(c.chunk))]
    holders = [(c, s) for c, s in sentences if any(tx.quantity_matches(q, x) for x in tx.source_quantities(s))]
    if not holders:
        seen = _same_unit_values(q, cited)
        hint = f"; it states {', '.join(seen)}" if seen else ""
        return f"{q.text} is not stated in the cited source{hint}"
    if not drift or q.unit is None or not claim_terms:
        return None
    best_holder = max(_overlap(claim_terms, s) for _, s in holders)
    rivals = [(c, s, x) for c, s in sentences for x in tx.source_quantities(s)
              if _rival(q, x, claimed, s, absolute)
              and not any(tx.quantity_matches(q, y) for y in tx.source_quantities(s))
              and (subject is None or sj.subject_at(s, x.span[0], names) in (None, subject))]
    if not rivals:
        return None
    score, c, s, x = max(((_overlap(claim_terms, s), c, s, x) for c, s, x in rivals), key=lambda r: r[0])
    if score >= DRIFT_MIN_SCORE and score - best_holder >= DRIFT_MARGIN:
        return (f"{q.text} differs from the sentence of [{c.n}] that matches the claim best, "
                f"which states {x.text}: {_quote(s)}")
    return None


def _rival(q: Quantity, x: Quantity, claimed: list[Quantity], sentence: str = "", absolute: bool = False) -> bool:
    """True when x is another value of q's unit that the claim does not state itself; when q is
    an `absolute` value, not a difference ("70 kg per hour less")."""
    return (x.unit is not None and tx.unit_base(x.unit) == tx.unit_base(q.unit)
            and not tx.same_value(x.value, q.value)
            and not any(tx.quantity_matches(c, x) for c in claimed)
            and not (absolute and _DIFFERENCE_AFTER.match(sentence[x.span[1]:])))


def _absolute(q: Quantity, claim: Claim) -> bool:
    """True when the claim states q as a value of its own, not as a difference ("70 kg less")."""
    plain = tx.strip_markers(claim.text)
    return plain[q.span[0]:q.span[1]] == q.text and not _DIFFERENCE_AFTER.match(plain[q.span[1]:])


def _subject_of(q: Quantity, claim: Claim, subjects: _Subjects) -> str | None:
    """Whom the claim states q for: the subject named before it, else the claim's (None for a
    number without a unit: the 8 of "737 MAX 8" is part of a name)."""
    if not subjects.names or q.unit is None:
        return None
    plain = tx.strip_markers(claim.text)
    if plain[q.span[0]:q.span[1]] != q.text:  # from `numbers`, not the text: the claim's subject
        return subjects.claim
    return sj.subject_at(plain, q.span[0], subjects.names, subjects.claim)


def _subject_problem(q: Quantity, mine: str | None, cited: list[_Cited], names: Sequence[str]) -> str | None:
    """Why q is not supported for `mine`, the subject the claim states it for, or None (supported
    for it, stated for no named subject, or no subject known).

    A cited sentence stating q says it of its own subject (`sj.subject_at`; a sentence naming
    none, of its chunk title's single subject); q is unsupported only when every such sentence
    says it of another subject.
    """
    if mine is None:
        return None
    stated_for: list[tuple[_Cited, str]] = []
    for c in cited:
        title = sj.sentence_subject(c.chunk.title or "", names)
        for sentence in tx.sentences(c.chunk):
            for x in tx.source_quantities(sentence):
                if tx.quantity_matches(q, x):
                    whose = sj.subject_at(sentence, x.span[0], names, title)
                    if whose is None or whose == mine:
                        return None
                    stated_for.append((c, whose))
    if not stated_for:
        return None  # stated nowhere: _quantity_problem says so
    c, whose = stated_for[0]
    own = _values_for(q, mine, cited, names)
    hint = f"; it states {', '.join(own)} for {mine}" if own else ""
    return f"{q.text} is stated for {whose} in [{c.n}], not for {mine}{hint}"


def _values_for(q: Quantity, subject: str, cited: list[_Cited], names: Sequence[str], limit: int = 2) -> list[str]:
    """Up to `limit` values of q's full unit ("kg per seat per hour") the cited sentences state
    for `subject`, as written."""
    out: list[str] = []
    unit = _full_unit(q, cited)
    for c in cited:
        for sentence in tx.sentences(c.chunk):
            for x in tx.source_quantities(sentence):
                if (x.unit and read_measure(sentence, x).unit == unit and x.text not in out
                        and not _DIFFERENCE_AFTER.match(sentence[x.span[1]:])
                        and sj.subject_at(sentence, x.span[0], names) == subject):
                    out.append(x.text)
    return out[:limit]


def _full_unit(q: Quantity, cited: list[_Cited]) -> str | None:
    """q's full unit as a cited sentence stating it reads it (its base unit when none does)."""
    for c in cited:
        for sentence in tx.sentences(c.chunk):
            for x in tx.source_quantities(sentence):
                if tx.quantity_matches(q, x):
                    return read_measure(sentence, x).unit
    return q.unit


def _overlap(claim_terms: frozenset[str], sentence: str) -> float:
    """Jaccard overlap of the claim's content terms and a sentence's."""
    found = tx.profile(sentence)
    union = claim_terms | found
    return len(claim_terms & found) / len(union) if union else 0.0


def _same_unit_values(q: Quantity, cited: list[_Cited], limit: int = 3) -> list[str]:
    """Up to `limit` values of the same unit the cited chunks do state, as written."""
    out: list[str] = []
    for c in cited:
        for x in tx.source_quantities(c.chunk.text):
            if q.unit and tx.unit_base(x.unit) == tx.unit_base(q.unit) and x.text not in out:
                out.append(x.text)
    return out[:limit]


def _relation_quantities(claim: Claim) -> list[tuple[str, dict, Quantity]]:
    """The numeric values of a relation claim: (side, its spec, the value as a quantity)."""
    out: list[tuple[str, dict, Quantity]] = []
    for side, spec in claim.values.items():
        value = spec.get("value") if isinstance(spec, dict) else None
        if isinstance(value, (int, float)) and not isinstance(value, bool):
            unit = spec.get("unit")
            out.append((side, spec, Quantity(float(value), normalize_unit(unit), f"{value:g} {unit or ''}".strip(),
                                             (0, 0))))
    return out


def _relation_values(claim: Claim) -> list[Quantity]:
    """The numeric values of a relation claim, as quantities (non-numeric values skipped)."""
    return [q for _, _, q in _relation_quantities(claim)]


def _value_problems(claim: Claim, cited: list[_Cited]) -> list[str]:
    """Relation values not stated by their chunk (the citation `n` of the value, else any cited)."""
    problems: list[str] = []
    for side, spec, q in _relation_quantities(claim):
        chunks = [c for c in cited if c.n == spec.get("n")] or cited
        if not any(tx.quantity_matches(q, x) for c in chunks for x in tx.source_quantities(c.text)):
            where = f"[{chunks[0].n}]" if len(chunks) == 1 else "the cited sources"
            problems.append(f"the value for {side}, {q.text}, is not stated in {where}")
    return problems


def _derived(q: Quantity, values: list[Quantity]) -> bool:
    """True when q is one of the relation's values, their difference, or it as a percentage."""
    if any(tx.quantity_matches(q, v) for v in values):
        return True
    if len(values) != 2:
        return False
    a, b = values
    diff = abs(a.value - b.value)
    if q.unit == "%":
        return any(abs(q.value - diff / base * 100) <= PERCENT_TOLERANCE + 0.05
                   for base in (a.value, b.value) if base)
    return tx.same_value(q.value, diff) and tx.units_compatible(q.unit, a.unit or b.unit)


# --- dates -----------------------------------------------------------------------------

def _date_problems(claim: Claim, cited: list[_Cited]) -> list[str]:
    """Dates and standalone years of the claim that no cited chunk (or its metadata) states."""
    stated = {d for c in cited for d in (*tx.dates(c.text), *tx.metadata_dates(c.chunk.metadata))}
    years = {y for c in cited for y in tx.years(c.text)} | {d.year for d in stated}
    problems = [f"{d.isoformat()} is not stated in the cited source" for d in tx.dates(claim.text) if d not in stated]
    problems += [f"the year {y} is not stated in the cited source"
                 for y in sorted(tx.standalone_years(claim.text)) if y not in years]
    return problems


# --- terms -----------------------------------------------------------------------------

def _term_problems(claim: Claim, cited: list[_Cited]) -> list[str]:
    """Codes, the entity and the share of content terms of a fact claim the chunks lack."""
    if claim.kind != "fact":
        return _code_problems(tx.terms(claim.text), cited)
    claim_terms = tx.terms(claim.text)
    problems = _code_problems(claim_terms, cited)
    if claim.entity and not any(tx.mentions(claim.entity, c.text) or _published_by(claim.entity, c) for c in cited):
        problems.append(f"the entity {claim.entity!r} is not mentioned in the cited source")
    if claim_terms and _same_script(claim_terms, cited):
        found = [t for t in claim_terms if any(tx.term_found(t, tx.terms(c.text), c.text) for c in cited)]
        share = len(found) / len(claim_terms)
        if share < MIN_TERM_OVERLAP:
            missing = sorted(claim_terms - set(found))
            problems.append(f"only {share:.0%} of its terms occur in the cited source "
                            f"(missing: {', '.join(missing[:8])})")
    return problems


def _published_by(name: str, cited: _Cited) -> bool:
    """True when the cited chunk comes from the publication `name` (a source side of a comparison)."""
    return str(cited.chunk.metadata.get("source", "")).lower() == name.lower()


def _same_script(claim_terms: frozenset[str], cited: list[_Cited]) -> bool:
    """True unless the claim is mostly Chinese and the chunks mostly not, or the other way round
    (a translated claim cannot share words with its source; its numbers and codes still can)."""
    claim_zh = sum(tx.is_cjk(t) for t in claim_terms) * 2 >= len(claim_terms)
    chunk_terms = frozenset().union(*(tx.terms(c.text) for c in cited))
    chunk_zh = sum(tx.is_cjk(t) for t in chunk_terms) * 2 >= len(chunk_terms)
    return claim_zh == chunk_zh


def _code_problems(claim_terms: frozenset[str], cited: list[_Cited]) -> list[str]:
    """Codes of the claim (A320neo, E4027) that no cited chunk contains (B737 is found in "737 MAX 8")."""
    return [f"the code {code.upper()} does not occur in the cited source" for code in tx.codes(claim_terms)
            if not any(tx.term_found(code, tx.terms(c.text), c.text) or tx.mentions(code, c.text) for c in cited)]


def _quote(text: str, limit: int = 90) -> str:
    """A claim or sentence quoted for a detail line, markers removed, shortened."""
    text = tx.strip_markers(text)
    return repr(text if len(text) <= limit else text[: limit - 1] + "…")
