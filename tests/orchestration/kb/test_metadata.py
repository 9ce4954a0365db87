import datetime as dt

import pytest

from orchestration.kb.metadata import FieldMap, MetadataError, document_date, normalize, normalize_metadata, parse_date


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


# --- metadata as documents carry it (issue 12, item 1) ------------------------------------

@pytest.mark.parametrize("value,iso", [
    (dt.date(2023, 5, 1), "2023-05-01T00:00:00+00:00"),                        # YAML `created_at: 2023-05-01`
    (dt.datetime(2023, 5, 1, 10, 30), "2023-05-01T10:30:00+00:00"),
    (dt.datetime(2023, 5, 1, 10, 30, tzinfo=dt.timezone(dt.timedelta(hours=2))), "2023-05-01T08:30:00+00:00"),
    ("Tue, 10 Jun 2003 04:00:00 GMT", "2003-06-10T04:00:00+00:00"),          # RFC 2822 (RSS pubDate)
    ("Tue, 10 Jun 2003 04:00:00 EST", "2003-06-10T09:00:00+00:00"),          # RFC 822 zone names
    ("05-Jul-2001", "2001-07-05T00:00:00+00:00"),                            # PEP `Created:`
    (1685577600, "2023-06-01T00:00:00+00:00"),                               # Unix timestamp
    (1685577600.0, "2023-06-01T00:00:00+00:00"),
    (1685577600000, "2023-06-01T00:00:00+00:00"),                            # ... in milliseconds
    ("1685577600", "2023-06-01T00:00:00+00:00"),
    (2023, "2023-01-01T00:00:00+00:00"),                                     # YAML `date: 2023` is a year
    ("March 2024", "2024-03-01T00:00:00+00:00"),                             # not today's day of the month
])
def test_a_date_is_read_wherever_yaml_or_json_gives_one(value, iso):
    assert parse_date(value).isoformat() == iso


@pytest.mark.parametrize("bad", ["March 5", True, float("nan"), 10 ** 20])
def test_dates_without_a_year_or_out_of_range_are_not_dates(bad):
    with pytest.raises(MetadataError, match="not a date"):
        parse_date(bad)


def test_an_unquoted_yaml_date_in_an_aliased_field_becomes_published_at():
    # before: "field 'created_at' has unsupported type date" and the document was skipped
    assert normalize_metadata({"created_at": dt.date(2023, 5, 1)}) == {"published_at": "2023-05-01T00:00:00+00:00"}


@pytest.mark.parametrize("key", ["date", "Date", "created", "created_at", "createdAt", "published", "pubDate",
                                 "pubdate", "pub_date", "PublishedAt"])
def test_common_publication_date_names_feed_published_at(key):
    # before: a quoted date under these names was kept as an unknown string and no time filter saw it
    assert normalize_metadata({key: "2023-05-01"}) == {"published_at": "2023-05-01T00:00:00+00:00"}


@pytest.mark.parametrize("key", ["updated", "modified", "lastmod", "last_modified", "lastModified"])
def test_common_modification_date_names_feed_updated_at(key):
    assert normalize_metadata({key: "2023-06-02"}) == {"updated_at": "2023-06-02T00:00:00+00:00"}


@pytest.mark.parametrize("value,names", [
    ([{"name": "Ada Quill", "email": "ada@example.org"}, {"name": "Ben Ortiz"}], ["Ada Quill", "Ben Ortiz"]),
    ({"name": "Ada Quill", "email": "ada@example.org"}, ["Ada Quill"]),
    ("Cara Diaz and Dev Patel", ["Cara Diaz", "Dev Patel"]),
    ("Guido van Rossum <guido@python.org>, Barry Warsaw", ["Guido van Rossum", "Barry Warsaw"]),
    ("Jane Roe, Jr. & John Doe", ["Jane Roe, Jr.", "John Doe"]),
    ("Serina DeSalvio, Texas A&M University", ["Serina DeSalvio", "Texas A&M University"]),
    ("张三、李四", ["张三", "李四"]),
    (["Finn Hale", "Gus Wu", "Finn Hale"], ["Finn Hale", "Gus Wu"]),
    ([{"given": "Hana", "family": "Ito"}], ["Hana Ito"]),
])
def test_authors_become_a_list_of_names(value, names):
    # before: `author` as a list of objects skipped the document ("must be text, got list")
    assert normalize_metadata({"author": value})["author"] == names
    assert normalize_metadata({"authors": value})["author"] == names


@pytest.mark.parametrize("raw,tags", [
    ({"tags": ["release", "lantern"]}, ["release", "lantern"]),
    ({"tags": "release, tables"}, ["release", "tables"]),
    ({"categories": ["archive", "feeds"]}, ["archive", "feeds"]),
    ({"tags": [{"name": "howto"}, 3]}, ["howto", "3"]),
])
def test_tags_and_categories_become_a_list_of_strings(raw, tags):
    assert normalize_metadata(raw)["tags"] == tags


def test_an_unreadable_date_is_dropped_with_a_warning_naming_the_value_and_the_document_kept():
    read = normalize({"date": "sometime next spring", "author": "Eve Stone"})
    assert read.metadata == {"author": ["Eve Stone"]}
    assert read.warnings == ["field 'published_at' (from 'date'): not a date: 'sometime next spring' "
                             "(use ISO 8601, e.g. 2023-10-07); dropped (the document is ingested without it)"]


def test_an_unreadable_date_gives_way_to_the_next_name_that_holds_one():
    read = normalize({"published_at": "TBD", "date": "2023-05-01"})
    assert read.metadata == {"published_at": "2023-05-01T00:00:00+00:00"}
    assert "not a date: 'TBD'" in read.warnings[0]


def test_the_field_itself_wins_over_an_alias_and_a_note_says_so():
    read = normalize({"date": "2023-08-15", "published_at": "2023-09-01", "created": "05-Jul-2001"})
    assert read.metadata == {"published_at": "2023-09-01T00:00:00+00:00", "date": "2023-08-15",
                             "created": "05-Jul-2001"}
    assert read.warnings == []
    assert read.notes == ["'date' not read as published_at: the document gives it as 'published_at' "
                          "(kept as field 'date')",
                          "'created' not read as published_at: the document gives it as 'published_at' "
                          "(kept as field 'created')"]


def test_unknown_nested_fields_and_dates_are_kept_as_json_and_iso():
    # before: "field 'cover' has unsupported type dict" skipped the document
    read = normalize({"cover": {"image": "/img/a.png", "sizes": [320, 640]}, "reviewed": dt.date(2024, 3, 4),
                      "steps": [{"n": 1}], "seen": [dt.date(2024, 1, 2), "x"], "shelf": ["B2", 3]})
    assert read.metadata == {"cover": '{"image": "/img/a.png", "sizes": [320, 640]}',
                             "reviewed": "2024-03-04T00:00:00+00:00", "steps": '[{"n": 1}]',
                             "seen": ["2024-01-02T00:00:00+00:00", "x"], "shelf": ["B2", 3]}
    assert read.undated_date_fields == ["reviewed"]


def test_a_recursive_yaml_value_is_dropped_not_fatal():
    loop: list = []
    loop.append(loop)
    read = normalize({"loop": loop, "status": "draft"})
    assert read.metadata == {"status": "draft"} and "nested more than" in read.warnings[0]


def test_a_knowledge_base_field_map_replaces_the_aliases_of_the_fields_it_names():
    fields = FieldMap({"published_at": ("created_at",), "updated_at": ("modified_on",), "author": ("writers",)})
    raw = {"created_at": "2023-05-01", "date": "2023-01-01", "modified_on": dt.date(2023, 6, 2),
           "writers": ["Hana Ito"], "author": "Ivo Berg", "lastmod": "2024-01-01"}
    assert normalize_metadata(raw, fields) == {
        "published_at": "2023-05-01T00:00:00+00:00", "date": "2023-01-01",   # `date` is no longer an alias
        "updated_at": "2023-06-02T00:00:00+00:00", "lastmod": "2024-01-01",
        "author": ["Ivo Berg"], "writers": ["Hana Ito"]}                       # the field itself still wins


def test_a_field_map_naming_a_field_without_a_meaning_lists_the_allowed_ones():
    with pytest.raises(MetadataError, match="fields without a meaning: published; allowed: published_at, updated_at"):
        FieldMap({"published": ("date",)})
