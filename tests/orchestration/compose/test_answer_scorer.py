"""The answer model: its features, its file, the composer ranking and refusing with it, and the
validation condition that reads its probability (docs/ANSWER_MODEL.md)."""

from __future__ import annotations

import datetime as dt
import json
from dataclasses import replace

import pytest
from markdown_it import MarkdownIt

from core.errors import ConfigError
from orchestration.compose.extractive import ExtractiveComposer
from orchestration.compose.scorer.features import FEATURES, INDEX, SIGNS
from orchestration.compose.scorer.model import AnswerModel, load_model, model_path
from validation import ValidationAgent

NOW = dt.date(2025, 7, 10)  # the perceive fixture's date


@pytest.fixture(scope="module")
def scored():
    composer = ExtractiveComposer(ranker="learned")
    composer.warm_up()
    return composer


def _vanguard(synthetic):
    return [synthetic("Vanguard was founded in 1975 by John C. Bogle in Valley Forge, Pennsylvania.",
                      doc_id="vanguard", position=0, score=1.0),
            synthetic("The firm's index funds track broad market indexes at low cost.", doc_id="vanguard",
                      position=1, score=0.6)]


@pytest.mark.parametrize("language", ["en", "zh"])
def test_the_shipped_model_loads_with_this_versions_features_and_a_dev_chosen_refusal(language):
    model = load_model(language)
    data = json.loads(model_path(language).read_text(encoding="utf-8"))
    assert tuple(data["features"]) == FEATURES
    assert 0 < model.threshold < 1 and 0 < model.refusal["threshold"] < 1
    assert model.about["dev"]["false_refusal"] <= model.about["max_false_refusal"] + 1e-9
    assert model.about["refusal_dev"]["false_refusal"] <= model.about["max_false_refusal"] + 1e-9
    # the constraint held: no feature that says a unit answers counts against it
    assert all(sign * weight >= 0 for sign, weight in zip(SIGNS, model.weights, strict=True))


def test_a_model_file_of_other_features_is_refused_naming_the_difference():
    data = load_model().to_dict()
    data["features"] = data["features"][:-1] + ["something_new"]
    with pytest.raises(ConfigError, match="something_new.*make answer-model"):
        AnswerModel.from_dict(data, source="test model")


def test_probability_and_contributions_follow_the_weights():
    n = len(FEATURES)
    weights = [0.0] * n
    weights[INDEX["focus_in_unit"]] = 2.0
    model = AnswerModel((0.5,) * n, (0.25,) * n, tuple(weights), -1.0, 0.3)
    low, high = [0.5] * n, [0.5] * n
    high[INDEX["focus_in_unit"]] = 1.0
    assert model.probability(low) < model.probability(high)
    assert model.logit(high) == pytest.approx(-1.0 + 2.0 * (1.0 - 0.5) / 0.25)
    [(name, value), *_] = model.contributions(high)
    assert name == "focus_in_unit" and value == pytest.approx(4.0)


def test_the_answering_unit_leads_and_every_quoted_unit_carries_its_probability(scored, perceive, synthetic):
    answer = scored.run(perceive("When was Vanguard founded?"), _vanguard(synthetic))
    assert answer.claims[0].text.startswith("Vanguard was founded in 1975")
    facts = [c for c in answer.claims if c.kind == "fact"]
    assert all(0.0 < c.probability < 1.0 for c in facts)
    assert answer.scoring.refusal == load_model("en").refusal
    best = answer.scoring.best
    assert 1 <= len(best) <= 3 and best[0].p == max(c.probability for c in facts)
    assert best[0].why and all(name in FEATURES for name in best[0].why)


def test_the_trace_explains_each_choice_with_the_probability_and_what_moved_it(scored, perceive, synthetic):
    answer = scored.run(perceive("When was Vanguard founded?"), _vanguard(synthetic))
    chosen = [why for why in answer.decisions.values() if why.startswith("chosen")]
    assert chosen and all("p=" in why for why in chosen)


def test_without_the_model_the_lexical_ranking_answers_and_no_probability_is_claimed(perceive, synthetic):
    answer = ExtractiveComposer().run(perceive("When was Vanguard founded?"), _vanguard(synthetic))
    assert answer.scoring is None and all(c.probability is None for c in answer.claims)


def test_a_chinese_question_is_scored_by_the_chinese_model(scored, perceive, synthetic):
    evidence = [synthetic("先锋集团成立于1975年，总部位于宾夕法尼亚州。", doc_id="zh", position=0)]
    answer = scored.run(perceive("先锋集团是哪一年成立的？"), evidence)
    assert answer.scoring.refusal == load_model("zh").refusal
    assert answer.claims[0].probability is not None


def test_validation_refuses_when_the_best_unit_is_below_the_threshold_naming_it(scored, perceive, synthetic):
    perception = perceive("When was Vanguard founded?")
    evidence = _vanguard(synthetic)
    answer = scored.run(perception, evidence)
    verdict = ValidationAgent().run(perception, answer, evidence, NOW)
    assert not any(i.kind == "unanswered" for i in verdict.issues)
    # a refusal this demanding refuses it, naming the probabilities and the closest unit
    answer.scoring = replace(answer.scoring, refusal=dict(answer.scoring.refusal, threshold=0.999))
    verdict = ValidationAgent().run(perception, answer, evidence, NOW)
    [issue] = [i for i in verdict.issues if i.kind == "unanswered"]
    assert "best unit p=" in issue.detail and "refused below 1.00" in issue.detail
    assert "Vanguard was founded" in issue.detail


@pytest.mark.parametrize("ranker", ["lexical", "learned"])
def test_a_lead_in_brings_the_code_block_it_introduces(perceive, synthetic, ranker):
    """Issue 23: "Use the following command to generate one: [1]" was quoted without the command."""
    evidence = [synthetic("An API token authenticates the upload. Use the following command to generate one:\n\n"
                          "```\nsightline keys create --name uploader\n```\n\nTokens expire after 90 days.",
                          doc_id="tokens", position=0)]
    composer = ExtractiveComposer(ranker=ranker)
    answer = composer.run(perceive("How do I generate an API token?"), evidence)
    texts = [c.text for c in answer.claims]
    lead = next(i for i, t in enumerate(texts) if t.startswith("Use the following command to generate one:"))
    assert texts[lead + 1].startswith("```\nsightline keys create --name uploader\n```")
    # a block of its own after its lead-in, as Markdown reads it (issue 34: the fence opened after the sentence)
    fences = [t.content for t in MarkdownIt("commonmark").parse(answer.text) if t.type == "fence"]
    assert fences == ["sightline keys create --name uploader\n"]
    verdict = ValidationAgent().run(perceive("How do I generate an API token?"), answer, evidence, NOW)
    assert not [i for i in verdict.issues if i.check == "citation"]


@pytest.mark.parametrize("ranker", ["lexical", "learned"])
def test_a_lead_in_brings_the_items_of_the_list_it_introduces(perceive, synthetic, ranker):
    """Issue 24 item 3: a list question is answered with the items of the list, not its lead-in
    alone ("There are three kinds of PEP: [1]" was the whole answer once lists were units)."""
    evidence = [synthetic("Plans differ in support. There are three support plans:\n"
                          "- Basic support answers on the next business day.\n"
                          "- Premium support answers within four hours.\n"
                          "- Enterprise support answers within one hour, at any time.\n"
                          "Plans can be changed every month.", doc_id="plans", position=0)]
    answer = ExtractiveComposer(ranker=ranker).run(perceive("What support plans are there?"), evidence)
    texts = [c.text for c in answer.claims]
    lead = next(i for i, t in enumerate(texts) if t.startswith("There are three support plans:"))
    assert [t.split(" [")[0] for t in texts[lead + 1:lead + 4]] == [
        "Basic support answers on the next business day.", "Premium support answers within four hours.",
        "Enterprise support answers within one hour, at any time."]
    verdict = ValidationAgent().run(perceive("What support plans are there?"), answer, evidence, NOW)
    assert not [i for i in verdict.issues if i.check == "citation"]


def test_a_list_item_the_lexical_ranking_chose_brings_the_other_items_of_its_list(perceive, synthetic):
    """The lexical ranking cannot tell apart items sharing the question's terms ("3.12.0 alpha 1:
    <date>", "3.12.0 final: <date>"): once lists were units, it quoted the first ones alone."""
    evidence = [synthetic("# Release schedule\n\nThe dates are:\n"
                          "- 4.2.0 alpha 1 of the engine: Monday, 2024-02-05\n"
                          "- 4.2.0 alpha 2 of the engine: Monday, 2024-03-04\n"
                          "- 4.2.0 beta 1 of the engine: Monday, 2024-05-06\n"
                          "- 4.2.0 beta 2 of the engine: Monday, 2024-06-03\n"
                          "- 4.2.0 candidate 1 of the engine: Monday, 2024-08-05\n"
                          "- 4.2.0 final release of the engine: Tuesday, 2024-10-01\n", doc_id="schedule")]
    answer = ExtractiveComposer(ranker="lexical").run(perceive("When was the engine 4.2.0 released?"), evidence)
    quoted = " ".join(c.text for c in answer.claims)
    assert "4.2.0 final release of the engine: Tuesday, 2024-10-01" in quoted
    assert sum(c.text.startswith("4.2.0") for c in answer.claims) == 6


def test_the_cross_encoder_reads_which_sentence_answers_and_reads_each_pair_once():
    from orchestration.compose.scorer.cross import CrossEncoder

    encoder = CrossEncoder()
    question = "In what year was the Karelian Lighthouse electrified?"
    texts = ["In 1931 the Karelian Lighthouse was electrified.",
             "The Karelian Lighthouse is painted red and white."]
    first = encoder.logits(question, texts)
    assert first[0] > first[1] + 1.0
    assert len(encoder._cache) == 2
    assert encoder.logits(question, texts[::-1]) == first[::-1]  # from the cache, same values
    assert len(encoder._cache) == 2


def test_the_most_probable_unit_leads_even_when_its_chunk_says_it_second(scored, perceive, synthetic):
    """Issue 24, item 3: the best unit leads; the context quoted with it follows in reading order."""
    evidence = [synthetic("Vanguard runs index funds for millions of investors. Vanguard was founded in 1975 "
                          "by John C. Bogle. Its funds are known for low costs.", doc_id="vanguard", position=0)]
    answer = scored.run(perceive("When was Vanguard founded?"), evidence)
    facts = [c for c in answer.claims if c.kind == "fact"]
    assert facts[0].text.startswith("Vanguard was founded in 1975")
    assert facts[0].probability == max(c.probability for c in facts)


def test_a_unit_is_read_under_its_heading_so_it_answers_about_the_subject_the_heading_names(perceive):
    """Issue 23: 'a sentence "It does not support X." under a heading that names the subject has no
    word of the question in it, so it is never chosen'. The unit's heading path is its context."""
    from orchestration.kb.chunking import chunk_text
    from orchestration.retrieval.scored import ScoredChunk

    page = ("# Editions\n\n## Pro edition\n\nIt offers PDF export and colour printing for every user.\n\n"
            "## Lite edition\n\nIt offers no PDF export; printing is black and white for every user.\n")
    chunk = chunk_text(page)[0]
    evidence = [ScoredChunk(chunk_id="editions#0", kb="test", text=chunk.text, title="Product guide",
                            metadata={"section": chunk.section}, units=chunk.units, score=1.0, fused=1.0)]
    # one unit quoted: the best by the lexical ranking (both say "offers PDF export"; only the
    # heading above one of them names the Lite edition; before, the first in reading order led)
    composer = ExtractiveComposer(ranker="lexical", max_sentences=1)
    answer = composer.run(perceive("Does the Lite edition offer PDF export?"), evidence)
    lite = "It offers no PDF export; printing is black and white for every user. [1]"
    # it decides the yes/no question: "No." (the unit negates it, read with its heading), and its
    # heading says what "It" is (issue 24 item 3: "the heading's subject for a unit that says 'It ...'")
    assert [c.text for c in answer.claims] == ["No.", f"Lite edition: {lite}"]
    assert answer.citations[0].path == ["Editions", "Lite edition"]
