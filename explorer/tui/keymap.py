"""Every key of the explorer, once: the bindings, the help screen and the command palette are all made from this
table, and each key says when it applies and whether it opens a prompt."""

from __future__ import annotations

from dataclasses import dataclass
from enum import Enum

from textual.actions import parse
from textual.binding import Binding

from .widgets.walk_footer import FooterRules


class When(Enum):
    """When a key applies (the walk screen's ``check_action`` answers for each)."""

    ALWAYS = "always"
    PICKING = "picking"
    """A pick is open: the manual navigator waits for the person, or a fork is being made."""
    FORKING = "forking"
    """A fork's pick is open (Escape closes it)."""
    EVALUATION_BEHIND = "evaluation behind"
    """An evaluation waits behind the walk screen (Escape goes back to it)."""


@dataclass(frozen=True)
class Key:
    keys: str
    action: str
    label: str
    help: str
    id: str
    palette: str | None = None
    """The command palette's title for this action (``None``: not in the palette)."""
    footer: bool = True
    when: When = When.ALWAYS
    prompt: bool = False
    """It opens a one-field prompt: the keys typed right after it belong to that prompt."""
    presenting: bool = False
    """Shown in the footer while presenting (the few keys a room needs; the others still work)."""
    narrow: bool = True
    """Shown in the footer on a narrow screen too (if in the footer at all); the keys left out are in the help."""


WALK_KEYS = (
    Key("n", "step('next')", "Next", "Next step (with no walk yet, starts the first; at the end of a walk, stays "
        "there and says which keys go on: r restarts, / then Enter walks a new query)", "walk.next",
        "Walk: next step", presenting=True),
    Key("c", "step('continue')", "Continue", "Continue to the end of the walk", "walk.continue",
        "Walk: continue to the end"),
    Key("p", "step('play')", "Play", "Play / pause: one step at the pace shown in the meter (demo mode)", "walk.play",
        "Walk: play / pause (demo mode)", presenting=True),
    Key("b", "step('back')", "Back", "Step back through what already happened (no navigator call)", "walk.back",
        "Walk: step back", presenting=True),
    Key("f", "step('forward')", "Fwd", "Step forward through what already happened (no navigator call)", "walk.forward",
        "Walk: step forward", narrow=False),
    Key("x", "walk('cancel')", "Cancel", "Cancel the walk: trips its cancellation token", "walk.cancel",
        "Walk: cancel (trip the cancellation token)"),
    Key("ctrl+c", "walk('interrupt')", "Cancel", "Cancel a running walk, as x does; with none running, say "
        "that q quits (text selected with the mouse is copied instead)", "walk.interrupt", footer=False),
    Key("r", "walk('restart')", "Restart", "Restart with the current query and settings (a new walk in the list)",
        "walk.restart", "Walk: restart with the current settings", narrow=False),
    Key("e", "walk('fork')", "Fork",
        "Fork: answer the decision at this step differently; the walk goes on as a new walk", "walk.fork",
        "Walk: fork — answer the decision at this step differently…"),
    Key("W", "walk('what_if')", "What if", "What if: open the LLM decision at this step — its prompt and settings, "
        "editable — ask it again beside the recorded answer, and fork from the new one", "walk.what_if",
        "Walk: what if the prompt were different — edit this LLM decision's request and ask again…", footer=False),
    Key("D", "walk('compare')", "Compare", "Compare this walk with another of the list, side by side (D again ends it)",
        "walk.compare", "Walks: compare this walk with another, side by side (again: end it)…", narrow=False),
    Key("O", "walk('compare_prompts')", "Prompts", "Comparing two walks: unfold the prompts each walk was offered "
        "and sent where they part (system, user), or fold them again (folded when a comparison starts)",
        "walk.compare_prompts", "Walks: show or fold the prompts of the two walks compared, where they part",
        footer=False),
    Key("w", "walk('switch')", "Walks", "The walks of this session: switch to another (each keeps its step)",
        "walk.switch", "Walks: switch to another walk of this session…", narrow=False),
    Key("slash", "view('query')", "Query", "Edit the query (Enter starts a walk, Escape leaves the box); with a pane "
        "on the whole screen (z), search in it instead (Enter again: the next match)", "query.edit",
        "Query: edit (with a pane on the whole screen: search in it)", narrow=False),
    Key("question_mark", "view('help')", "Help", "This help", "app.help", "Help: keys", presenting=True),
    Key("q", "app.quit", "Quit", "Quit (also during a walk)", "app.quit", presenting=True),
)

MORE_KEYS = (
    Key("B", "step('first')", "First", "Go back to the first step", "walk.first", "Walk: go to the first step",
        footer=False),
    Key("F", "step('latest')", "Latest", "Go forward to the latest step", "walk.latest", "Walk: go to the latest step",
        footer=False),
    Key("j", "step('next_decision')", "Next decision", "Next decision: on to the next answer of the navigator "
        "(through what is recorded, then the live walk's), as n does while presenting", "walk.next_decision",
        "Walk: next decision", footer=False),
    Key("k", "step('previous_decision')", "Prev decision", "Previous decision (no navigator call)",
        "walk.previous_decision", "Walk: previous decision", footer=False),
    Key("l", "step('next_visit')", "Next visit", "Next visit: on to the next node the walk enters", "walk.next_visit",
        "Walk: next visit", footer=False),
    Key("h", "step('previous_visit')", "Prev visit", "Previous visit (no navigator call)", "walk.previous_visit",
        "Walk: previous visit", footer=False),
    Key("u", "step('until')", "Until", "Continue until…: the walk runs on (what is recorded, then live) and pauses "
        "where a condition holds — offered:ID, entered:ID, visits-left:N, wrong-turn:ID (the first wrong turn from "
        "the expected node), never-offered, failure, forced — and says why it paused", "walk.until",
        "Walk: continue until a node is offered or entered, the visits run down, a wrong turn, a failure…",
        footer=False, prompt=True),
    Key("V", "step('budget_stop')", "Budget stop", "Go to the step where the visit budget ran out", "walk.budget_stop",
        "Walk: go to where the visit budget ran out", footer=False),
    Key("R", "walk('rewalk')", "Re-walk",
        "Re-walk this walk with another budget from its recorded decisions (what it never judged: asked live)",
        "walk.rewalk",
        "Walk: re-walk with another budget, from its recorded decisions…", footer=False,
        prompt=True),
    Key("T", "walk('other_policy')", "Other order",
        "Re-walk this walk in the other order (depth-first or best-first) from its recorded decisions, only what it "
        "never judged asked live, and compare the two on one tree: was a miss the navigator's or the walk's?",
        "walk.other_policy", "Walk: re-walk in the other order (depth-first / best-first) and compare", footer=False),
    Key("C", "walk('continue_live')", "Continue live",
        "Continue live from here: this walk's decisions kept up to the step on screen, the live navigator asked "
        "after, with the settings typed (budget=N depth=N policy=P prompt=NAME|FILE temperature=T navigator=MODEL)",
        "walk.continue_live",
        "Walk: continue live from this step (budget, depth, policy, prompt, temperature, navigator)…",
        footer=False, prompt=True),
    Key("plus,equals_sign", "pace(-1)", "Faster", "Play faster", "play.faster", "Play: faster", footer=False),
    Key("minus", "pace(1)", "Slower", "Play slower", "play.slower", "Play: slower", footer=False),
    Key("right_square_bracket", "view('next_tab')", "Next tab", "Next tab: Results, Transcript, Timeline, Node",
        "tabs.next", "Tabs: next (Results, Transcript, Timeline, Node)", footer=False),
    Key("left_square_bracket", "view('previous_tab')", "Prev tab", "Previous tab", "tabs.previous", "Tabs: previous",
        footer=False),
    Key("z", "view('full_screen')", "Full screen", "Full screen: the focused pane (Tab moves the focus: the tree, "
        "the step panel, a tab's content) takes the whole screen, z again gives it back; PageUp, PageDown, Home and "
        "End scroll it, / searches in it", "pane.full_screen",
        "Pane: the focused pane takes the whole screen (again: gives it back)", footer=False),
    Key("y", "view('copy_request')", "Copy request", "Copy the request of the decision at this step (what its "
        "navigator was sent, as the Transcript shows it) to the clipboard, byte for byte", "transcript.copy_request",
        "Transcript: copy this decision's request to the clipboard", footer=False),
    Key("Y", "view('copy_answer')", "Copy answer", "Copy the raw answer of the decision at this step to the "
        "clipboard, byte for byte (JSON as it came, not as it is shown)", "transcript.copy_answer",
        "Transcript: copy this decision's raw answer to the clipboard", footer=False),
    Key("L", "view('more')", "More", "Show more of a long content (Results and Node tabs), 20,000 characters at a "
        "time", "content.more", "Content: show more of a long landed or selected node", footer=False),
    Key("g", "view('find')", "Find", "Find a node by title or id and go to it on the tree", "tree.find",
        "Tree: find a node by title or id…", footer=False),
    Key("I", "view('audit')", "Map audit", "Map audit: the nodes whose title and summary describe their subtree "
        "worst, audited on a worker (the screen stays live), marked △ weak N on the tree and listed (I again opens "
        "the list); Enter on one opens it on the tree", "tree.audit",
        "Map audit: the nodes whose title and summary describe their subtree worst…", footer=False),
    Key("t", "view('follow')", "Follow", "Tree follows the walk on/off", "tree.follow", "Tree: follow the walk on/off",
        footer=False),
    Key("v", "setting('budget')", "Budget", "Set the visit budget", "settings.budget",
        "Settings: set the visit budget…", footer=False, prompt=True),
    Key("d", "setting('depth')", "Depth", "Set the depth limit", "settings.depth", "Settings: set the depth limit…",
        footer=False, prompt=True),
    Key("m", "setting('navigator')", "Navigator", "Switch navigator", "settings.navigator",
        "Settings: switch navigator…", footer=False, prompt=True),
    Key("A", "setting('order')", "Walk order", "Set the walk order of the next walk: depth-first, or best-first "
        "(a frontier by path score; best-first@alpha=0.7 weighs a node's own score)", "settings.order",
        "Settings: set the walk order (depth-first, best-first@alpha=A)…", footer=False, prompt=True),
    Key("o", "setting('policy')", "On failure", "Cycle the failure policy: throw, empty, partial", "settings.policy",
        "Settings: cycle the failure policy (throw, empty, partial)", footer=False),
    Key("ctrl+s", "file('save_trace')", "Save trace", "Save the walk as a trace file", "trace.save",
        "Trace: save the walk as a trace file…", footer=False, prompt=True),
    Key("ctrl+o", "file('open_trace')", "Open trace", "Open a trace and step through it", "trace.open",
        "Trace: open a trace and step through it…", footer=False, prompt=True),
    Key("K", "file('keep_case')", "Keep case", "Keep the case: this walk's query, with the node under the tree's "
        "cursor (g finds one) as its right answer, appended to a question set (the corpus's own by default)",
        "walk.keep_case", "Questions: keep this walk's query as a question, answered by the node on the tree…",
        footer=False, prompt=True),
    Key("M", "file('edit_map')", "Map", "Map: edit a node's title and summary — the node the verdict at this step "
        "names, else the one under the tree's cursor — with a summary suggested from what lies beneath it (and one "
        "written by the walk's LLM, when it has one); kept in a "
        "map variant beside the corpus (maps/NAME.map.yaml), never in the corpus, and walked with from then on",
        "walk.edit_map", "Map: edit this node's title and summary…", footer=False),
    Key("ctrl+e", "file('screenshot')", "Screenshot", "Save an SVG screenshot", "app.screenshot",
        "Screenshot: save an SVG of the screen…", footer=False, prompt=True),
)

PICKER_KEYS = (
    Key("1,2,3,4,5,6,7,8,9", "pick('toggle')", "Pick", "Picker (manual navigator, or a fork): toggle candidate 1-9",
        "manual.toggle", footer=False, when=When.PICKING),
    Key("a", "pick('answer')", "Answer", "Picker: answer with the picked candidates (nothing picked: stop here)",
        "manual.answer", when=When.PICKING),
    Key("s", "pick('stop')", "Stop here", "Picker: choose nothing (stop here)", "manual.stop", when=When.PICKING),
    Key("i", "pick('type_id')", "Type id",
        "Picker: type any id (even one not offered; typed again, it is taken back) or a candidate's number",
        "manual.type", when=When.PICKING, prompt=True),
    Key("escape", "pick('close')", "Close", "Fork picker: close it without forking", "manual.close",
        when=When.FORKING),
)

ANALYSIS_KEYS = (
    Key("S", "walk('stability')", "Stability",
        "Walk the query N times: how often each node is chosen, where walks part", "walk.stability",
        "Stability: walk this query N times…", footer=False, prompt=True),
    Key("E", "walk('evaluate')", "Evaluate", "Evaluate a question set: open any walk at its first wrong turn",
        "eval.open",
        "Evaluate: walk a question set and find where the navigator goes wrong…", footer=False, prompt=True),
    # After the picker's keys: with a fork picker open, Escape closes it first.
    Key("escape", "view('evaluation')", "Evaluation", "Back to the evaluation table (while one is open)",
        "eval.back", "Evaluate: back to the evaluation table", footer=False, when=When.EVALUATION_BEHIND),
)

SHOWING_KEYS = (
    Key("P", "view('present')", "Present",
        "Presenting mode on/off: n, b and p move a decision at a time, said in words", "walk.present",
        "Present: presenting mode on/off (for a room)", presenting=True, narrow=False),
    Key("H", "file('export_html')", "Export HTML",
        "Export the walk as one HTML file that replays it (no server needed)", "walk.export",
        "Export: the walk as one HTML file that replays it…", footer=False, prompt=True),
)
"""Showing a walk to others: in a room, or as a file."""

ALL_KEYS = WALK_KEYS + MORE_KEYS + PICKER_KEYS + ANALYSIS_KEYS + SHOWING_KEYS

WHEN = {(name, args[:1]): key.when for key in ALL_KEYS for _, name, args in [parse(key.action)]}
"""When each action applies, by its name and first argument (``("pick", ("answer",))``: what ``check_action`` is
asked about)."""

PRESENTING_ACTIONS = frozenset(key.action for key in ALL_KEYS if key.presenting)
"""The actions whose keys the footer shows while presenting."""

NARROW_HIDDEN = frozenset(key.action for key in ALL_KEYS if not key.narrow)
"""The actions whose keys the footer leaves out on a screen too narrow for all of them."""

PICKING_ACTIONS = frozenset(key.action for key in PICKER_KEYS if key.footer)
"""The picker's keys in the footer: on a narrow screen, while a pick is open, they are what it shows, with
:data:`PICKING_KEEPS`."""
PICKING_KEEPS = frozenset(key.action for key in ALL_KEYS if key.id in ("walk.cancel", "app.help", "app.quit"))

TOGGLE = "pick('toggle')"
"""The digits' action: each digit's binding adds its number (``pick('toggle', 3)``)."""

PALETTE_CELLS = 14
"""The command palette's key, docked at the footer's right (``▏^p palette``)."""


def footer_rules() -> FooterRules:
    """The walk screen's footer: every key when it fits, else all but :data:`NARROW_HIDDEN`, and while a pick is open
    its keys with :data:`PICKING_KEEPS`."""
    return FooterRules(narrow_below=footer_cells(), narrow_hides=NARROW_HIDDEN, picking=PICKING_ACTIONS,
                       picking_keeps=PICKING_KEEPS)


def footer_cells() -> int:
    """The columns the footer needs to show every key it shows when no pick is open, at Textual's spacing (a key,
    its label and three spaces each), with the palette's key: narrower, it leaves out :data:`NARROW_HIDDEN`."""
    shown = [key for key in ALL_KEYS if key.footer and key.when is When.ALWAYS]
    return sum(len(shown_key(key.keys.split(",")[0])) + len(key.label) + 3 for key in shown) + PALETTE_CELLS


def bindings() -> list[Binding | tuple[str, str] | tuple[str, str, str]]:
    """The walk screen's BINDINGS, every one with an id so keys can be remapped."""
    out: list[Binding | tuple[str, str] | tuple[str, str, str]] = []
    for key in ALL_KEYS:
        if key.action == TOGGLE:
            out.extend(Binding(str(n), f"pick('toggle', {n})", key.label, show=False, id=f"{key.id}.{n}")
                       for n in range(1, 10))
            continue
        out.append(Binding(key.keys, key.action, key.label, show=key.footer, id=key.id))
    return out


def shown_key(keys: str) -> str:
    names = {"slash": "/", "question_mark": "?", "plus": "+", "equals_sign": "=", "minus": "-",
             "left_square_bracket": "[", "right_square_bracket": "]"}
    return " ".join(names.get(k, k) for k in keys.split(","))


PROMPT_KEYS = frozenset(name for key in ALL_KEYS if key.prompt for name in key.keys.split(","))
"""Keys that open a one-field prompt: the keys typed right after one of them belong to that prompt."""
