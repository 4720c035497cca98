"""SPEC "The navigator": a choice's transcript, and the walk copying it onto its events."""

from __future__ import annotations

import pytest

from core import (
    NavigatorChoice,
    NavigatorChose,
    NavigatorFailed,
    OnFailure,
    ReasoningRAGStrategy,
    transcript_from,
)

from .trees import Recorder, index, leaf


def test_choice_stores_transcript_as_tuple_of_pairs() -> None:
    choice = NavigatorChoice(["a"], transcript=[["system", "be brief"], ("answer", '{"selected": ["a"]}')])
    assert choice.transcript == (("system", "be brief"), ("answer", '{"selected": ["a"]}'))
    assert NavigatorChoice(["a"]).transcript is None


@pytest.mark.parametrize(
    "bad",
    ["system: hi", [("system",)], [("a", "b", "c")], [("system", 3)], [(1, "x")], 5, ["ab"]],
)
def test_malformed_transcript_raises_type_error(bad: object) -> None:
    with pytest.raises(TypeError, match="transcript"):
        NavigatorChoice(["a"], transcript=bad)  # type: ignore[arg-type]
    with pytest.raises(TypeError):
        transcript_from(bad)


def test_walk_copies_transcript_onto_navigator_chose() -> None:
    def choose(request):  # type: ignore[no-untyped-def]
        return NavigatorChoice(["a"], "why", transcript=[("user", request.query), ("answer", "a")])

    events = list(ReasoningRAGStrategy(index([leaf("a"), leaf("b")]), Recorder(default=choose), "fn:x").walk("q?"))
    chose = [e for e in events if isinstance(e, NavigatorChose)]
    assert [c.transcript for c in chose] == [(("user", "q?"), ("answer", "a"))]


def test_plain_ids_answer_has_no_transcript() -> None:
    events = list(ReasoningRAGStrategy(index([leaf("a")]), Recorder(default=["a"]), "fn:x").walk("q"))
    assert [e.transcript for e in events if isinstance(e, NavigatorChose)] == [None]


class _Failing(Exception):
    def __init__(self, transcript: object) -> None:
        super().__init__("upstream said no")
        self.transcript = transcript


@pytest.mark.parametrize(
    ("attached", "expected"),
    [
        ([("http", "500 after 3 attempts")], (("http", "500 after 3 attempts"),)),
        ("not pairs", None),  # malformed: dropped, the failure itself still shows
        (None, None),
    ],
)
def test_walk_copies_exception_transcript_onto_navigator_failed(attached: object, expected: object) -> None:
    navigator = Recorder(default=_Failing(attached))
    strategy = ReasoningRAGStrategy(index([leaf("a")]), navigator, "fn:x", on_failure=OnFailure.PARTIAL)
    failed = [e for e in strategy.walk("q") if isinstance(e, NavigatorFailed)]
    assert len(failed) == 1
    assert failed[0].transcript == expected
    assert failed[0].error == "_Failing: upstream said no"
