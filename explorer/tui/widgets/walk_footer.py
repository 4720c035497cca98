"""The footer, able to show only the keys that matter now: presenting mode's essentials, or on a screen too narrow
for every key, all but those a walk can do without (they are in the help and the palette)."""

from __future__ import annotations

from collections.abc import Callable, Iterable
from dataclasses import dataclass

from textual import events
from textual.app import ComposeResult
from textual.screen import Screen
from textual.widgets import Footer


@dataclass(frozen=True)
class FooterRules:
    """Which keys a footer narrower than ``narrow_below`` columns shows: every key but ``narrow_hides``' actions',
    and while a pick is open (a key of ``picking`` is shown), only ``picking``'s and ``picking_keeps``'."""

    narrow_below: int = 0
    narrow_hides: frozenset[str] = frozenset()
    picking: frozenset[str] = frozenset()
    picking_keeps: frozenset[str] = frozenset()


class WalkFooter(Footer):
    """Textual's footer; with :attr:`only` set, it shows just those actions' keys (and the palette's), and when
    narrow, compact, the keys its :class:`FooterRules` keep."""

    def __init__(self, rules: FooterRules | None = None, *, id: str | None = None) -> None:
        super().__init__(id=id)
        self.only: frozenset[str] | None = None
        self.rules = rules or FooterRules()
        self.narrow = False
        self._composed: tuple[object, ...] | None = None
        """:meth:`_keys_now` when the keys were last drawn."""

    def show_only(self, actions: Iterable[str] | None) -> None:
        """Show only ``actions``' keys (``None``: every key that asks to be shown)."""
        self.only = frozenset(actions) if actions is not None else None
        self.call_later(self.recompose)  # on this widget's own loop: its keys bind to it

    def bindings_changed(self, screen: Screen[object]) -> None:
        """Textual's footer rebuilds all its keys whenever the screen's bindings may have changed: each focus move,
        each screen pushed or popped, each change of a ``bindings=True`` reactive. This one rebuilds them only when
        the keys it would show differ from those it shows (:meth:`_keys_now`)."""
        self._bindings_ready = True
        if not self.is_attached or screen is not self.screen:
            return
        # Textual's footer waits for the app to have the focus before it draws keys that changed. A served session
        # starts without it (the web driver starts blurred; a headless or background tab never sends "focus"), so a
        # footer wide enough that no resize recomposes it stayed blank: a footer with no keys yet draws them now.
        if screen.app.app_focus or not self.children:
            self.call_after_refresh(self._recompose_if_changed)

    async def _recompose_if_changed(self) -> None:
        if self.is_attached and self._keys_now() != self._composed:
            await self.recompose()

    def _keys_now(self) -> tuple[object, ...] | None:
        """What the keys drawn would be made of now: each active binding and whether it is enabled, and this
        footer's own settings (``None`` until the screen has said its bindings are ready)."""
        if not self._bindings_ready:
            return None
        bindings = tuple((binding.key, binding.action, binding.description, binding.show, enabled, tooltip)
                         for _, binding, enabled, tooltip in self.screen.active_bindings.values())
        return self.only, self.narrow, self.compact, self.show_command_palette, bindings

    def on_resize(self, event: events.Resize) -> None:
        narrow = event.size.width < self.rules.narrow_below
        if narrow != self.narrow:
            self.narrow = narrow
            self.compact = narrow  # keys closer together
            self.call_later(self.recompose)

    def _keeps(self, actions: set[str]) -> Callable[[str], bool]:
        """Which actions' keys to show, of ``actions`` (the footer's keys now)."""
        if self.only is not None:
            only = self.only
            return lambda action: action in only
        rules = self.rules
        if self.narrow and actions & rules.picking:
            picking = rules.picking | rules.picking_keeps
            return lambda action: action in picking
        if self.narrow:
            return lambda action: action not in rules.narrow_hides
        return lambda action: True

    def compose(self) -> ComposeResult:
        self._composed = self._keys_now()
        widgets = list(super().compose())
        actions = {action for widget in widgets if (action := getattr(widget, "action", None)) is not None}
        keeps = self._keeps(actions)
        kept = 0
        for widget in widgets:
            action = getattr(widget, "action", None)  # a key of the footer (FooterKey) names its action
            if widget.has_class("-command-palette") or action is None or keeps(action):
                kept += 1
                yield widget
        self.styles.grid_size_columns = kept  # the footer is a grid of one column per key shown
