"""The settings `C` reads before it goes on live (``budget=N depth=N ...``): whole numbers are ASCII digits, read
by the one reader of whole numbers (explorer.numbers.whole)."""

from __future__ import annotations

import pytest

from explorer.walks.live_settings import ACCEPTED, LiveSettings, LiveSettingsError, read_live

NOW = LiveSettings(budget=15, depth=6, navigator="lexical:default")


def test_budget_and_depth_are_read_and_the_rest_is_kept() -> None:
    assert read_live("budget=30 depth=0", NOW) == LiveSettings(30, 0, "lexical:default")
    assert read_live("DEPTH=100000", NOW) == LiveSettings(15, 100_000, "lexical:default")


@pytest.mark.parametrize(("word", "low", "high"), [
    ("budget=²", 1, "100,000"),  # was a raw ValueError from int()
    ("budget=٣", 1, "100,000"),  # was taken as 3
    ("budget=0", 1, "100,000"),
    ("budget=+5", 1, "100,000"),
    ("budget=1_000", 1, "100,000"),
    ("budget=", 1, "100,000"),
    ("depth=-1", 0, "100,000"),
    ("depth=100001", 0, "100,000"),
    ("depth=" + "9" * 5000, 0, "100,000"),
])
def test_a_number_that_is_not_ascii_digits_in_range_is_one_line(word: str, low: int, high: str) -> None:
    key = word.split("=", 1)[0]
    with pytest.raises(LiveSettingsError) as caught:
        read_live(word, NOW)
    assert str(caught.value) == f"{word!r}: {key} is a whole number from {low} to {high}; write {ACCEPTED}"
