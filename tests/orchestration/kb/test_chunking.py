from itertools import pairwise

from orchestration.kb.chunking import chunk_text, split_sentences, text_size


def _doc(n_sentences=80):
    return " ".join(f"Sentence {i} says the pump pressure was {i * 10} kPa at test point {i}."
                    for i in range(n_sentences))


def test_chunks_are_near_the_target_size_and_end_on_sentence_boundaries():
    chunks = chunk_text(_doc(), chunk_words=100, overlap_words=20)
    assert len(chunks) > 5
    for chunk in chunks:
        assert text_size(chunk.text) <= 100
        assert chunk.text.endswith(".")
    assert all(text_size(c.text) >= 60 for c in chunks[:-1])


def test_consecutive_chunks_overlap_by_whole_sentences():
    chunks = chunk_text(_doc(), chunk_words=100, overlap_words=20)
    for first, second in pairwise(chunks):
        last_sentence = split_sentences(first.text)[-1]
        assert second.text.startswith(last_sentence)


def test_every_sentence_is_in_some_chunk():
    text = _doc(40)
    chunks = chunk_text(text, chunk_words=80, overlap_words=10)
    joined = " ".join(c.text for c in chunks)
    for sentence in split_sentences(text):
        assert sentence in joined


def test_abbreviations_do_not_split_sentences():
    assert split_sentences("Burn was 2.5 t/h, e.g. at cruise. Dr. Li agreed.") == [
        "Burn was 2.5 t/h, e.g. at cruise.", "Dr. Li agreed."]


def test_a_middle_initial_does_not_end_a_sentence():
    """Found on the PEPs: "PEP 557 – Author: Eric V. Smith." was quoted as "... Author: Eric V."."""
    assert split_sentences("PEP 557 – Author: Eric V. Smith. Data classes are new.") == [
        "PEP 557 – Author: Eric V. Smith.", "Data classes are new."]
    assert split_sentences("It was signed by J. R. Smith. Then it shipped.") == [
        "It was signed by J. R. Smith.", "Then it shipped."]


def test_a_short_parenthetical_after_a_sentence_stays_with_it_and_closing_marks_stay_too():
    """httpx's resource limits: "max_connections, maximum number of allowable connections, or None
    for no limits. (Default 100)" was two units, the second saying nothing of what it was the default
    of; a sentence's closing quote or bracket was cut off ('He said "stop.')."""
    assert split_sentences("max_connections, maximum number of allowable connections, or None for no limits. "
                           "(Default 100)") == [
        "max_connections, maximum number of allowable connections, or None for no limits. (Default 100)"]
    assert split_sentences('It works. (See the FAQ.) He said "stop." Then it stopped.') == [
        "It works. (See the FAQ.)", 'He said "stop."', "Then it stopped."]
    long_aside = "(This is an aside of many words that is a sentence in its own right.)"
    assert split_sentences(f"It works. {long_aside} Then it stopped.") == ["It works.", long_aside, "Then it stopped."]
    assert split_sentences("(Default 100). It works.") == ["(Default 100).", "It works."]  # nothing before it


def test_chinese_sentences_split_on_full_stops_and_count_half_a_word_per_character():
    text = "液压系统压力测试已完成。结论为合格！下一步归档。"
    assert split_sentences(text) == ["液压系统压力测试已完成。", "结论为合格！", "下一步归档。"]
    assert text_size("液压系统") == 2


def test_markdown_headings_become_sections():
    chunks = chunk_text("# Specs\n\nThe range is 6,300 km.\n\n## Faults\n\n" + _doc(30), chunk_words=60,
                        overlap_words=0)
    assert chunks[0].section == "Specs"
    assert chunks[-1].section == "Faults"


def test_an_overlong_sentence_is_cut_rather_than_dropped():
    text = " ".join(["word"] * 500) + "."
    chunks = chunk_text(text, chunk_words=200, overlap_words=0)
    assert sum(len(c.text.split()) for c in chunks) == 500


def test_empty_text_gives_no_chunks():
    assert chunk_text("   \n\n ") == []
