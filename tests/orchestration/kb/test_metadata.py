import pytest

from orchestration.kb.metadata import MetadataError, document_date, normalize_metadata, parse_date


@pytest.mark.parametrize("text,iso", [
    ("2023-11-27 08:45:59.000000000Z", "2023-11-27T08:45:59+00:00"),   # MultiHop-RAG corpus
    ("2023-09-28T12:00:00+00:00", "2023-09-28T12:00:00+00:00"),        # MultiHop-RAG evidence
    ("2023-03-15", "2023-03-15T00:00:00+00:00"),
    ("March 5, 2024", "2024-03-05T00:00:00+00:00"),
    ("2024年3月5日", "2024-03-05T00:00:00+00:00"),
    ("2025-06-01T09:00:00+08:00", "2025-06-01T01:00:00+00:00"),
])
def test_dates_parse_whatever_their_format(text, iso):
    assert parse_date(text).isoformat() == iso


@pytest.mark.parametrize("bad", ["yesterday-ish", "", "2023-13-45", [2023]])
def test_unparseable_dates_raise_a_message_with_the_fix(bad):
    with pytest.raises(MetadataError, match="not a date"):
        parse_date(bad)


def test_known_fields_are_normalised_and_unknown_fields_kept():
    meta = normalize_metadata({"published_at": "2023-01-02", "status": "Effective", "doc_type": "Test Report",
                               "authority": "4", "acl": ["finance", "finance", " ops "], "shelf": "B2"})
    assert meta == {"published_at": "2023-01-02T00:00:00+00:00", "status": "effective", "doc_type": "test_report",
                    "authority": 4, "acl": ["finance", "ops"], "shelf": "B2"}


@pytest.mark.parametrize("raw,field", [
    ({"authority": 9}, "authority"),
    ({"authority": "high"}, "authority"),
    ({"acl": {"group": "x"}}, "acl"),
    ({"published_at": "soon"}, "published_at"),
    ({"extra": {"nested": 1}}, "extra"),
    ({"source": ["a", "b"]}, "source"),
])
def test_bad_values_name_the_field(raw, field):
    with pytest.raises(MetadataError, match=field):
        normalize_metadata(raw)


def test_metadata_must_be_an_object():
    with pytest.raises(MetadataError, match="object"):
        normalize_metadata(["not", "a", "mapping"])


def test_document_date_prefers_published_then_updated():
    assert str(document_date({"updated_at": "2024-01-01T00:00:00+00:00"})) == "2024-01-01"
    assert str(document_date({"published_at": "2023-05-01T00:00:00+00:00",
                              "updated_at": "2024-01-01T00:00:00+00:00"})) == "2023-05-01"
    assert document_date({}) is None
