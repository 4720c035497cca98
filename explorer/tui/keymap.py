"""Every key of the explorer, once: the bindings and the help screen are both made from this table."""

from __future__ import annotations

from dataclasses import dataclass

from textual.binding import Binding


@dataclass(frozen=True)
class Key:
    keys: str
    action: str
    label: str
    help: str
    id: str
    footer: bool = True
    priority: bool = False


WALK_KEYS = (
    Key("n", "next_step", "Next", "Next step (starts a walk when none is running)", "walk.next"),
    Key("c", "continue_walk", "Continue", "Continue to the end of the walk", "walk.continue"),
    Key("p", "play_pause", "Play", "Play / pause: one step at the pace shown in the meter (demo mode)", "walk.play"),
    Key("b", "step_back", "Back", "Step back through what already happened (no navigator call)", "walk.back"),
    Key("f", "step_forward", "Fwd", "Step forward through what already happened (no navigator call)", "walk.forward"),
    Key("x", "cancel_walk", "Cancel", "Cancel the walk: trips its cancellation token", "walk.cancel"),
    Key("r", "restart", "Restart", "Restart with the current query and settings (a new walk in the list)",
        "walk.restart"),
    Key("e", "fork", "Fork", "Fork: answer the decision at this step differently; the walk goes on as a new walk",
        "walk.fork"),
    Key("D", "compare", "Compare", "Compare this walk with another of the list, side by side (D again ends it)",
        "walk.compare"),
    Key("w", "switch_walk", "Walks", "The walks of this session: switch to another (each keeps its step)",
        "walk.switch"),
    Key("slash", "edit_query", "Query", "Edit the query (Enter starts a walk, Escape leaves the box)", "query.edit"),
    Key("question_mark", "help", "Help", "This help", "app.help"),
    Key("q", "quit", "Quit", "Quit (also during a walk)", "app.quit"),
)

MORE_KEYS = (
    Key("B", "first_step", "First", "Go back to the first step", "walk.first", footer=False),
    Key("F", "latest_step", "Latest", "Go forward to the latest step", "walk.latest", footer=False),
    Key("plus,equals_sign", "faster", "Faster", "Play faster", "play.faster", footer=False),
    Key("minus", "slower", "Slower", "Play slower", "play.slower", footer=False),
    Key("right_square_bracket", "next_tab", "Next tab", "Next tab: Results, Transcript, Timeline, Node",
        "tabs.next", footer=False),
    Key("left_square_bracket", "previous_tab", "Prev tab", "Previous tab", "tabs.previous", footer=False),
    Key("L", "more_content", "More", "Show more of a long content (Results and Node tabs), 20,000 characters at a "
        "time", "content.more", footer=False),
    Key("g", "find_node", "Find", "Find a node by title or id and go to it on the tree", "tree.find", footer=False),
    Key("t", "toggle_follow", "Follow", "Tree follows the walk on/off", "tree.follow", footer=False),
    Key("v", "set_budget", "Budget", "Set the visit budget", "settings.budget", footer=False),
    Key("d", "set_depth", "Depth", "Set the depth limit", "settings.depth", footer=False),
    Key("m", "switch_navigator", "Navigator", "Switch navigator", "settings.navigator", footer=False),
    Key("o", "cycle_policy", "On failure", "Cycle the failure policy: throw, empty, partial", "settings.policy",
        footer=False),
    Key("ctrl+s", "save_trace", "Save trace", "Save the walk as a trace file", "trace.save", footer=False),
    Key("ctrl+o", "open_trace", "Open trace", "Open a trace and step through it", "trace.open", footer=False),
    Key("ctrl+e", "save_screenshot", "Screenshot", "Save an SVG screenshot", "app.screenshot", footer=False),
)

PICKER_KEYS = (
    Key("1,2,3,4,5,6,7,8,9", "toggle_candidate", "Pick", "Picker (manual navigator, or a fork): toggle candidate 1-9",
        "manual.toggle", footer=False),
    Key("a", "answer", "Answer", "Picker: answer with the picked candidates (nothing picked: stop here)",
        "manual.answer"),
    Key("s", "stop_here", "Stop here", "Picker: choose nothing (stop here)", "manual.stop"),
    Key("i", "type_id", "Type id", "Picker: type any id (even one not offered) or a candidate's number",
        "manual.type"),
    Key("escape", "close_picker", "Close", "Fork picker: close it without forking", "manual.close"),
)

ANALYSIS_KEYS = (
    Key("S", "stability", "Stability", "Walk the query N times: how often each node is chosen, where walks part",
        "walk.stability", footer=False),
    Key("E", "evaluate", "Evaluate", "Evaluate a question set: open any walk at its first wrong turn", "eval.open",
        footer=False),
    # After the picker's keys: with a fork picker open, Escape closes it first.
    Key("escape", "back_to_evaluation", "Evaluation", "Back to the evaluation table (while one is open)",
        "eval.back", footer=False),
)

ALL_KEYS = WALK_KEYS + MORE_KEYS + PICKER_KEYS + ANALYSIS_KEYS


def bindings() -> list[Binding | tuple[str, str] | tuple[str, str, str]]:
    """The app's BINDINGS, every one with an id so keys can be remapped."""
    out: list[Binding | tuple[str, str] | tuple[str, str, str]] = []
    for key in ALL_KEYS:
        if key.action == "toggle_candidate":
            out.extend(Binding(str(n), f"toggle_candidate({n})", key.label, show=False, id=f"{key.id}.{n}")
                       for n in range(1, 10))
            continue
        out.append(Binding(key.keys, key.action, key.label, show=key.footer, id=key.id, priority=key.priority))
    return out


def shown_key(keys: str) -> str:
    names = {"slash": "/", "question_mark": "?", "plus": "+", "equals_sign": "=", "minus": "-",
             "left_square_bracket": "[", "right_square_bracket": "]"}
    return " ".join(names.get(k, k) for k in keys.split(","))


PROMPT_ACTIONS = frozenset({"set_budget", "set_depth", "switch_navigator", "save_trace", "open_trace",
                            "save_screenshot", "type_id", "stability", "evaluate"})
"""Actions that open a one-field prompt: the keys typed right after one of them belong to that prompt."""
PROMPT_KEYS = frozenset(key for k in ALL_KEYS if k.action in PROMPT_ACTIONS for key in k.keys.split(","))
