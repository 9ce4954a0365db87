"""Names that become paths, labels and headers match whole: a trailing newline is not a name."""

from __future__ import annotations

import pytest

from core.errors import ConfigError, RequestError
from core.names import check_name, is_valid_name


@pytest.mark.parametrize("name", ["manuals\n", "manuals\r\n", "\nmanuals", "man uals", ""])
def test_a_name_with_a_newline_or_space_is_not_valid(name):
    assert not is_valid_name(name)
    with pytest.raises(RequestError, match="is not valid"):
        check_name(name, "knowledge base name")


def test_good_names_pass():
    assert is_valid_name("manuals") and check_name("kb_2-x", "kb") == "kb_2-x"


def test_key_names_and_header_names_in_config_files_match_whole():
    from core.configfile import Where
    from server.keys import parse_keys
    from server.settings import _header

    with pytest.raises(ConfigError, match="name must be"):
        parse_keys({"keys": [{"name": "ops\n", "sha256": "0" * 64, "groups": []}]}, "api_keys.yaml")
    with pytest.raises(ConfigError, match="must be an HTTP header name"):
        _header(Where("service.yaml", "gateway.groups_header", "gateway.groups_header"), "X-Groups\n")


def test_a_request_naming_a_kb_with_a_trailing_newline_is_400():
    from server.http.schemas import parse_ask_request

    with pytest.raises(RequestError, match="is not valid") as refused:
        parse_ask_request({"query": "What triggers E4027?", "kb": ["manuals\n"]})
    assert refused.value.field.startswith("kb")
