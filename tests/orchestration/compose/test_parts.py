"""The composer's parts on their own: measures, sentences, sub-questions, sides, citations."""

from __future__ import annotations

import pytest

from core.reading.dates import stated_dates
from core.reading.measures import sentence_measures
from core.reading.quantities import stated_quantities
from orchestration.compose.citations import CitationBook
from orchestration.compose.comparison import comparison_sides
from orchestration.compose.scoring import Selection
from orchestration.compose.sentences import chunk_candidates, is_fragment, strip_glued_heading
from perception.question import question_of


@pytest.mark.parametrize("text, expected", [
    ("The LEAP-1A26 engine is rated at 120.6 kN.", ["120.6 kN"]),
    ("Test Report TR-2025-019 under FIN-POL-017 costs USD 8,900.", ["USD 8,900"]),
    ("The 737-800 burns 2,600 kg.", ["2,600 kg"]),
    ("2023 年，A320neo 每轮挡小时油耗为 2,290 公斤。", ["2,290 公斤"]),
])
def test_stated_quantities_skip_codes_and_years(text, expected):
    assert [q.text for q in stated_quantities(text)] == expected


@pytest.mark.parametrize("text, unit, written", [
    ("The average cruise fuel burn of the A320neo is 2,290 kg per block hour.", "kg/h", "2,290 kg per block hour"),
    ("In 2023, the A320neo burns 2,290 kg of fuel per block hour.", "kg/h", "2,290 kg of fuel per block hour"),
    ("The average fuel burn per seat is 12.7 kg per seat per hour.", "kg/seat/h", "12.7 kg per seat per hour"),
    ("2023 年，737 MAX 8 按 178 座计算，每座每小时油耗为 13.3 公斤。", "kg/seat/h", "每座每小时 13.3 公斤"),
    ("The figure is 12.7 kg/seat/h.", "kg/seat/h", "12.7 kg/seat/h"),
])
def test_measures_read_the_full_unit(text, unit, written):
    measure = sentence_measures(text)[-1]
    assert (measure.unit, measure.text) == (unit, written)


def test_stated_dates_keep_their_text():
    dates = stated_dates("Effective from 2023-04-01, revised March 5, 2024 and 2024年6月1日.")
    assert [(d.value.isoformat(), d.text) for d in dates] == [
        ("2023-04-01", "2023-04-01"), ("2024-03-05", "March 5, 2024"), ("2024-06-01", "2024年6月1日")]


@pytest.mark.parametrize("sentence, headings, expected", [
    ("Fuel burn The average cruise fuel burn is 2,290 kg.", (), "The average cruise fuel burn is 2,290 kg."),
    ("A320neo Manual Status of this document This revision is effective from 2023-04-01.", ("A320neo Manual",),
     "This revision is effective from 2023-04-01."),
    ("What triggers E4027 E4027 is triggered when N1 exceeds 6.0 units.", (),
     "E4027 is triggered when N1 exceeds 6.0 units."),
    ("处理流程发票金额与合同不一致时，应付会计应先将该发票设置为暂停付款。", ("处理流程",),
     "发票金额与合同不一致时，应付会计应先将该发票设置为暂停付款。"),
    ("The engine thrust is 120.6 kN in all conditions.", (),
     "The engine thrust is 120.6 kN in all conditions."),
    ("Fuel burn figures are given per block hour here.", ("Fuel burn",),
     "Fuel burn figures are given per block hour here."),
])
def test_glued_headings_are_cut_and_nothing_else(sentence, headings, expected):
    assert strip_glued_heading(sentence, headings) == expected


@pytest.mark.parametrize("text, fragment", [
    ("Range", True), ("说明", True), ("Engine thrust data", True),
    ("The planning range is 6,500 km.", False), ("暂停付款后 2 个工作日内须通知供应商。", False),
])
def test_fragments(text, fragment):
    assert is_fragment(text) is fragment


def test_candidates_are_verbatim_substrings(synthetic):
    chunk = synthetic("Manual Fuel burn The burn is 2,290 kg per block hour. "
                      "Range The range is 6,500 km (about 3,500 nm). Notes",
                      title="Manual")
    candidates = chunk_candidates(chunk, 0)
    assert [c.text for c in candidates] == ["The burn is 2,290 kg per block hour.",
                                            "The range is 6,500 km (about 3,500 nm)."]
    assert all(chunk.text[c.start:c.start + len(c.text)] == c.text for c in candidates)


@pytest.mark.parametrize("query, asks", [
    ("发票金额与合同不一致，应该找哪个部门处理，流程是什么？", ["应该找哪个部门处理", "流程是什么"]),
    ("Who handles an invoice that does not match the contract and what is the process?",
     ["Who handles an invoice that does not match the contract", "what is the process"]),
    ("How do I reset E4027? Can I just pull the breaker?", ["How do I reset E4027", "Can I just pull the breaker"]),
    ("What triggers error code E4027?", ["What triggers error code E4027?"]),
])
def test_split_questions(query, asks):
    """Perception splits the query (perception/question.py); the composer answers each part."""
    parts = question_of(query).parts or (question_of(query),)
    assert [p.ask for p in parts] == asks
    if query.startswith("发票"):
        assert all(p.text.startswith("发票金额与合同不一致") for p in parts)


@pytest.mark.parametrize("query, names, inferred", [
    ("Compare the fuel burn of the A320 and the B737 in 2023", ["A320", "B737"], []),
    ("A320neo 和 737 MAX 8 在 2023 年的油耗对比", ["A320neo", "737 MAX 8"], []),
    ("Compare the A320neo and 737 MAX 8 manuals: which was effective earlier?", ["A320neo", "737 MAX 8"], []),
])
def test_comparison_sides(perceive, query, names, inferred):
    sides = comparison_sides(perceive(query))
    assert [s.name for s in sides] == names
    assert [s.name for s in sides if s.inferred] == inferred


@pytest.mark.parametrize("text, mentioned", [
    ("The average cruise fuel burn of the A320neo is 2,290 kg.", {"A320"}),
    ("The 737 MAX 8 burns 2,360 kg per block hour.", {"B737"}),
    ("The standard cabin has 320 kg of galley weight.", set()),
])
def test_side_matching(perceive, text, mentioned):
    sides = comparison_sides(perceive("Compare the fuel burn of the A320 and the B737 in 2023"))
    assert {s.name for s in sides if s.mentioned_in(text)} == mentioned


def test_citation_book_numbers_by_first_use(synthetic):
    a, b = synthetic("Alpha one. Alpha two.", doc_id="a"), synthetic("Beta one.", doc_id="b", published_at="2020-01-01")
    book = CitationBook(snippet_chars=20)
    assert [book.cite(b, "Beta one."), book.cite(a, "Alpha two."), book.cite(b, "x")] == [1, 2, 1]
    citations = book.citations()
    assert [(c.n, c.chunk_id, c.snippet) for c in citations] == [(1, "b#0", "Beta one."), (2, "a#0", "Alpha two.")]
    assert citations[0].published_at == "2020-01-01" and citations[0].source == "Test Source"


def test_selection_refuses_duplicates_and_exclusions(synthetic):
    chunk = synthetic("The burn is 2,290 kg per block hour. The burn is 2,290 kg per block hour! "
                      "Other text is here now.")
    candidates = chunk_candidates(chunk, 0)
    for c in candidates:
        c.score = 1.0
    selection = Selection(["Other text is here now. [3]"])
    assert [c.text for c in selection.pick(candidates, 5, 0.1)] == ["The burn is 2,290 kg per block hour."]


MARKUP_CHUNK = """## Retention settings
The default retention time is fifteen days for every local storage block.
| flag | default |
|---|---|
| --storage.tsdb.retention.time | 15d |
```yaml
storage:
  tsdb:
    retention: 30d
```
<iframe width="560" height="315" src="https://example.invalid/embed/x" frameborder="0"></iframe>
![A diagram of the storage layout](storage.png)
Blocks older than the retention time are deleted during compaction, not immediately."""


def test_markup_is_never_quoted_as_a_claim(synthetic):
    """Answers quoted table rows, a config block with another value and an iframe as sentences."""
    from orchestration.compose.sentences import chunk_candidates

    candidates = chunk_candidates(synthetic(MARKUP_CHUNK), 0)
    assert [c.text for c in candidates] == [
        "The default retention time is fifteen days for every local storage block.",
        "--storage.tsdb.retention.time – default: 15d.",  # a table row, read with its header, never raw
        "Blocks older than the retention time are deleted during compaction, not immediately."]
    assert [bool(c.notes.get("table")) for c in candidates] == [False, True, False]
    assert all(MARKUP_CHUNK[c.start:c.start + len(c.text)] == c.text
               for c in candidates if not c.notes.get("table"))  # sentences are still verbatim quotes
    assert MARKUP_CHUNK[candidates[1].start:].startswith("| --storage.tsdb.retention.time | 15d |")


def test_a_table_row_is_read_with_its_column_names():
    """PEPs: "How many votes did Guido van Rossum get in the first steering council election?"
    has its answer only in PEP 8100's table (| Guido van Rossum | 45 |), which was never quoted."""
    from orchestration.compose.sentences import chunk_candidates, is_header_row, table_row_sentence

    assert table_row_sentence(["Candidate", "Votes Received"], ["Guido van Rossum", "45"]) == \
        "Guido van Rossum – Votes Received: 45."
    assert table_row_sentence(["Aircraft", "Seats", "Range (km)"], ["A320neo", "", "6,500"]) == \
        "A320neo – Range (km): 6,500."  # an empty cell says nothing
    assert table_row_sentence(["a", "b"], ["x", "y", "z"]) is None  # does not fit the header
    # a chunk that starts inside a table starts with a data row: no header, no rows read
    assert not is_header_row(["Guido van Rossum", "45"]) and is_header_row(["Candidate", "Votes Received"])
    from orchestration.retrieval.scored import ScoredChunk
    inside = "| Brett Cannon | 44 |\n| Carol Willing | 33 |\nThe vote closed on February 4."
    chunk = ScoredChunk(chunk_id="t#1", kb="t", text=inside, title="T", metadata={}, score=1.0, fused=1.0)
    assert [c.text for c in chunk_candidates(chunk, 0)] == ["The vote closed on February 4."]
