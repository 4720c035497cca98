"""A program wires its navigators through a method of their own (``wired_with``), not a switch on their class
(issue 44, point 4): a navigator of a class ``Wiring`` never heard of is wired, once, and one that needs nothing
is itself."""

from __future__ import annotations

from pathlib import Path

from core import NavigatorChoice, NavigatorRequest, TreeNavigator
from explorer.navigators import resolve_navigator
from explorer.navigators.folders import Folders
from explorer.navigators.llm.llama_server import StatusListeners
from explorer.navigators.manual import DecisionDesk, ManualNavigator
from explorer.navigators.openai_compat import OpenAICompatibleNavigator
from explorer.walks.wiring import Wirable, Wiring


class Minded(TreeNavigator):
    """A navigator for tests that wants the program's desk: wired, it is a copy holding it."""

    def __init__(self, desk: DecisionDesk | None = None) -> None:
        self.desk = desk

    def supports(self, model: str) -> bool:
        return True

    def choose(self, request: NavigatorRequest) -> NavigatorChoice:
        raise AssertionError("not asked in these tests")

    def wired_with(self, desk: DecisionDesk | None, hearing: StatusListeners | None,
                   folders: Folders | None) -> TreeNavigator | None:
        return Minded(desk) if desk is not None and desk is not self.desk else None


def test_a_navigator_of_a_new_class_is_wired_by_its_own_method_once() -> None:
    desk = DecisionDesk()
    wiring = Wiring(desk=desk)
    minded = Minded()
    assert isinstance(minded, Wirable)
    wired = wiring.wire(minded)
    assert isinstance(wired, Minded) and wired is not minded and wired.desk is desk
    assert wiring.wire(minded) is wired  # the same navigator asked again: the same wired one
    assert wiring.wire(wired) is wired  # already wired: itself
    assert Wiring().wire(minded) is minded  # a program with no desk: nothing to wire


def test_the_shipped_navigators_say_what_they_take(tmp_path: Path) -> None:
    desk, folders = DecisionDesk(), Folders(tmp_path / "cache")
    wiring = Wiring(desk=desk, folders=folders)
    manual = wiring.wire(ManualNavigator())
    assert isinstance(manual, ManualNavigator) and manual.desk is desk
    with OpenAICompatibleNavigator() as llm:
        kept = wiring.wire(llm)
        assert isinstance(kept, OpenAICompatibleNavigator) and kept is not llm and kept.folders == folders
        assert Wiring(desk=desk).wire(llm) is llm  # no folders: it takes nothing else
    lexical = resolve_navigator("lexical:default")
    assert wiring.wire(lexical) is lexical  # it takes nothing of the program
