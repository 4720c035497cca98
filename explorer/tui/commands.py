"""The command palette: every action of the explorer, named for what it does (the titles live in the key table)."""

from __future__ import annotations

from collections.abc import Callable, Iterable, Iterator

from textual.app import SystemCommand

from core import OnFailure

from ..safe_text import visible
from ..walks.walk_list import Walk
from .keymap import ALL_KEYS, shown_key

PALETTE_WALKS = 20
"""How many walks the palette offers to switch to: the first ten and the last ten of the list (a folder's
newest, and the walks made in this session); the walk list (w) has them all."""


def palette_commands(walks: Iterable[Walk], run: Callable[[str], None]) -> Iterator[SystemCommand]:
    """One palette entry per action with a palette title (with its key), one per failure policy, one for each of
    at most :data:`PALETTE_WALKS` walks (it built one per walk: 10,000 for a big folder);
    ``run`` runs an action string (``"step('next')"``, ``"walk('switch', 3)"``) on the walk screen."""
    for key in ALL_KEYS:
        if key.palette is None:
            continue

        def action(name: str = key.action) -> None:
            run(name)

        yield SystemCommand(f"{key.palette} · {shown_key(key.keys)}", key.help, action)
    for policy in OnFailure:

        def set_policy(policy: OnFailure = policy) -> None:
            run(f"setting('policy', {policy.value!r})")

        yield SystemCommand(f"Settings: on failure {policy.value}",
                            f"Navigator failures follow the {policy.value} policy", set_policy)
    listed = list(walks)
    half = PALETTE_WALKS // 2  # a folder's newest are first, a session's own walks last; w lists them all
    offered = listed if len(listed) <= PALETTE_WALKS else [*listed[:half], *listed[-half:]]
    for walk in offered:

        def switch(number: int = walk.number) -> None:
            run(f"walk('switch', {number})")

        yield SystemCommand(visible(f"Walks: switch to {walk.name}"), "Show this walk at the step it was left at",
                            switch)
