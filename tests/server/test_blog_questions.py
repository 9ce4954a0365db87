"""Questions over a blog, through the whole loop (issue 24's findings).

Found in issue 24: 'One time-bounded question ("What did the blog announce in <month> <year>?")
got exactly the right post ranked first and was refused for it': the term-coverage rule wanted
the answer sentence to say "March" and "2024", words the question spends on the time window the
evidence was already searched with (a post dated in March says "Today we announce ...").

Found in issue 24: 'any on-topic sentence carrying a number ... passes as the answer'.
"""

from __future__ import annotations

import datetime as dt

import pytest

from server.context import RequestContext
from server.loop import AskRequest

from .conftest import folder_loop

POSTS = {
    "2024-01-remote-write-2.md": ("Remote write 2.0 is in beta", "2024-01-18",
                                  "We are happy to announce that remote write 2.0 is available as a beta in "
                                  "Prometheus 2.49.\nThe new protocol sends metadata, exemplars and native histograms "
                                  "in one message."),
    "2024-03-road-to-3.md": ("The road to Prometheus 3.0", "2024-03-14",
                             "Today we announce the plan for Prometheus 3.0, the first major release in seven years.\n"
                             "It will ship a new web UI and UTF-8 metric names."),
    "2024-06-promcon-cfp.md": ("PromCon 2024 call for speakers", "2024-06-03",
                               "The call for speakers for PromCon 2024 in Berlin is open until July 1.\n"
                               "Talks are 25 minutes long."),
}


@pytest.fixture(scope="module", params=["lexical", "learned"])
def loop(request, tmp_path_factory, embedder):
    """The blog's loop with each ranker (server/bootstrap.py picks the learned one for
    SIGHTLINE_ANSWER_MODEL=1): found with the learned one, the month questions were refused (its
    reader read the missing "March 2024" as the post not answering) and the count answered."""
    files = {name: f"---\ntitle: {title}\ndate: {date}\n---\n\n# {title}\n\n{body}\n"
             for name, (title, date, body) in POSTS.items()}
    with pytest.MonkeyPatch.context() as env:
        env.setenv("SIGHTLINE_ANSWER_MODEL", "1" if request.param == "learned" else "0")
        return folder_loop(tmp_path_factory.mktemp(f"blog-{request.param}"), "blog", files, embedder)


def _ask(loop, query: str) -> dict:
    return loop.run(AskRequest(query=query, context=RequestContext.create(dt.date(2024, 12, 1))))


@pytest.mark.parametrize("query, post", [
    ("What did the blog announce in March 2024?", "Today we announce the plan for Prometheus 3.0"),
    ("What did the Prometheus blog announce in January 2024?", "We are happy to announce that remote write 2.0"),
])
def test_the_post_of_the_asked_month_answers(loop, query, post):
    body = _ask(loop, query)
    assert body["status"] == "answered", body["answer"]
    assert body["answer"].startswith(post), body["answer"]


def test_a_month_without_a_post_is_refused(loop):
    body = _ask(loop, "What did the blog announce in May 2024?")
    assert body["status"] == "insufficient", body["answer"]
    assert "May 2024" in body["answer"]  # the refusal says which window held nothing


def test_an_on_topic_number_that_counts_something_else_does_not_answer_a_count(loop):
    """"How many talks ...?" was answered by "Talks are 25 minutes long": a length, not a count."""
    body = _ask(loop, "How many talks are accepted at PromCon 2024?")
    assert body["status"] == "insufficient", body["answer"]
    assert "'talk'" in body["answer"]  # the refusal names what the question counts
    length = _ask(loop, "How long are PromCon 2024 talks?")  # the same sentence answers its own question
    assert length["status"] == "answered" and length["answer"].startswith("Talks are 25 minutes long"), length
