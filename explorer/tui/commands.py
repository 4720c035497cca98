"""The command palette: every action of the explorer, named for what it does (the titles live in the key table)."""

from __future__ import annotations

from collections.abc import Callable, Iterable, Iterator

from textual.app import SystemCommand

from core import OnFailure

from ..safe_text import visible
from ..walks.walk_list import Walk
from .keymap import ALL_KEYS, shown_key


def palette_commands(walks: Iterable[Walk], run: Callable[[str], None]) -> Iterator[SystemCommand]:
    """One palette entry per action with a palette title (with its key), one per failure policy, one per walk;
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
    for walk in walks:

        def switch(number: int = walk.number) -> None:
            run(f"walk('switch', {number})")

        yield SystemCommand(visible(f"Walks: switch to {walk.name}"), "Show this walk at the step it was left at",
                            switch)
