"""What the reader (the cross-encoder) reads of a unit: the unit, where it stands, what comes before
it (orchestration/compose/scorer/cross.py `reading_of`, issue 36 item 3)."""

from __future__ import annotations

from orchestration.compose.scorer.cross import BEFORE_CHARS, UNIT_CHARS, reading_of
from orchestration.compose.sentences import chunk_candidates

PAGE = ("## Limits\n\nThe server reads requests. The default timeout is 30 seconds.\n\n"
        "Options you can set:\n\n- workers: how many processes serve requests\n"
        "- backlog: queued connections before refusal\n")


def _readings(synthetic, text: str = PAGE) -> dict[str, str]:
    chunk = synthetic(text, title="Server guide")
    return {c.text: reading_of(c) for c in chunk_candidates(chunk, 0)}


def test_a_sentence_is_read_first_then_its_title_and_headings_then_the_sentence_before_it(synthetic):
    readings = _readings(synthetic)
    assert readings["The default timeout is 30 seconds."] == \
        "The default timeout is 30 seconds. | Server guide > Limits | The server reads requests."


def test_a_list_item_is_read_with_the_sentence_introducing_its_list_not_the_item_before_it(synthetic):
    readings = _readings(synthetic)
    assert readings["backlog: queued connections before refusal"].endswith("| Options you can set:")


def test_the_first_unit_of_a_chunk_has_no_text_before_it_and_no_dangling_separator(synthetic):
    readings = _readings(synthetic)
    assert readings["The server reads requests."] == "The server reads requests. | Server guide > Limits"


def test_a_long_unit_keeps_its_start_and_its_context_keeps_the_end_nearest_the_unit(synthetic):
    before = "Preamble " + "word " * 80 + "closing words."
    unit = "The limit is " + "very " * 100 + "high."
    readings = _readings(synthetic, f"{before} {unit}")
    reading = next(r for text, r in readings.items() if text.startswith("The limit is"))
    head, _, rest = reading.partition(" | ")
    assert head == unit[:UNIT_CHARS]
    assert rest.endswith("closing words.") and len(rest.split(" | ")[-1]) <= BEFORE_CHARS
