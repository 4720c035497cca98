"""The command palette: every action of the explorer, named for what it does."""

from __future__ import annotations

from collections.abc import Iterator
from typing import TYPE_CHECKING

from textual.app import SystemCommand

from core import OnFailure

from ..safe_text import visible
from .keymap import ALL_KEYS, shown_key

if TYPE_CHECKING:
    from .app import ExplorerApp

PALETTE_TITLES = {
    "next_step": "Walk: next step",
    "continue_walk": "Walk: continue to the end",
    "play_pause": "Walk: play / pause (demo mode)",
    "step_back": "Walk: step back",
    "step_forward": "Walk: step forward",
    "cancel_walk": "Walk: cancel (trip the cancellation token)",
    "restart": "Walk: restart with the current settings",
    "fork": "Walk: fork — answer the decision at this step differently…",
    "switch_walk": "Walks: switch to another walk of this session…",
    "compare": "Walks: compare this walk with another, side by side (again: end it)…",
    "next_tab": "Tabs: next (Results, Transcript, Timeline, Node)",
    "previous_tab": "Tabs: previous",
    "edit_query": "Query: edit",
    "first_step": "Walk: go to the first step",
    "latest_step": "Walk: go to the latest step",
    "faster": "Play: faster",
    "slower": "Play: slower",
    "toggle_follow": "Tree: follow the walk on/off",
    "find_node": "Tree: find a node by title or id…",
    "more_content": "Content: show more of a long landed or selected node",
    "set_budget": "Settings: set the visit budget…",
    "set_depth": "Settings: set the depth limit…",
    "switch_navigator": "Settings: switch navigator…",
    "cycle_policy": "Settings: cycle the failure policy (throw, empty, partial)",
    "save_trace": "Trace: save the walk as a trace file…",
    "open_trace": "Trace: open a trace and step through it…",
    "save_screenshot": "Screenshot: save an SVG of the screen…",
    "help": "Help: keys",
    "stability": "Stability: walk this query N times…",
    "evaluate": "Evaluate: walk a question set and find where the navigator goes wrong…",
    "back_to_evaluation": "Evaluate: back to the evaluation table",
}


def explorer_commands(app: ExplorerApp) -> Iterator[SystemCommand]:
    """One palette entry per action, with its key."""
    for key in ALL_KEYS:
        title = PALETTE_TITLES.get(key.action)
        if title is None:
            continue
        action = key.action

        def run(action: str = action) -> None:
            app.run_action_now(action)

        yield SystemCommand(f"{title} · {shown_key(key.keys)}", key.help, run)
    for policy in OnFailure:

        def set_policy(policy: OnFailure = policy) -> None:
            app.set_policy(policy)

        yield SystemCommand(f"Settings: on failure {policy.value}",
                            f"Navigator failures follow the {policy.value} policy", set_policy)
    for history in app.walks:

        def switch(number: int = history.number) -> None:
            app.switch_to(number)

        yield SystemCommand(visible(f"Walks: switch to {history.name}"), "Show this walk at the step it was left at",
                            switch)
