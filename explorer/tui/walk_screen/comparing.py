"""Two walks side by side on the walk screen: choosing the walk to compare with, and the comparison itself
(computed again only when either walk has grown)."""

from __future__ import annotations

from typing import TYPE_CHECKING, Protocol

from ...walks.compare import Comparison, compare
from ...walks.walk_list import Walk, WalkList, WalkUnreadable
from ..say import Severity
from ..screens.choose_walk import WalksScreen

if TYPE_CHECKING:
    from textual.app import App


class Host(Protocol):
    """What comparing needs of the walk screen."""

    walks: WalkList
    shown: Walk | None
    partner: Walk | None

    @property
    def app(self) -> App[int]: ...

    def say(self, message: str, *, title: str = ..., severity: Severity = ..., timeout: float = ...) -> None: ...

    def walk_changed(self, *, burst: bool = ...) -> None: ...


class Comparing:
    """The comparison of the walk screen ``host``'s shown walk with its partner."""

    def __init__(self, host: Host) -> None:
        self.host = host
        self._cached: tuple[tuple[object, ...], Comparison] | None = None
        self.prompts = False
        """Whether the prompts each walk sent where they part are unfolded (folded when a comparison starts)."""

    def ask(self) -> None:
        """End the comparison, or ask which walk of the list to compare the shown one with."""
        host = self.host
        if host.partner is not None:
            host.partner = None
            host.say("Comparison ended.", timeout=2)
            return
        shown = host.shown
        if shown is None or len(host.walks) < 2:
            host.say("Only one walk so far: fork a decision (e) or restart (r), then compare (D).", timeout=4)
            return
        others = [w for w in host.walks if w is not shown]

        def chosen(number: int | None) -> None:
            if number is not None:
                self.start(others[number - 1])

        host.app.push_screen(WalksScreen([w.name for w in others], 0, title=f"Compare {shown.name} with…"), chosen)

    def start(self, other: Walk) -> None:
        """Compare the shown walk with ``other``: both on the tree, the step panel at their first divergence with
        both answers side by side."""
        host = self.host
        if host.shown is None or other is host.shown:
            return
        try:
            other.read()  # a saved walk is read the first time it is needed
        except WalkUnreadable as exc:
            host.say(str(exc), severity="error", timeout=8)
            return
        self.prompts = False
        host.partner = other
        comparison = self.current()
        divergence = comparison.divergence if comparison is not None else None
        if divergence is not None and divergence.a is not None:
            host.shown.history.go(divergence.a.answer_seq or divergence.a.offer_seq)
            host.walk_changed()

    def toggle_prompts(self) -> None:
        """Unfold the prompts each walk sent where the two part, or fold them again."""
        if self.current() is None:
            self.host.say("No comparison on screen: D compares this walk with another.", timeout=3)
            return
        self.prompts = not self.prompts
        self.host.walk_changed()

    def current(self) -> Comparison | None:
        """The comparison of the shown walk with its partner (``None``: none is compared)."""
        shown, partner = self.host.shown, self.host.partner
        if shown is None or partner is None:
            return None
        a, b = shown.history, partner.history
        key = (id(a), id(b), len(a.events), len(b.events), a.end, b.end)  # an end comes with no event of its own
        if self._cached is None or self._cached[0] != key:
            self._cached = (key, compare(a, b))
        return self._cached[1]
