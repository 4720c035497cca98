"""Presenting mode's offer: every candidate of the decision on screen, one per line, with a large mark.

``?`` offered (the navigator is choosing), ``✓`` chosen, ``⚑`` forced by a person, ``✗`` not chosen, and an id
the navigator returned that was never offered, in its own colour. Titles are cut short to the width, never
wrapped: a room reads every candidate of the handbook's widest offer at 80×24.
"""

from __future__ import annotations

from typing import ClassVar

from rich.text import Text
from textual import events
from textual.widgets import Static

from ...safe_text import safe, styled
from ...walks.narration import sections
from ...walks.state import WalkState


class OfferCard(Static):
    """Shown from a :class:`WalkState`: its offer and the answer to it (if any)."""

    COMPONENT_CLASSES: ClassVar[set[str]] = {
        "offer--heading",
        "offer--offered",
        "offer--chosen",
        "offer--forced",
        "offer--rejected",
        "offer--hallucinated",
        "offer--dim",
    }

    _shown: tuple[WalkState, str] | None = None
    """The state and hint last shown: a resize shows them again at the new height."""

    def show(self, state: WalkState, *, hint: str = "") -> None:
        """The offer of ``state`` (none: ``hint``, or what the walk is doing)."""
        self._shown = (state, hint)
        style = self.get_component_rich_style
        offer, choice = state.offer, state.choice
        if offer is None:
            self.update(Text(hint or "Next: the navigator's next offer.", style=style("offer--dim")))
            return
        where = "at the top" if offer.current is None else None
        heading = styled(f"Offered {sections(len(offer.candidates))} ", style("offer--heading"))
        if where is None and offer.current is not None:
            heading.append("under ", style=style("offer--heading"))
            heading.append_text(safe(offer.current.title, style("offer--heading"), width=40))
        else:
            heading.append(where or "", style=style("offer--heading"))
        heading.append(f" · {offer.remaining_visits:,} visits left", style=style("offer--dim"))
        rows = [heading]
        chosen = set(choice.selected) if choice is not None else set()
        room = max(1, self.content_size.height - 1) if self.content_size.height else len(offer.candidates)
        candidates = list(offer.candidates)
        ghosts = list(choice.hallucinated) if choice is not None else []
        if len(candidates) + len(ghosts) > room:  # the chosen stay in view; the others are counted
            keep = {c.id for c in candidates if c.id in chosen}
            keep.update(c.id for c in candidates[: max(0, room - 1 - len(keep) - len(ghosts))])
            hidden = [c for c in candidates if c.id not in keep]
            candidates = [c for c in candidates if c.id in keep]
        else:
            hidden = []
        for candidate in candidates:
            if choice is None and state.failure is None:
                mark, kind = " ? ", "offer--offered"
            elif candidate.id in chosen:
                mark, kind = (" ⚑ ", "offer--forced") if state.choice_forced else (" ✓ ", "offer--chosen")
            else:
                mark, kind = " ✗ ", "offer--rejected"
            row = Text(mark, style=style(kind), no_wrap=True, overflow="ellipsis")
            row.append(" ")
            row.append_text(safe(candidate.title, style(kind) if kind != "offer--rejected" else "", width=120))
            rows.append(row)
        for ghost in ghosts:
            row = Text(no_wrap=True, overflow="ellipsis")
            row.append(" ✗ ", style=style("offer--hallucinated"))
            row.append(" ")
            row.append_text(safe(ghost, style("offer--hallucinated"), width=60))
            row.append(" — never offered (hallucinated)", style=style("offer--hallucinated"))
            rows.append(row)
        if hidden:
            rows.append(styled(f"   … and {len(hidden):,} more not chosen", style("offer--dim")))
        if state.failure is not None:
            failed = Text(no_wrap=True, overflow="ellipsis")
            failed.append(" ! ", style=style("offer--hallucinated"))
            failed.append(" the navigator failed: ")
            failed.append_text(safe(state.failure.error, width=200))
            rows.append(failed)
        text = Text("\n").join(rows)
        text.no_wrap, text.overflow = True, "ellipsis"
        self.update(text)

    def on_resize(self, event: events.Resize) -> None:
        """The card's height changed: the candidates that fit are chosen again. A card filled at a taller terminal
        kept every row and ran past its bottom edge, a chosen candidate among those cut."""
        if self._shown is not None:
            state, hint = self._shown
            self.show(state, hint=hint)
