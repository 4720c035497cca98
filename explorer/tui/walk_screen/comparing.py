"""Two walks side by side on the walk screen: choosing the walk to compare with, and the comparison itself
(computed again only when either walk has grown)."""

from __future__ import annotations

from dataclasses import replace

from ...walks.compare import Comparison, compare
from ...walks.evaluation.who_landed import who_landed
from ...walks.walk_list import Walk, WalkUnreadable
from ..screens.choose_walk import WalksScreen
from .shown import Grounds, Part


class Comparing(Part):
    """The comparison of the walk on screen with its partner (both held by the ``view``)."""

    def __init__(self, grounds: Grounds) -> None:
        super().__init__(grounds)
        self._cached: tuple[tuple[object, ...], Comparison] | None = None

    def ask(self) -> None:
        """End the comparison, or ask which walk of the list to compare the shown one with."""
        view = self.view
        if view.partner is not None:
            view.partner = None
            self.say("Comparison ended.", timeout=2)
            return
        shown = view.walk
        if shown is None or len(self.walks) < 2:
            self.say("Only one walk so far: fork a decision (e) or restart (r), then compare (D).", timeout=4)
            return
        others = [w for w in self.walks if w is not shown]

        def chosen(number: int | None) -> None:
            if number is not None:
                self.start(others[number - 1])

        self.stage.app.push_screen(WalksScreen([w.name for w in others], 0, title=f"Compare {shown.name} with…"),
                                   chosen)

    def start(self, other: Walk) -> None:
        """Compare the shown walk with ``other``: both on the tree, the step panel at their first divergence with
        both answers side by side."""
        view = self.view
        if view.walk is None or other is view.walk:
            return
        try:
            other.read()  # a saved walk is read the first time it is needed
        except WalkUnreadable as exc:
            self.say(str(exc), severity="error", timeout=8)
            return
        view.partner = other  # its prompts folded
        comparison = self.current()
        divergence = comparison.divergence if comparison is not None else None
        if divergence is not None and divergence.a is not None:
            view.walk.history.go(divergence.a.answer_seq or divergence.a.offer_seq)

    def toggle_prompts(self) -> None:
        """Unfold the prompts each walk sent where the two part, or fold them again."""
        if self.current() is None:
            self.say("No comparison on screen: D compares this walk with another.", timeout=3)
            return
        self.view.unfolded = not self.view.unfolded

    def current(self) -> Comparison | None:
        """The comparison of the shown walk with its partner (``None``: none is compared), with which walk landed
        the nodes marked expected on the tree, in words."""
        shown, partner = self.view.walk, self.view.partner
        if shown is None or partner is None:
            return None
        a, b = shown.history, partner.history
        expected = self.view.expected
        # An end comes with no event of its own; the history itself, not its id (an id is reused).
        key = (a, b, len(a.events), len(b.events), a.end, b.end, expected, shown.judged, partner.judged)
        if self._cached is None or self._cached[0] != key:
            comparison = compare(a, b)
            landing = who_landed(self.corpus, comparison, a, b, expected) if expected else ""
            # each side that missed, once judged (Judging, on a worker): whose fault it was, the flat search's rank
            verdicts = tuple((name, said[0], said[1] if len(said) > 1 else "")
                             for name, walk in (("A", shown), ("B", partner))
                             if walk.judged is not None and (said := walk.judged[1]))
            self._cached = (key, replace(comparison, landing=landing, verdicts=verdicts) if landing else comparison)
        return self._cached[1]
