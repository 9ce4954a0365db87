"""The extractive composer: the default, deterministic answer writer (DESIGN.md section 7).

Contract (as every Sightline component): a cheap constructor taking plain values, `warm_up()`
(nothing to load), and `run(perception, evidence, excluded_claims) -> Answer`. Promises:

- Same input, same output: no randomness, no clock, ties broken by evidence rank and position.
- Every fact claim quotes one evidence sentence verbatim (a table row: its cells with their
  column names, `sentences.table_row_sentence`), followed by its `[n]` marker; `n` numbers the
  cited chunks by first use in `Answer.text`.
- Comparisons (action "compare" with two sides) get the best sentences per side and a relation
  claim only when two stated values with the same unit (or two dates) support it; otherwise a
  notice says why not. A side with no evidence gets a notice.
- A query with several questions gets sentences for each part.
- Glue text (relations, notices, the refusal) is in the query's language; for Chinese queries
  Chinese sentences win when they score comparably (see `scoring.ScoreSettings.foreign_factor`).
- No supporting sentence -> a plain refusal with no claims and no citations.
- Sentences in `excluded_claims` are never picked again.
"""

from __future__ import annotations

import math
from collections.abc import Sequence

from core.reading.identifiers import IDENTIFIER, names_identifier, names_operator, names_option
from core.vocab import MENTION_LABELS
from orchestration.focus import OPEN_SLOTS, Focus
from orchestration.kb.units import FIELD
from orchestration.retrieval.scored import ScoredChunk
from orchestration.retrieval.tokenize import tokenize
from orchestration.types import Answer, Claim, Feedback, ShortAnswer
from perception.question import Question
from perception.types import Perception

from .blocks import answer_text, code_block
from .citations import CitationBook
from .comparison import Comparator, Finding, Side, comparison_sides, make_side
from .language import glue, relation_word
from .ranker import RANKERS, LexicalRanker, Ranking, UnitReading
from .scoring import QueryTerms, ScoreSettings, Selection, reading_order, set_priors
from .sentences import Candidate, code_after, evidence_candidates, heading_subject, items_after, list_of
from .short_answer import short_answer
from .verdict import compared, decide

EXPLAINED = 12  # candidates per sub-question whose choice the trace explains


class ExtractiveComposer:
    """Quotes the best supporting evidence sentences, cites them, and states supported relations."""

    name = "extractive"
    deterministic = True  # same input, same answer: a retry repeating a plan or evidence repeats its answer
    model: str | None = None  # no language model writes its answers

    def __init__(self, max_sentences: int = 4, max_per_entity: int = 2, snippet_chars: int = 240,
                 min_ratio: float = 0.35, foreign_factor: float = 0.8, ranker: str = LexicalRanker.name) -> None:
        """Check and store settings; nothing is loaded.

        Args:
            max_sentences: fact sentences in an answer that is not a comparison.
            max_per_entity: fact sentences per side of a comparison.
            snippet_chars: the longest citation snippet.
            min_ratio: sentences scoring below this share of the best one are left out.
            foreign_factor: score multiplier for sentences not in the query's language (0..1].
            ranker: how candidate units are ranked (ranker.py): "lexical" (the lexical score;
                validation's rules decide refusals) or "learned" (the answer model's probability,
                which decides refusals); server/bootstrap.py chooses, docs/ANSWER_MODEL.md says why.

        Raises:
            ValueError: a setting is out of range (the message names it and the valid range).
        """
        for field_name, value, low in (("max_sentences", max_sentences, 1), ("max_per_entity", max_per_entity, 1),
                                       ("snippet_chars", snippet_chars, 20)):
            if not isinstance(value, int) or value < low:
                raise ValueError(f"ExtractiveComposer: {field_name} must be an integer >= {low}, got {value!r}")
        for field_name, ratio in (("min_ratio", min_ratio), ("foreign_factor", foreign_factor)):
            if not 0.0 <= float(ratio) <= 1.0:
                raise ValueError(f"ExtractiveComposer: {field_name} must be between 0 and 1, got {ratio!r}")
        self.max_sentences = max_sentences
        self.max_per_entity = max_per_entity
        self.snippet_chars = snippet_chars
        if ranker not in RANKERS:
            raise ValueError(f"ExtractiveComposer: ranker must be one of {', '.join(RANKERS)}, got {ranker!r}")
        self.settings = ScoreSettings(min_ratio=float(min_ratio), foreign_factor=float(foreign_factor))
        self.ranker: LexicalRanker = RANKERS[ranker](self.settings)

    def warm_up(self) -> None:
        """Load the ranker's models, and jieba's dictionary, so the first Chinese request does not
        pay ~1.3 s for it."""
        tokenize("预热")
        self.ranker.warm_up()

    # --- entry point --------------------------------------------------------------------------

    def session(self) -> None:
        """None: an extractive answer keeps no state across a request's attempts."""
        return None

    def run(self, perception: Perception, evidence: Sequence[ScoredChunk],
            excluded_claims: Sequence[str] = (), *, feedback: Sequence[Feedback] = (),
            session: object = None) -> Answer:
        """Compose an answer from the evidence (best first).

        Args:
            perception: the understood query.
            evidence: the fused evidence, best first.
            excluded_claims: sentence or claim texts a previous attempt's validation rejected.
            feedback, session: what a generative composer reads (validation's findings, its
                request state); an extractive answer quotes the evidence and needs neither.

        Returns:
            An Answer with `composer="extractive"` in the query's language.
        """
        language = perception.language if perception.language in ("en", "zh") else "en"
        selection = Selection(excluded_claims)
        notes: list[str] = []
        decisions: dict[str, str] = {}
        keep_code = perception.question.code
        candidates = [c for c in evidence_candidates(evidence, keep_code) if not selection.is_excluded(c.text)]
        if keep_code:
            notes.append("the question asks for configuration or a command: code blocks may be quoted")
        set_priors(candidates, self.settings)
        terms = QueryTerms.from_perception(perception)
        book = CitationBook(self.snippet_chars)
        sides = comparison_sides(perception) if perception.action == "compare" else []
        best: list[Candidate] = []
        readings: dict[tuple[str, int], UnitReading] = {}
        short: list[ShortAnswer] = []
        term_weights: dict[str, float] = {}
        if len(sides) >= 2:
            sections = self._compare(perception, sides, candidates, terms, selection, book, language, notes)
        else:
            sections = self._lookup(perception, candidates, terms, selection, book, notes, decisions, best,
                                    term_weights, readings, short)
        scoring = self.ranker.scoring(readings, best, language)
        if not any(c.kind == "fact" for section in sections for c in section):
            return Answer(text=glue(language, "no_answer"), claims=[], citations=[], composer=self.name,
                          language=language, notes=notes + ["no evidence sentence supports the query"],
                          decisions=decisions, scoring=scoring, term_weights=term_weights)
        claims = [c for section in sections for c in section]
        return Answer(text=answer_text(sections), claims=claims, citations=book.citations(), composer=self.name,
                      language=language, notes=notes, decisions=decisions, scoring=scoring,
                      term_weights=term_weights, short_answer=short[0] if short else None)

    def instead_of(self, rejected: Answer, perception: Perception, evidence: Sequence[ScoredChunk],
                   excluded_claims: Sequence[str], why: str) -> Answer | None:
        """None: an answer this composer wrote quotes the evidence, and a rejection of it stands
        (the loop asks every composer; the LLM composer answers with this one instead)."""
        return None

    # --- lookups and sub-questions --------------------------------------------------------------

    def _lookup(self, perception: Perception, candidates: list[Candidate], terms: QueryTerms,
                selection: Selection, book: CitationBook, notes: list[str],
                decisions: dict[str, str], best: list[Candidate],
                term_weights: dict[str, float], readings: dict[tuple[str, int], UnitReading],
                short: list[ShortAnswer]) -> list[list[Claim]]:
        """The best sentences for the query, one section per sub-question (`decisions` says why;
        `best` receives each part's three best units and `readings` what the ranker read of its
        units; `term_weights` the first part's terms as the ranking weighed them: by their rarity
        among the candidates for a one-part question; `short` a one-part question's short answer,
        the value it asks for as the lead writes it)."""
        candidates, whole = self._choosable(perception, candidates, notes, decisions)
        parts = perception.question.parts or (perception.question,)  # Perception's sub-questions
        if len(parts) > 1:
            notes.append("sub-questions: " + " | ".join(p.ask for p in parts))
        quota = max(1, math.ceil(self.max_sentences / len(parts)))
        sections: list[list[Claim]] = []
        for part in parts:
            part_terms = (one_part_terms(terms, candidates) if len(parts) == 1
                          else _merge(QueryTerms.from_perception(perception, part), terms, 0.5))
            # a part's focus: its ask with the query's context clauses, its slot from the one table
            focus = whole if len(parts) == 1 else Focus.of(perception, part)
            if not sections:
                term_weights.update((term, round(w, 3)) for term, w in part_terms.weights.items())
            # the cross-encoder reads the first part's units (it costs ~6-10 ms a unit on one
            # thread: three parts of three units doubled a request's p95)
            ranking = self.ranker.rank(candidates, focus, part_terms, perception.language, reread=not sections)
            for key, reading in ranking.readings.items():  # the first part's, read again by the cross-encoder, stand
                readings.setdefault(key, reading)
            seen = {b.key for b in best}
            best += [c for c in ranking.units[:3] if c.key not in seen]
            chosen = selection.pick(ranking.units, quota, ranking.min_ratio)
            self._explain(ranking, chosen, focus, decisions)
            section: list[Claim] = []
            # a list item brings the other items of its list when the ranker cannot tell them apart
            # ("3.12.0 alpha 1: <date>" and "3.12.0 final: <date>" share the question's terms), or
            # when the question asks for a list
            brings_its_list = self.ranker.brings_lists or part.slot == "list"
            picked = {c.key: c for c in chosen}
            quoted: set[tuple[str, int]] = set()
            for candidate in ranking.lead_first(chosen):
                if candidate.key in quoted:
                    continue  # an item its list's lead-in brought already
                quoted.add(candidate.key)
                section.append(self._fact(candidate, book, lead=not section,
                                          probability=ranking.probability(candidate)))
                if len(section) == 1:
                    self._verdict(focus, candidate, section, perception.language, notes, decisions)
                    value = short_answer(focus, candidate) if len(parts) == 1 else None
                    if value is not None:
                        short.append(ShortAnswer(value, section[-1].citations[0]))
                block = code_after(candidate)
                if block is not None and not selection.is_duplicate(block):
                    # "Use the following command to generate one:" brings the command it introduces
                    selection.chosen.append(block)
                    section.append(self._fact(block, book))
                    notes.append("a quoted sentence introduces a code block: quoted with it")
                # "There are three kinds of PEP:" brings the items it lists, in their order (an item
                # chosen on its own moves up to its place in the list)
                items = self._bring(items_after(candidate), picked, quoted, selection, section, book, ranking)
                if items:
                    notes.append(f"a quoted sentence introduces a list: its {items} items quoted with it")
                if brings_its_list:
                    siblings = self._bring(list_of(candidate), picked, quoted, selection, section, book, ranking)
                    if siblings:
                        notes.append(f"a quoted list item brings the {siblings} other items of its list")
            sections.append(section)
        return sections

    def _choosable(self, perception: Perception, candidates: list[Candidate], notes: list[str],
                   decisions: dict[str, str]) -> tuple[list[Candidate], Focus]:
        """The candidates a lookup chooses from (`narrow`, then `asked_settings_only`: `notes` and
        `decisions` say which were left out), and the question's focus."""
        candidates, whole = self.narrow(perception, candidates)
        candidates, others, left_out = asked_settings_only(perception.question, candidates)
        if left_out:
            notes.append(f"the question names a documented setting: units about {', '.join(others[:5])} left out")
        for c in left_out:
            decisions[f"{c.chunk.chunk_id}@{c.start}"] = (
                f"not chosen: {c.unit} about another documented name ({c.name or c.text.split()[0]}); "
                "the question names a different one")
        return candidates, whole

    def question_ranking(self, perception: Perception, evidence: Sequence[ScoredChunk]) -> tuple[Ranking, Focus]:
        """A question's candidate units as `run` ranks them for a one-part question (the answer
        model's training rows are read through this: evaluation/answers/collect.py), and its focus."""
        candidates = evidence_candidates(evidence, perception.question.code)
        set_priors(candidates, self.settings)
        candidates, focus = self._choosable(perception, candidates, [], {})
        terms = QueryTerms.from_perception(perception)
        if len(perception.question.parts) <= 1:
            terms = one_part_terms(terms, candidates)
        return self.ranker.rank(candidates, focus, terms, perception.language), focus

    @staticmethod
    def _verdict(focus: Focus, lead: Candidate, section: list[Claim], language: str, notes: list[str],
                 decisions: dict[str, str]) -> None:
        """A yes/no question's verdict ("Yes." / "No.") before the lead unit, when the lead decides
        it (`verdict.decide`), citing what the lead cites; the trace says which clause said it."""
        verdict = decide(focus, lead)
        if verdict is None:
            if focus.slot == "yes_no":
                notes.append("a yes/no question: the lead unit does not decide it (it carries under three quarters "
                             "of the question's terms, is code or a question, or says the thing changed or holds "
                             "only in part), so no verdict is given")
            return
        notes.append(f"a yes/no question: {verdict.explain()}")
        decisions["verdict"] = verdict.explain()
        if verdict.said:
            return  # "Yes, restic will resume ...": the unit says it itself
        text = glue(language if language in ("en", "zh") else "en", f"verdict_{verdict.answer}")
        section.insert(0, Claim(text=text, citations=list(section[0].citations), kind="verdict"))

    @staticmethod
    def narrow(perception: Perception, candidates: list[Candidate]) -> tuple[list[Candidate], Focus]:
        """The candidates a lookup chooses from, and the question's focus: those of chunks naming
        the question's names, and of chunks naming its identifiers and operators when any do."""
        names = [make_side(e.text, e.normalized) for e in perception.entities if e.label in MENTION_LABELS]
        if names:
            candidates = [c for c in candidates if _names_any(names, c)]
        whole = Focus.of(perception).head_in(c.context_tokens for c in candidates)
        identifiers, operators, options = whole.identifiers, whole.operators, whole.options
        naming = [c for c in candidates
                  if _names_all(identifiers, operators, f"{c.chunk.title}\n{c.chunk.text}", options)
                  ] if identifiers or operators or options else []
        if naming:  # "Was PEP 3103 accepted?": quote the chunks about PEP 3103 when there are any
            # and of those, the document it is when it is there ("What did PEP 563 propose?" is
            # answered by PEP 563, not by PEP 749 saying how it differs from PEP 563)
            titled = [c for c in naming if identifiers and _names_all(identifiers, (), c.chunk.title or "")]
            candidates = titled if titled and any(c.notes.get("prior", 0) > 0 for c in titled) else naming
        return candidates, whole

    @staticmethod
    def _explain(ranking: Ranking, chosen: Sequence[Candidate], focus: Focus, decisions: dict[str, str]) -> None:
        """Why each of the best EXPLAINED candidates was chosen or not: score (or probability and the
        features that moved it most), slot, coverage."""
        ranked = ranking.units
        best = ranked[0].score if ranked else 0.0
        picked = {c.key for c in chosen}
        ratio = ranking.min_ratio
        for candidate in ranked[:EXPLAINED]:
            key = f"{candidate.chunk.chunk_id}@{candidate.start}"
            if key in decisions and (decisions[key].startswith("chosen") or candidate.key not in picked):
                continue  # a sentence chosen for one part stays chosen
            shape = (f"fills the {focus.slot} slot" if candidate.notes.get("fills_slot") else
                     f"no {focus.slot} stated" if focus.slot not in OPEN_SLOTS else "open question")
            covers = candidate.notes.get("coverage", 0)
            where = (f"{candidate.unit} under '{' > '.join(candidate.path)}'" if candidate.path else candidate.unit)
            facts = f"{where}, score {candidate.score:.2f}, {shape}, covers {covers:.0%} of its terms"
            reading = ranking.readings.get(candidate.key)
            if reading is not None:
                moved = ", ".join(f"{name} {value:+.2f}" for name, value in reading.contributions)
                facts = f"{where}, p={reading.probability:.2f} ({moved}), {shape}, covers {covers:.0%} of its terms"
            if candidate.key in picked:
                decisions[key] = f"chosen: {facts}"
            elif candidate.score <= 0:
                decisions[key] = "not chosen: shares no term with the question"
            elif candidate.score < best * ratio:
                decisions[key] = f"not chosen: {facts}; below {ratio:.0%} of the best ({best:.2f})"
            else:
                decisions[key] = f"not chosen: {facts}; the answer had enough sentences or repeats a chosen one"

    # --- comparisons ------------------------------------------------------------------------------

    def _bring(self, items: list[Candidate], picked: dict[tuple[str, int], Candidate], quoted: set[tuple[str, int]],
               selection: Selection, section: list[Claim], book: CitationBook, ranking: Ranking) -> int:
        """Quote `items` (a list's items, in order) after the unit that brought them, each once: an
        item chosen on its own is quoted here, with its probability, instead of in its own place.
        Returns how many were quoted."""
        count = 0
        for item in items:
            if item.key in quoted or (item.key not in picked and selection.is_duplicate(item)):
                continue
            if item.key in picked:
                item = picked[item.key]
            else:
                selection.chosen.append(item)
            quoted.add(item.key)
            section.append(self._fact(item, book, probability=ranking.probability(item)))
            count += 1
        return count

    def _compare(self, perception: Perception, sides: list[Side], candidates: list[Candidate],
                 terms: QueryTerms, selection: Selection, book: CitationBook, language: str,
                 notes: list[str]) -> list[list[Claim]]:
        """A relation (or notices) first, then one section of sentences per side."""
        inferred = [s.name for s in sides if s.inferred]
        if inferred:
            notes.append("comparison side read from the query text: " + ", ".join(inferred))
        finding = Comparator(self.settings, self.max_per_entity).compare(perception.question, sides, candidates,
                                                                         terms, perception.constraints.time)
        lead: list[Claim] = []
        relation = self._relation_claim(finding, book, language, selection)
        if relation is not None:
            verdict = compared(Focus.of(perception), finding.relation, finding.points)
            if verdict is not None:  # "Does A burn less fuel than B?": "Yes." before the relation
                lead.append(Claim(text=glue(language, f"verdict_{verdict.answer}"), citations=list(relation.citations),
                                  kind="verdict"))
                notes.append(f"a yes/no comparison: {verdict.explain()}")
            lead.append(relation)
        elif finding.bridge is not None and selection.allows(finding.bridge):
            selection.chosen.append(finding.bridge)  # "It replaces PEP 622": the sides' relation, stated
            lead.append(self._fact(finding.bridge, book))
        for key, fields in finding.notices:
            kind = relation_word(language, finding.kind)
            lead.append(Claim(text=glue(language, key, kind=kind, **fields), kind="notice",
                              entity=fields.get("a")))
        sections = [lead] if lead else []
        for side in sides:
            picked = self._side_sentences(finding, side, selection)
            if picked:
                sections.append([self._fact(c, book, entity=side.name) for c in picked])
        return sections

    def _side_sentences(self, finding: Finding, side: Side, selection: Selection) -> list[Candidate]:
        """Up to max_per_entity sentences for a side, the relation's sentence first."""
        ranked = finding.per_side.get(side.name, [])
        first: list[Candidate] = []
        if finding.points:
            point = next((p for p in finding.points if p.side is side), None)
            if point is not None and selection.allows(point.candidate):
                selection.chosen.append(point.candidate)
                first.append(point.candidate)
        rest = selection.pick([c for c in ranked if c not in first], self.max_per_entity - len(first),
                              self.settings.min_ratio)
        return first + reading_order(rest)

    def _relation_claim(self, finding: Finding, book: CitationBook, language: str,
                        selection: Selection) -> Claim | None:
        """The relation claim naming both values, both sources and the variant each value is of
        ("B737 (737 MAX 8)"), or None."""
        if finding.relation is None or finding.points is None:
            return None
        pa, pb = finding.points
        na = book.cite(pa.candidate.chunk, pa.candidate.text, pa.candidate.unit, pa.candidate.path)
        nb = book.cite(pb.candidate.chunk, pb.candidate.text, pb.candidate.unit, pb.candidate.path)
        key = "date_relation" if finding.kind == "date" else "value_relation"
        text = glue(language, key, a=pa.label(language), b=pb.label(language),
                    va=f"{pa.text} [{na}]", vb=f"{pb.text} [{nb}]",
                    sa=book.source_name(pa.candidate.chunk), sb=book.source_name(pb.candidate.chunk),
                    rel=relation_word(language, finding.relation))
        if selection.is_excluded(text):
            return None
        values = {p.side.name: {"value": p.value, "unit": p.unit, "n": n} for p, n in ((pa, na), (pb, nb))}
        numbers = [pa.text, pb.text] if finding.kind == "figure" else []
        return Claim(text=text, citations=sorted({na, nb}), numbers=numbers, kind="relation",
                     values=values, relation=finding.relation)

    # --- claims -----------------------------------------------------------------------------------

    def _fact(self, candidate: Candidate, book: CitationBook, entity: str | None = None, lead: bool = False,
              probability: float | None = None) -> Claim:
        """A fact claim quoting the sentence verbatim, its [n] marker appended (a code block
        fenced on lines of its own, so it reads as the configuration it is: `blocks.code_block`).
        A `lead` unit that opens with a pronoun ("It does not support X.") is introduced by the
        heading it stands under, which names what "It" is ("Lite edition: It does not support X.").
        `probability`: the ranker's, shown with the claim."""
        n = book.cite(candidate.chunk, candidate.text, candidate.unit, candidate.path)
        text = code_block(candidate.text, n) if candidate.notes.get("code") else f"{candidate.text} [{n}]"
        subject = heading_subject(candidate) if lead else ""
        if subject:
            text = f"{subject}: {text}"
        return Claim(text=text, citations=[n], numbers=[q.text for q in candidate.quantities], kind="fact",
                     entity=entity, probability=None if probability is None else round(probability, 4))


def _names_any(names: Sequence[Side], candidate: Candidate) -> bool:
    """True when the sentence's chunk (its text, title or source) names one of the query's names
    (a numbered name, "Python 3.12.0", as `names_identifier` reads it).

    The chunk, not the sentence: the sentence that answers often says "it" or "the benefit"
    while its section names the subject."""
    chunk = candidate.chunk
    where = (candidate.text, chunk.title or "", str(chunk.metadata.get("source") or ""), chunk.text)
    if any(name.mentioned_in(text) for name in names for text in where):
        return True
    # a numbered name as a document writes it: "3.12.0 final" under "Python 3.12 Release Schedule"
    return any(IDENTIFIER.fullmatch(name.name) and names_identifier(name.name, f"{chunk.title}\n{chunk.text}")
               for name in names)


def _names_all(identifiers: Sequence[str], operators: Sequence[str], text: str, options: Sequence[str] = ()) -> bool:
    """True when `text` (a chunk's title and text) names every identifier and writes every
    operator and option."""
    return all(names_identifier(i, text) for i in identifiers) and all(names_operator(o, text) for o in operators) \
        and all(names_option(o, text) for o in options)


def one_part_terms(terms: QueryTerms, candidates: Sequence[Candidate]) -> QueryTerms:
    """The terms a one-part question ranks `candidates` with: each term's weight times its rarity
    among them (`QueryTerms.by_rarity`). A part of a longer question keeps its merged flat
    weights: weighed by rarity, MultiHop's parts lost the gold fact (docs/EVALUATION.md, "Settings
    chosen from the figures"). The answer model's rows are collected with the same terms
    (evaluation/answers/collect.py)."""
    return terms.by_rarity([c.tokens for c in candidates])


def _merge(primary: QueryTerms, secondary: QueryTerms, factor: float) -> QueryTerms:
    """`primary`'s terms plus `secondary`'s at `factor` of their weight (primary wins ties)."""
    weights = {t: w * factor for t, w in secondary.weights.items()}
    for term, weight in primary.weights.items():
        weights[term] = max(weight, weights.get(term, 0.0))
    return QueryTerms(weights, primary.language, primary.quantitative, primary.asks_author, primary.question)


def asked_settings_only(question: Question, candidates: list[Candidate]
                        ) -> tuple[list[Candidate], list[str], list[Candidate]]:
    """When the question names a documented name (a field's: "What is the default of CACHE_DIR?"):
    (the candidates to choose from, the evidence's other documented names, the units about them
    left out: their fields, and units the reader opened with their name, "MAX_WORKERS default: 4.").
    A configuration reference lists settings side by side; the one asked about is the answer."""
    documented = sorted({c.name for c in candidates if c.name})
    asked = tuple(n for n in documented if question.writes_name(n))
    if not asked:
        return candidates, [], []
    others = [n for n in documented if n not in asked]

    def about_another(c: Candidate) -> bool:
        if c.unit == FIELD:
            return c.name in others
        return c.text.startswith(tuple(others)) and not c.text.startswith(asked)

    kept: list[Candidate] = []
    left_out: list[Candidate] = []
    for c in candidates:
        (left_out if about_another(c) else kept).append(c)
    return kept, others, left_out
