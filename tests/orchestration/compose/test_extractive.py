"""The extractive composer end to end, on real perceptions and demo-KB evidence."""

from __future__ import annotations

import re

import pytest
from markdown_it import MarkdownIt

from orchestration.compose.extractive import ExtractiveComposer
from orchestration.compose.language import sentence_language

MARKER = re.compile(r"\[(\d+)\]")

FUEL_EN = ("Compare the fuel burn of the A320 and the B737 in 2023",
           ["manuals-a320neo-perf-2023", "manuals-b737max8-perf-2023", "manuals-fuel-efficiency-comparison-2023",
            "manuals-a320neo-perf-2021"])
FUEL_ZH = ("A320neo 和 737 MAX 8 在 2023 年的油耗对比",
           ["manuals-fuel-efficiency-comparison-2023", "manuals-fuel-efficiency-comparison-2023-zh",
            "manuals-a320neo-perf-2023", "manuals-b737max8-perf-2023"])
INVOICE_EN = ("Who handles an invoice that does not match the contract and what is the process?",
              ["policies-invoice-contract-mismatch-2024", "policies-invoice-contract-mismatch-2025-draft"])
INVOICE_ZH = ("发票金额与合同不一致，应该找哪个部门处理，流程是什么？",
              ["policies-invoice-contract-mismatch-2024", "policies-invoice-contract-mismatch-2024-zh",
               "policies-invoice-contract-mismatch-2025-draft-zh"])
E4027 = ("What triggers error code E4027?", ["manuals-fault-e4027", "manuals-a320-maintenance-summary-zh"])
Q2_ZH = ("2025 年第二季度已关闭的测试报告有哪些？",
         ["reports-q2-2025-test-summary-zh", "reports-hydraulic-pressure-test-2025-04-18-zh",
          "reports-engine-vibration-test-2025-05-14"])
DATES = ("Compare the A320neo and 737 MAX 8 manuals: which was effective earlier?",
         ["manuals-a320neo-perf-2023", "manuals-b737max8-perf-2023"])
SCENARIOS = [FUEL_EN, FUEL_ZH, INVOICE_EN, INVOICE_ZH, E4027, Q2_ZH, DATES]
IDS = ["fuel-en", "fuel-zh", "invoice-en", "invoice-zh", "e4027", "q2-zh", "dates"]


@pytest.fixture(scope="module")
def composer():
    c = ExtractiveComposer()
    c.warm_up()
    return c


@pytest.fixture
def compose(composer, perceive, evidence):
    """compose(query, doc_ids, excluded=()) -> (answer, evidence list)."""

    def run(query, doc_ids, excluded=()):
        chunks = evidence(*doc_ids)
        return composer.run(perceive(query), chunks, excluded), chunks

    return run


def strip_markers(text: str) -> str:
    return re.sub(r"\s*\[\d+\]", "", text).strip()


def relations(answer):
    return [c for c in answer.claims if c.kind == "relation"]


def notices(answer):
    return [c for c in answer.claims if c.kind == "notice"]


# --- citations and verbatim quoting -----------------------------------------------------------

@pytest.mark.parametrize("query, doc_ids", SCENARIOS, ids=IDS)
def test_citations_are_numbered_by_first_use(compose, query, doc_ids):
    answer, _ = compose(query, doc_ids)
    seen: list[int] = []
    for n in (int(m) for m in MARKER.findall(answer.text)):
        if n not in seen:
            seen.append(n)
    assert seen == list(range(1, len(seen) + 1))
    assert [c.n for c in answer.citations] == seen
    for claim in answer.claims:
        assert set(claim.citations) <= set(seen)
        assert [int(m) for m in MARKER.findall(claim.text)] or claim.kind == "notice"


@pytest.mark.parametrize("query, doc_ids", SCENARIOS, ids=IDS)
def test_fact_claims_quote_their_cited_chunk_verbatim(compose, query, doc_ids):
    answer, chunks = compose(query, doc_ids)
    by_id = {c.chunk_id: c for c in chunks}
    facts = [c for c in answer.claims if c.kind == "fact"]
    assert facts
    for claim in facts:
        assert len(claim.citations) == 1
        chunk = by_id[answer.citation(claim.citations[0]).chunk_id]
        assert strip_markers(claim.text) in chunk.text
        assert claim.text.endswith(f"[{claim.citations[0]}]")
        assert all(number in claim.text for number in claim.numbers)


@pytest.mark.parametrize("query, doc_ids", SCENARIOS, ids=IDS)
def test_citation_records_come_from_chunk_metadata(compose, query, doc_ids):
    answer, chunks = compose(query, doc_ids)
    by_id = {c.chunk_id: c for c in chunks}
    for citation in answer.citations:
        chunk = by_id[citation.chunk_id]
        assert citation.source == chunk.metadata["source"]
        assert citation.title == chunk.title
        assert citation.status == chunk.metadata["status"]
        assert citation.updated_at and citation.published_at
        assert citation.snippet and citation.snippet in chunk.text and len(citation.snippet) <= 240


# --- comparisons ---------------------------------------------------------------------------------

def test_a320_vs_b737_fuel_burn_is_lower_with_both_values_and_sources(compose):
    answer, _ = compose(*FUEL_EN)
    [relation] = relations(answer)
    assert relation.relation == "lower"
    assert relation.values["A320"]["value"] == 2290 and relation.values["B737"]["value"] == 2360
    assert relation.values["A320"]["unit"] == relation.values["B737"]["unit"] == "kg/h"
    # the 2023 report's own "In 2023, ..." sentences beat the manuals' figures, dated by their titles only
    for text in ("A320 (A320neo)", "2,290", "B737 (737 MAX 8)", "2,360", "Aurora Air Fleet Performance Office",
                 "lower than"):
        assert text in relation.text
    assert relation.citations == [1] and answer.text.startswith(relation.text)
    assert {c.entity for c in answer.claims if c.kind == "fact"} == {"A320", "B737"}
    assert "2,350" not in answer.text  # the superseded 2021 figure is not used


def test_chinese_comparison_uses_chinese_sentences_and_glue(compose):
    answer, _ = compose(*FUEL_ZH)
    assert answer.language == "zh"
    [relation] = relations(answer)
    assert relation.relation == "lower" and "低于" in relation.text and "的数值" in relation.text
    facts = [c for c in answer.claims if c.kind == "fact"]
    assert facts and all(sentence_language(c.text) == "zh" for c in facts)
    assert {c.entity for c in facts} == {"A320neo", "737 MAX 8"}


@pytest.mark.parametrize("query, expected", [
    ("Compare the A320neo and 737 MAX 8 manuals: which was effective earlier?", "earlier"),
    ("Compare the 737 MAX 8 and A320neo manuals: which was effective later?", "later"),
])
def test_dates_give_earlier_or_later(compose, query, expected):
    answer, _ = compose(query, DATES[1])
    [relation] = relations(answer)
    assert relation.relation == expected
    assert "2023-04-01" in relation.text and "2023-06-01" in relation.text
    assert relation.values[next(iter(relation.values))]["unit"] == "date"


def test_missing_side_gets_a_notice_and_no_relation(compose):
    answer, _ = compose(FUEL_EN[0], ["manuals-a320neo-perf-2023"])
    assert not relations(answer)
    [notice] = notices(answer)
    assert "B737" in notice.text and "nothing" in notice.text and notice.citations == []
    assert all(c.entity == "A320" for c in answer.claims if c.kind == "fact")


def test_missing_side_notice_in_chinese(compose):
    answer, _ = compose(FUEL_ZH[0], ["manuals-a320neo-perf-2023"])
    [notice] = notices(answer)
    assert "737 MAX 8" in notice.text and "没有" in notice.text


@pytest.mark.parametrize("texts, key", [
    (("The take-off weight of the X100 is 2,000 kg.",
      "The take-off weight of the Y200 is 45 % below older models."), "units"),
    (("The take-off weight of the X100 is 2,000 kg.",
      "The take-off weight of the Y200 is noticeably below the older models."), "no figure"),
], ids=["units-differ", "one-side-no-number"])
def test_no_relation_without_comparable_values(composer, perceive, synthetic, texts, key):
    evidence = [synthetic(texts[0], doc_id="x100"), synthetic(texts[1], doc_id="y200", score=0.9)]
    answer = composer.run(perceive("Compare the weight of the X100 and the Y200"), evidence)
    assert not relations(answer)
    [notice] = notices(answer)
    assert "cannot be compared" in notice.text
    assert key in notice.text or key == "no figure" and "no figure" in notice.text
    assert len([c for c in answer.claims if c.kind == "fact"]) == 2


def test_relation_needs_the_asked_measure_not_any_number(composer, perceive, synthetic):
    evidence = [synthetic("The X100 has 180 seats. The take-off weight of the X100 is 2,000 kg.", doc_id="x100"),
                synthetic("The Y200 has 178 seats. The take-off weight of the Y200 is 2,400 kg.", doc_id="y200")]
    answer = composer.run(perceive("Compare the weight of the X100 and the Y200"), evidence)
    [relation] = relations(answer)
    assert relation.relation == "lower" and "2,000 kg" in relation.text and "seats" not in relation.text


def test_same_values_give_same(composer, perceive, synthetic):
    evidence = [synthetic("The take-off weight of the X100 is 2,000 kg.", doc_id="x100", source="Maker X"),
                synthetic("The take-off weight of the Y200 is 2,000 kg.", doc_id="y200", source="Maker Y")]
    answer = composer.run(perceive("Compare the weight of the X100 and the Y200"), evidence)
    [relation] = relations(answer)
    assert relation.relation == "same" and "the same as" in relation.text
    assert "Maker X" in relation.text and "Maker Y" in relation.text


# --- sub-questions, language, refusals ----------------------------------------------------------

@pytest.mark.parametrize("query, doc_ids, actor, step", [
    (*INVOICE_EN, "Contract Management",
     r"places the invoice on payment hold|routes the invoice|within 5 working days"),
    (*INVOICE_ZH, "合同管理组", r"暂停付款|随后|5 个工作日"),
], ids=["en", "zh"])
def test_each_sub_question_gets_sentences(compose, query, doc_ids, actor, step):
    answer, _ = compose(query, doc_ids)
    sections = answer.text.split("\n\n")
    assert len(sections) == 2 and all(s.strip() for s in sections)
    assert actor in answer.text and re.search(step, answer.text)
    assert "Vendor Settlement Office" not in answer.text and "供应商结算办公室" not in answer.text


def test_chinese_query_prefers_chinese_sentences(compose):
    answer, _ = compose("故障代码 E4027 是什么触发的", ["manuals-fault-e4027", "manuals-a320-maintenance-summary-zh"])
    facts = [c for c in answer.claims if c.kind == "fact"]
    assert facts and all(sentence_language(c.text) == "zh" for c in facts)


@pytest.mark.parametrize("query, expected", [
    ("What is the range of the A321XLR?", "The knowledge base does not say"),
    ("A321XLR 的航程是多少？", "知识库中没有找到"),
])
@pytest.mark.parametrize("doc_ids", [[], ["manuals-a320neo-perf-2023"]], ids=["no-evidence", "unrelated-evidence"])
def test_no_supporting_evidence_gives_a_plain_refusal(compose, query, expected, doc_ids):
    answer, _ = compose(query, doc_ids)
    assert answer.text.startswith(expected)
    assert answer.claims == [] and answer.citations == []
    assert answer.composer == "extractive"


# --- determinism and retries -----------------------------------------------------------------------

@pytest.mark.parametrize("query, doc_ids", SCENARIOS, ids=IDS)
def test_same_input_same_output(perceive, evidence, query, doc_ids):
    perception = perceive(query)
    first = ExtractiveComposer().run(perception, evidence(*doc_ids)).to_dict()
    second = ExtractiveComposer().run(perception, evidence(*doc_ids)).to_dict()
    assert first == second


@pytest.mark.parametrize("query, doc_ids", [E4027, INVOICE_EN, FUEL_EN], ids=["e4027", "invoice-en", "fuel-en"])
@pytest.mark.parametrize("with_marker", [True, False], ids=["claim-text", "plain-sentence"])
def test_excluded_claims_are_never_picked_again(compose, query, doc_ids, with_marker):
    first, _ = compose(query, doc_ids)
    rejected = [c.text for c in first.claims if c.kind == "fact"][0]
    excluded = rejected if with_marker else strip_markers(rejected)
    second, _ = compose(query, doc_ids, excluded=[excluded])
    assert strip_markers(rejected) not in [strip_markers(c.text) for c in second.claims]
    assert strip_markers(rejected) not in second.text


@pytest.mark.parametrize("kwargs, message", [
    ({"max_sentences": 0}, "max_sentences must be an integer >= 1"),
    ({"max_per_entity": "2"}, "max_per_entity must be an integer >= 1"),
    ({"snippet_chars": 5}, "snippet_chars must be an integer >= 20"),
    ({"min_ratio": 1.5}, "min_ratio must be between 0 and 1"),
])
def test_bad_settings_are_refused_with_the_valid_range(kwargs, message):
    with pytest.raises(ValueError, match=message):
        ExtractiveComposer(**kwargs)


def test_snippet_is_cut_at_snippet_chars(perceive, evidence):
    answer = ExtractiveComposer(snippet_chars=30).run(perceive(E4027[0]), evidence(*E4027[1]))
    assert answer.citations and all(len(c.snippet) <= 30 for c in answer.citations)


SCRAPE_DOC = ("The scrape interval sets how often targets are scraped.\n"
              "```yaml\nglobal:\n  scrape_interval: 15s\n```\n"
              "The default scrape interval is one minute when the setting is left out.")


def test_a_configuration_question_quotes_the_code_block_fenced_and_cited(composer, perceive, synthetic):
    chunk = synthetic(SCRAPE_DOC, doc_id="scrape", title="Configuration")
    answer = composer.run(perceive("How do I configure the scrape interval in YAML?"), [chunk])
    code = [c for c in answer.claims if c.text.startswith("```")]
    # the fences on lines of their own, the marker after the closing one (issue 34: "``` [1]" closed nothing)
    assert [c.text for c in code] == ["```\nglobal:\n  scrape_interval: 15s\n```\n[1]"]
    fences = [t for t in MarkdownIt("commonmark").parse(answer.text) if t.type == "fence"]
    assert [t.content for t in fences] == ["global:\n  scrape_interval: 15s\n"]
    assert any("code blocks may be quoted" in n for n in answer.notes)


def test_other_questions_never_quote_code(composer, perceive, synthetic):
    chunk = synthetic(SCRAPE_DOC, doc_id="scrape", title="Configuration")
    answer = composer.run(perceive("What is the default scrape interval?"), [chunk])
    assert "scrape_interval: 15s" not in answer.text and "```" not in answer.text
    assert "one minute" in answer.text


def test_the_sentence_that_fills_the_asked_for_slot_leads_even_without_the_entity(composer, perceive, synthetic):
    """Issue 11: a question on the length of a benefit was answered with sentences naming the
    company although the chunk holding the answer ranked first; the answer said "it", not the name."""
    answer_chunk = synthetic("E4027 requires a borescope inspection of the engine. The inspection result stays "
                             "valid for 30 days after it is signed off.", doc_id="inspections", title="Inspections")
    named = synthetic("E4027 was logged twice on AU-NEC in March during the harness check.", doc_id="log",
                      title="Fleet log", score=0.9)
    answer = composer.run(perceive("How long does the E4027 inspection result stay valid?"), [answer_chunk, named])
    assert answer.claims[0].text.startswith("The inspection result stays valid for 30 days"), answer.text


def test_a_numbered_name_is_found_as_documents_write_it():
    """Found on the PEPs: "When was Python 3.12.0 released?" got no answer at all: the release
    schedule writes "3.12.0 final: Monday, 2023-10-02" under a title naming Python 3.12, and the
    composer kept only sentences whose chunk writes "Python 3.12.0" as such."""
    from orchestration.compose.extractive import ExtractiveComposer
    from orchestration.retrieval.scored import ScoredChunk
    from perception import PerceptionAgent

    chunk = ScoredChunk(chunk_id="pep-0693#3", kb="peps", text="Actual: 3.12.0 final: Monday, 2023-10-02. "
                        "3.12.1: Thursday, 2023-12-07.", metadata={}, score=1.0,
                        title="PEP 693 – Python 3.12 Release Schedule")
    from dataclasses import replace

    from perception.types import Entity

    perception = PerceptionAgent(use_ner=False).run("When was Python 3.12.0 released?", "2026-08-22")
    # as the service's Perception (with NER) reads it: spaCy tags "Python 3.12.0" as an ORG
    perception = replace(perception, entities=[Entity("Python 3.12.0", "ORG", (9, 22), "ner", "Python 3.12.0")])
    answer = ExtractiveComposer().run(perception, [chunk])
    assert answer.claims and "2023-10-02" in answer.text


def test_the_sentence_stating_the_head_leads_over_one_whose_chunk_does():
    """RGB: "Who is the new CEO of Vanguard?" quoted "John C. Bogle sought to create ..." (a new
    name; "CEO" only elsewhere in its chunk) over "New Vanguard CEO Tim Buckley: ...", which
    states the head itself, from a chunk ranked far lower."""
    from orchestration.compose.extractive import ExtractiveComposer
    from orchestration.retrieval.scored import ScoredChunk
    from perception import PerceptionAgent

    founder = ScoredChunk(chunk_id="c1", kb="kb", text="When founding Vanguard, John C. Bogle sought to create a "
                          "new and better way. Bogle stepped down as CEO in 1996.", metadata={}, score=1.0, title=" ")
    buckley = ScoredChunk(chunk_id="c2", kb="kb", text="New Vanguard CEO Tim Buckley spoke at the conference.",
                          metadata={}, score=0.05, title=" ")
    perception = PerceptionAgent(use_ner=False).run("Who is the new CEO of Vanguard?", "2023-12-31")
    answer = ExtractiveComposer().run(perception, [founder, buckley])
    assert answer.claims[0].text.startswith("New Vanguard CEO Tim Buckley")


def test_a_status_line_answers_whether_a_proposal_was_adopted():
    """PEPs: "Is calendar versioning going to be adopted for Python?" quoted PEP 602's "we adopted
    an annual release cycle ..." and never PEP 2026's "Status: Rejected.": the status line shares
    no word with the question, only the meaning ("adopted" ~ status, same_terms)."""
    from orchestration.compose.extractive import ExtractiveComposer
    from orchestration.retrieval.scored import ScoredChunk
    from perception import PerceptionAgent

    pep602 = ScoredChunk(chunk_id="pep-0602#3", kb="peps", text="In 2019, we adopted an annual release cycle with "
                         "PEP 602, which opened the door for calendar versioning.", metadata={}, score=1.0,
                         title="PEP 602 – Annual Release Cycle for Python")
    pep2026 = ScoredChunk(chunk_id="pep-2026#0", kb="peps", text="PEP 2026 – Author: Hugo van Kemenade.\n\n"
                          "PEP 2026 – Status: Rejected.", metadata={}, score=0.9,
                          title="PEP 2026 – Calendar versioning for Python")
    perception = PerceptionAgent(use_ner=False).run("Is calendar versioning going to be adopted for Python?",
                                                    "2026-08-22")
    answer = ExtractiveComposer().run(perception, [pep602, pep2026])
    assert "PEP 2026 – Status: Rejected." in answer.text


def test_a_relative_who_does_not_make_a_sentence_a_question(composer, perceive, synthetic):
    """PEPs: "What is a PEP-Delegate?" never quoted "The term "PEP-Delegate" is used ... for the
    PEP's designated decision maker, who is recorded in ...": its "who" halved it as if it asked
    a question, and "The term "BDFL-Delegate" is a deprecated alias for PEP-Delegate" led."""
    evidence = [synthetic('The term "PEP-Delegate" is used under the Steering Council governance model for the '
                          "PEP's designated decision maker, who is recorded in the \"PEP-Delegate\" field in the "
                          'PEP\'s header. The term "BDFL-Delegate" is a deprecated alias for PEP-Delegate, a legacy '
                          "of the time when Python was led by a BDFL.", doc_id="pep-0001", position=15,
                          title="PEP 1 – PEP Purpose and Guidelines")]
    answer = composer.run(perceive("What is a PEP-Delegate?"), evidence)
    assert "designated decision maker" in answer.claims[0].text
    # a sentence that asks is still read as one
    from orchestration.compose.scoring import _traits
    assert _traits("Who decides on a PEP?", "en")[0] and _traits("What is decided here depends on it.", "en")[0]
    assert not _traits("The decision maker, who is recorded in the header.", "en")[0]


def test_who_proposed_x_is_answered_by_the_author_field_of_xs_document(composer, perceive, synthetic):
    """PEPs: "Who proposed the steering council governance model?" was answered "This PEP proposes
    a model of Python governance based around a steering council." (names no one); the same
    chunk's header line names its authors."""
    title = "PEP 8016 – The Steering Council Model"
    evidence = [synthetic("PEP 8016 – Author: Nathaniel J. Smith, Donald Stufft. PEP 8016 – Status: Accepted.\n"
                          "This PEP proposes a model of Python governance based around a steering council.",
                          doc_id="pep-8016", title=title),
                synthetic("PEP 8013 – Author: Steve Dower.\nThis PEP proposes a new model of Python governance "
                          "based on a Council of Auditors.", doc_id="pep-8013", score=0.7,
                          title="PEP 8013 – The External Council Governance Model")]
    answer = composer.run(perceive("Who proposed the steering council governance model?"), evidence)
    assert answer.claims[0].text.startswith("PEP 8016 – Author: Nathaniel J. Smith, Donald Stufft.")
    # the field answers who wrote a document, not what it is about
    about = composer.run(perceive("What does the steering council model propose?"), evidence)
    assert "Author" not in about.claims[0].text


def test_a_numbered_document_is_answered_from_that_document_first(composer, perceive, synthetic):
    """PEPs: "What did PEP 563 propose?" was answered from PEP 749 ("This new PEP proposes several
    changes ..."), which mentions PEP 563: the chunks of the document the number names come first."""
    evidence = [synthetic("PEP 749 supplements PEP 649 and replaces PEP 563. This new PEP proposes several changes "
                          "and additions to the specification.", doc_id="pep-0749", position=2,
                          title="PEP 749 – Implementing PEP 649"),
                synthetic("This PEP proposes changing function annotations so that they are not evaluated at "
                          "function definition time.", doc_id="pep-0563", position=1, score=0.6,
                          title="PEP 563 – Postponed Evaluation of Annotations")]
    answer = composer.run(perceive("What did PEP 563 propose?"), evidence)
    assert [c.chunk_id for c in answer.citations] == ["pep-0563#1"]
    assert answer.claims[0].text.startswith("This PEP proposes changing function annotations")


def test_a_comparison_without_values_leads_with_the_sentence_relating_the_sides(composer, perceive, synthetic):
    """PEPs: "What is the difference between PEP 622 and PEP 634?" quoted a sentence about each
    PEP and never PEP 634's "It replaces PEP 622, which is hereby split in three parts": a
    sentence naming both sides (one through its document's title) was kept from either side."""
    evidence = [synthetic("PEP 622 proposed syntax for pattern matching, which received detailed discussion.",
                          doc_id="pep-0636", title="PEP 636 – Structural Pattern Matching: Tutorial"),
                synthetic("This PEP provides the technical specification for the match statement. It replaces "
                          "PEP 622, which is hereby split in three parts.", doc_id="pep-0634", score=0.8,
                          title="PEP 634 – Structural Pattern Matching: Specification")]
    answer = composer.run(perceive("What is the difference between PEP 622 and PEP 634?"), evidence)
    assert answer.claims[0].text.startswith("It replaces PEP 622, which is hereby split in three parts.")
    assert answer.claims[0].citations == [answer.citations[0].n] and answer.citations[0].chunk_id == "pep-0634#0"


def test_a_question_asking_for_syntax_leads_with_a_sentence_that_writes_code(composer, perceive, synthetic):
    """PEPs: "What is the new syntax for union types?" quoted "The new union syntax should be
    accepted for function, variable and parameter annotations." (on topic, shows no syntax) over
    "... it is possible to write int | str instead of Union[int, str].", the answer."""
    from orchestration.focus import writes_code

    evidence = [synthetic("The new union syntax should be accepted for function, variable and parameter annotations. "
                          "The existing typing.Union and | syntax should be equivalent.",
                          doc_id="pep-0604", position=1),
                synthetic("With this new operator, it is possible to write int | str instead of Union[int, str].",
                          doc_id="pep-0604", position=0, score=0.8)]
    answer = composer.run(perceive("What is the new syntax for union types?"), evidence)
    assert answer.claims[0].text.startswith("With this new operator, it is possible to write int | str")
    assert writes_code("x := 5 binds x") and writes_code('print(x, sep="")') and writes_code("List[int]")
    # an operator named between English words, or a name in parentheses, is no code
    assert not writes_code("The existing typing.Union and | syntax should be equivalent.")
    assert not writes_code("The A320 (new) burns less fuel.")


def test_a_question_about_a_superseded_document_is_answered_by_its_history(composer, perceive, synthetic):
    """PEPs: "Did postponed evaluation of annotations become the default behaviour?" ranked PEP
    563's own "The features proposed in this PEP never became the default behaviour, and have been
    replaced ..." at a seventh of its score: halved for the superseded status and cut to 0.3 as a
    "replaced" (historical) figure. A question naming the document asks for exactly that."""
    evidence = [synthetic("Since PEP 649 was written, Python 3.12 gained several features that also use deferred "
                          "evaluation, similar to the behavior this PEP proposes for annotations.",
                          doc_id="pep-0749", title="PEP 749 – Implementing PEP 649"),
                synthetic("The features proposed in this PEP never became the default behaviour, and have been "
                          "replaced with deferred evaluation of annotations.", doc_id="pep-0563", score=0.95,
                          title="PEP 563 – Postponed Evaluation of Annotations", status="superseded")]
    answer = composer.run(perceive("Did postponed evaluation of annotations become the default behaviour?"), evidence)
    verdict, lead = answer.claims[:2]
    assert lead.text.startswith("The features proposed in this PEP never became the default behaviour")
    assert verdict.text == "No." and verdict.kind == "verdict"  # "never became": no
    # asked about something else, the superseded document's "replaced" sentence stays behind
    other = composer.run(perceive("How are annotations evaluated by default?"), evidence)
    assert not other.claims[0].text.startswith("The features proposed in this PEP never became")


# --- yes/no questions: the verdict of the deciding unit (issue 24, item 3) -------------------

SCHEDULING = ("Restic does not have a built-in way of scheduling backups, as it's a tool that runs when "
              "executed rather than a daemon. There are plenty of different ways to schedule backup runs on "
              "various different platforms, e.g. systemd and cron on Linux/BSD and Task Scheduler in Windows.")
RESUME_FAQ = ("Will restic resume an interrupted backup?\n\n"
              "Yes, restic will resume interrupted backups when they are re-run.\n\n"
              "When backing up, restic periodically writes index files to keep a record of the uploaded data.")


def test_a_yes_no_question_is_answered_no_by_the_unit_that_negates_it(composer, perceive, synthetic):
    chunk = synthetic(SCHEDULING, doc_id="backup", title="Backing up", section="Scheduling backups")
    answer = composer.run(perceive("Does restic come with a built-in scheduler for running backups?"), [chunk])
    assert answer.text.startswith("No. Restic does not have a built-in way of scheduling backups")
    verdict = answer.claims[0]
    assert verdict.kind == "verdict" and verdict.citations == answer.claims[1].citations == [1]
    assert "negated by 'not'" in answer.decisions["verdict"]


def test_a_yes_no_question_is_answered_yes_by_the_unit_that_affirms_it(composer, perceive, synthetic):
    chunk = synthetic("Restic encrypts all data with AES-256 before it leaves the machine.", doc_id="design",
                      title="Design")
    answer = composer.run(perceive("Does restic encrypt the data before it leaves the machine?"), [chunk])
    assert answer.text.startswith("Yes. Restic encrypts all data")
    assert answer.decisions["verdict"].startswith("yes: the lead unit states it (affirmed")


def test_a_unit_on_the_topic_gives_no_verdict(composer, perceive, synthetic):
    """A sentence that says less than the question asks is evidence, not a yes or a no."""
    chunk = synthetic("Google Cloud Storage is not the same service as Google Drive; see other-services for "
                      "using the rclone backend.", doc_id="repos", title="Preparing a new repository")
    answer = composer.run(perceive("Can restic store backups on Google Drive with a service account key?"), [chunk])
    assert answer.claims and not any(c.kind == "verdict" for c in answer.claims)
    assert not answer.text.startswith(("Yes.", "No."))
    assert "verdict" not in answer.decisions


def test_an_faq_question_never_leads_the_answer(composer, perceive, synthetic):
    """An FAQ's heading repeats the question; the sentence under it answers (and says 'Yes' itself,
    so no verdict word is added)."""
    chunk = synthetic(RESUME_FAQ, doc_id="faq", title="FAQ")
    answer = composer.run(perceive("Will restic resume a backup that was interrupted?"), [chunk])
    assert answer.text.startswith("Yes, restic will resume interrupted backups when they are re-run. [1]")
    assert not any(c.kind == "verdict" for c in answer.claims)


def test_a_chinese_yes_no_question_gets_its_verdict_in_chinese(composer, perceive, synthetic):
    chunk = synthetic("restic 没有内置的备份调度功能，需要使用 cron 或 systemd 定时运行。", doc_id="zh", title="备份")
    answer = composer.run(perceive("restic 是否有内置的备份调度功能？"), [chunk])
    assert answer.text.startswith("否。 restic 没有内置的备份调度功能")
    assert answer.claims[0].kind == "verdict"


def test_a_lead_that_says_it_is_introduced_by_its_heading(composer, perceive, synthetic):
    """Issue 24 item 3: the lead brings 'the heading's subject for a unit that says "It ..."'; a
    heading the chunk does not write is not added (a claim must be checkable), nor is one before
    an expletive "It is possible to ..."."""
    text = "## Append-only mode\n\nIt prevents clients from deleting or overwriting data in the repository."
    chunk = synthetic(text, doc_id="rest", title="REST server", section="Append-only mode")
    answer = composer.run(perceive("What does append-only mode prevent clients from doing?"), [chunk])
    lead = answer.claims[0].text
    assert lead.startswith("Append-only mode: It prevents clients from deleting"), lead
    assert not composer.run(perceive("What does the REST server prevent clients from doing?"),
                            [synthetic("It is possible to prevent clients from deleting data.", doc_id="x",
                                       title="REST server")]).claims[0].text.startswith("REST server:")


@pytest.mark.parametrize("query, verdict", [
    ("Does the A320neo burn less fuel per seat than the 737 MAX 8 in 2023?", "Yes."),
    ("Does the 737 MAX 8 burn less fuel per seat than the A320neo in 2023?", "No."),
    ("A320neo 的每座油耗比 737 MAX 8 低吗？", "是。"),
])
def test_a_yes_no_comparison_is_answered_by_the_relation_found(compose, query, verdict):
    """"Does A burn less fuel per seat than B?" got the relation ("The A320neo figure (12.7 kg ...)
    is lower than the 737 MAX 8 figure (13.3 kg ...)") but no yes or no."""
    answer, _ = compose(query, FUEL_ZH[1] if "油耗" in query else FUEL_EN[1])
    first, second = answer.claims[:2]
    assert (first.kind, first.text) == ("verdict", verdict), answer.text
    assert second.kind == "relation" and first.citations == second.citations


def test_a_comparison_whose_figures_do_not_say_what_is_asked_gets_no_verdict(compose):
    """Fuel-burn figures do not say which aircraft is "more efficient": the relation stands alone."""
    answer, _ = compose("Is the A320neo more efficient than the 737 MAX 8?", FUEL_EN[1])
    assert any(c.kind == "relation" for c in answer.claims), answer.text  # a relation, but no verdict
    assert not any(c.kind == "verdict" for c in answer.claims), answer.text


@pytest.mark.parametrize("query, text", [
    # Poetry's docs: the answer is "no", said without a negation
    ("Is poetry shell still a built-in command?", "The shell command was moved to a plugin: poetry-plugin-shell."),
    ("If I add a primary package source to my project, does Poetry still look packages up on PyPI?",
     "You can alter this behavior and exclusively look up packages only from the configured package sources by "
     "adding at least one primary source."),
])
def test_a_lead_that_says_the_thing_changed_gets_no_yes(composer, perceive, synthetic, query, text):
    """With the answer model, these leads got "Yes.": no negation, but "moved" and "only" say no."""
    answer = composer.run(perceive(query), [synthetic(text, doc_id="poetry", title="Poetry")])
    assert answer.claims and not any(c.kind == "verdict" for c in answer.claims), answer.text


def test_an_faq_heading_does_not_introduce_a_lead(composer, perceive, synthetic):
    """An FAQ heading is a question; it names no subject for "It ..." (r08 with the model read
    "Will restic resume an interrupted backup?: It does not matter ...")."""
    chunk = synthetic("## Will restic resume an interrupted backup?\n\nIt does not matter if the backup was "
                      "interrupted by the user or by a power loss.", doc_id="faq", title="FAQ")
    answer = composer.run(perceive("Does it matter how a backup was interrupted?"), [chunk])
    assert any(c.text.startswith("It does not matter") for c in answer.claims), answer.text
    assert not any(c.text.startswith("Will restic resume an interrupted backup?:") for c in answer.claims)


def test_the_question_s_rare_term_decides_over_terms_every_unit_writes(composer, perceive, synthetic):
    """A term most candidate units write tells them apart no better than a stopword does: over
    restic's design pages "restic", "repository" and "data" are everywhere, and the unit that
    answers "Which cipher ...?" is the one with "cipher" in it (before, the unit with the most
    common terms led: "The data in a restic repository is deduplicated.")."""
    design = synthetic("Restic stores the data of a repository in pack files. Restic reads the repository "
                       "password from a file. The data in a restic repository is deduplicated.",
                       doc_id="design", title="Design")
    crypto = synthetic("Encryption uses AES-256 as its cipher, in counter mode.", doc_id="crypto",
                       title="Design", score=0.9)
    answer = composer.run(perceive("Which cipher does restic use for the repository data?"), [design, crypto])
    assert answer.claims[0].text.startswith("Encryption uses AES-256 as its cipher"), answer.text
    weights = answer.term_weights
    assert weights["cipher"] > weights["restic"] and weights["cipher"] > weights["data"], weights


def test_the_question_s_own_words_do_not_choose_the_unit(composer, perceive, synthetic):
    """Question words weigh what comparison cues weigh (0.3): "does" and "currently" say how it is
    asked, not what to find. Weighed by rarity at full weight, a unit that happens to write them
    ("Currently restic does ...") outranked the one naming the asked cipher (the PEPs' answers lost their
    fact to such units: answered with the fact 0.764 -> 0.836 with this)."""
    design = synthetic("Currently restic does read the repository password first. Restic stores data in "
                       "pack files.", doc_id="design", title="Design")
    crypto = synthetic("Restic encrypts with the AES-256 cipher.", doc_id="crypto", title="Design", score=0.9)
    answer = composer.run(perceive("Which cipher does restic currently use?"), [design, crypto])
    assert answer.claims[0].text.startswith("Restic encrypts with the AES-256 cipher"), answer.text
    assert answer.term_weights["doe"] < answer.term_weights["cipher"], answer.term_weights


def test_the_best_sentence_leads_when_none_states_the_asked_kind_of_fact(composer, perceive, synthetic):
    """SQuAD's answers are one paragraph each: with no sentence filling the asked-for slot, the lead
    was the chosen sentence first in reading order, the paragraph's opening, wherever the best one
    stood (SQuAD dev: "What type of radar was used to classify trees into four categories?" led
    with "In 2006 Tatiana Kuplich organized the trees ... into four categories"). The best sentence
    leads; the others follow in reading order."""
    survey = synthetic("In 2019 the survey team sorted the reef corals into three groups by their health. "
                       "The team used underwater drones fitted with sonar to tell the coral groups apart.")
    answer = composer.run(perceive("What did the survey team use to tell the coral groups apart?"), [survey])
    assert [c.text.split(" [")[0] for c in answer.claims] == [
        "The team used underwater drones fitted with sonar to tell the coral groups apart.",
        "In 2019 the survey team sorted the reef corals into three groups by their health."], answer.text
