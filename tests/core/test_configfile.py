"""The config-checking kit: text from the environment read as a file's value, finite numbers, env places."""

import pytest

from core import configfile as check
from core.configfile import Where
from core.errors import ConfigError


@pytest.mark.parametrize("text, kind, expected", [
    (" 8 ", int, 8), ("eight", int, "eight"), ("2.5", int, "2.5"),
    ("0.5", float, 0.5), ("soon", float, "soon"),
    ("Yes", bool, True), ("1", bool, True), ("FALSE", bool, False), ("0", bool, False), ("maybe", bool, "maybe"),
    ("a,b", str, "a,b"),
])
def test_from_text_reads_text_as_the_type_or_leaves_it_for_the_check(text, kind, expected):
    assert check.from_text(text, kind) == expected


def test_a_finite_number_refuses_infinity_and_names_the_environment_variable():
    where = Where.environment("APP_SECONDS", "seconds")
    assert check.number(where, float("inf"), minimum=0) == float("inf")
    with pytest.raises(ConfigError, match=r"^environment variable APP_SECONDS: seconds: must be a finite number "
                                          r">= 0, got inf$") as info:
        check.number(where, float("inf"), minimum=0, finite=True)
    assert info.value.field == "seconds"
