"""The settings `C` reads before it goes on live (``budget=N depth=N ...``): whole numbers are ASCII digits, read
by the one reader of whole numbers (explorer.numbers.whole)."""

from __future__ import annotations

from dataclasses import replace
from pathlib import Path

import pytest

from core import Policy
from explorer.walk_settings import WalkSettings
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


BEST = LiveSettings(15, 6, "lexical:default", policy=Policy.BEST_FIRST, alpha=0.5)


def test_the_policy_is_read_as_the_command_line_reads_it_and_written_only_when_not_depth_first() -> None:
    assert NOW.text() == "budget=15 depth=6 navigator=lexical:default"  # a depth-first walk's line, as before
    assert read_live("policy=best-first", NOW) == BEST
    assert read_live("POLICY=Best-First@alpha=0.7 budget=8", NOW) == replace(BEST, budget=8, alpha=0.7)
    assert read_live("policy=best-first@alpha=0.7", NOW).text() == (
        "budget=15 depth=6 policy=best-first@alpha=0.7 navigator=lexical:default")
    assert read_live("policy=depth-first", BEST) == NOW
    assert read_live("policy=best-first", NOW).changes(NOW) == ["best-first"]
    assert read_live("policy=depth-first", BEST).changes(BEST) == ["depth-first"]
    assert read_live("budget=9", BEST).changes(BEST) == []


def test_a_walk_s_own_policy_prefills_the_line(tmp_path: Path) -> None:
    walked = WalkSettings("q", "lexical:default", policy=Policy.BEST_FIRST, alpha=0.7)
    assert LiveSettings.of(walked, tmp_path) == replace(BEST, alpha=0.7)
    assert LiveSettings.of(walked, tmp_path).text() == (
        "budget=15 depth=6 policy=best-first@alpha=0.7 navigator=lexical:default")
    unread = walked.but(model="local:smollm2@seed=1,,")  # a model id that does not read keeps its order too
    assert LiveSettings.of(unread, tmp_path) == replace(BEST, navigator="local:smollm2@seed=1,,", alpha=0.7)
    assert LiveSettings.of(WalkSettings("q", "lexical:default"), tmp_path) == NOW


@pytest.mark.parametrize(("word", "said"), [
    ("policy=sideways", "'sideways' is no walk policy; write depth-first or best-first (best-first@alpha=0.7)"),
    ("policy=", "'' is no walk policy; write depth-first or best-first (best-first@alpha=0.7)"),
    ("policy=best-first@alpha=2", "alpha must be a number above 0 and at most 1 (best-first@alpha=0.7)"),
    ("policy=best-first@alpha=nan", "alpha must be a number above 0 and at most 1 (best-first@alpha=0.7)"),
    ("policy=best-first@beta=1", "the one option of a policy is alpha (best-first@alpha=0.7)"),
    ("policy=depth-first@alpha=0.7", "alpha weighs best-first's path scores; depth-first takes none"),
])
def test_a_policy_that_does_not_read_is_one_line_naming_the_word(word: str, said: str) -> None:
    with pytest.raises(LiveSettingsError) as caught:
        read_live(word, NOW)
    assert str(caught.value) == f"{word!r}: {said}"
