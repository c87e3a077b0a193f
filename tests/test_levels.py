from hypothesis import given
from hypothesis import strategies as st

from pipeline.base.levels import PASSED_A, format_level, parse_level


def test_every_organizer_spelling():
    written = {
        "2": 2, "10": 10, "J": 11, "j": 11, "Q": 12, "K": 13, "A": 14, "a": 14,
        "１０": 10, "Ａ": 14, "ｊ": 11, "11": 11, "15": 15, "过A": 15, "過A": 15, "A+": 15,
        "过": 15, " 9 ": 9, "10.0": 10,
    }
    for text, level in written.items():
        assert parse_level(text) == level, text


def test_not_levels():
    for text in ["1", "16", "B", "", "  ", "0", "-3", "A-", "10.5", "二", "45659"]:
        assert parse_level(text) is None, text
    assert parse_level(None) is None


def test_numbers_from_cells():
    assert parse_level(10.0) == 10
    assert parse_level(14) == 14
    assert parse_level(9.5) is None
    assert parse_level(True) is None


def test_format_as_organizers_write():
    assert [format_level(v) for v in range(2, 16)] == [
        "2", "3", "4", "5", "6", "7", "8", "9", "10", "J", "Q", "K", "A", "过A"]


@given(st.integers(min_value=2, max_value=PASSED_A))
def test_round_trip(level):
    assert parse_level(format_level(level)) == level


@given(st.text(max_size=6))
def test_parser_never_raises_and_stays_in_range(text):
    found = parse_level(text)
    assert found is None or 2 <= found <= PASSED_A
