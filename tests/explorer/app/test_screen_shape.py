"""The walk screen stays a screen that owns its actions: few methods, few that only forward, and parts that are
handed what they need (a part's protocol names at most a handful of the screen's members, and never another part).

Read from the source, as the import contracts are: what the numbers guard is the code a maintainer opens."""

from __future__ import annotations

import ast
from pathlib import Path

from textual.actions import parse

import explorer.tui
from explorer.corpora import load_corpus
from explorer.navigators import resolve_navigator
from explorer.tui.keymap import ALL_KEYS
from explorer.tui.walk_screen import WalkScreen
from explorer.tui.walk_screen.stepping import MOVES
from explorer.walk_settings import WalkSettings
from explorer.walks.walk_list import WalkList

ROOT = Path(__file__).resolve().parents[3]

TUI = Path(explorer.tui.__file__).parent
PARTS = ("Stepping", "Picking", "WalkRunner", "Rewalking", "Comparing", "Presenter", "OpeningWalks", "Listening",
         "NextWalk", "WalkFiles", "WalkExport", "AskingAgain")
"""The walk screen's parts (README, "How the code is laid out")."""


def screen_class() -> ast.ClassDef:
    tree = ast.parse((TUI / "walk_screen" / "screen.py").read_text(encoding="utf-8"))
    return next(node for node in tree.body if isinstance(node, ast.ClassDef) and node.name == "WalkScreen")


def methods(cls: ast.ClassDef) -> list[ast.FunctionDef | ast.AsyncFunctionDef]:
    return [node for node in cls.body if isinstance(node, (ast.FunctionDef, ast.AsyncFunctionDef))]


def forwards(method: ast.FunctionDef | ast.AsyncFunctionDef) -> bool:
    """Whether the method's body (past its docstring) is one call and nothing else."""
    body = method.body
    if body and isinstance(body[0], ast.Expr) and isinstance(body[0].value, ast.Constant):
        body = body[1:]
    return len(body) == 1 and isinstance(body[0], (ast.Expr, ast.Return)) and isinstance(body[0].value, ast.Call)


def protocols() -> list[tuple[str, ast.ClassDef]]:
    found = []
    for path in sorted(TUI.rglob("*.py")):
        for node in ast.walk(ast.parse(path.read_text(encoding="utf-8"))):
            if isinstance(node, ast.ClassDef) and any(
                    isinstance(base, ast.Name) and base.id == "Protocol" for base in node.bases):
                found.append((f"{path.relative_to(TUI)}:{node.lineno} {node.name}", node))
    return found


def members(protocol: ast.ClassDef) -> list[ast.stmt]:
    return [node for node in protocol.body if isinstance(node, (ast.FunctionDef, ast.AsyncFunctionDef, ast.AnnAssign))]


def test_the_walk_screen_has_at_most_40_methods_and_10_forwarders() -> None:
    defined = methods(screen_class())
    forwarders = [method.name for method in defined if forwards(method)]
    assert len(defined) <= 40, [method.name for method in defined]
    assert len(forwarders) <= 10, forwarders


def test_no_protocol_of_the_screen_has_more_than_8_members() -> None:
    found = protocols()
    assert found  # the walk: a rename must not make this test vacuous
    too_big = {where: len(members(protocol)) for where, protocol in found if len(members(protocol)) > 8}
    assert too_big == {}


def test_no_protocol_reaches_a_part_through_the_screen() -> None:
    """A part that needs another is handed it when it is made; no protocol names one as the screen's member."""
    reaching = {}
    for where, protocol in protocols():
        named = {node.id for member in members(protocol) for node in ast.walk(member) if isinstance(node, ast.Name)}
        named |= {node.value for member in members(protocol) for node in ast.walk(member)
                  if isinstance(node, ast.Constant) and isinstance(node.value, str)}
        if named & set(PARTS):
            reaching[where] = sorted(named & set(PARTS))
    assert reaching == {}


def test_the_walk_screen_is_what_its_parts_protocols_say():
    """A protocol the screen is handed as (a part's ``Host``, the ``ShownWalk`` view, the export's ``WalkView``)
    names only what the screen has: a member it lost would fail at a key press, not at type-checking time."""
    screen = WalkScreen(load_corpus(ROOT / "sample_corpora" / "handbook.yaml"), WalkList(), WalkSettings(""),
                        resolve_navigator("lexical:default"))
    has = set(dir(screen))
    missing = {}
    for where, protocol in protocols():
        if protocol.name in ("Host", "ShownWalk", "WalkView"):
            names = {node.name if isinstance(node, (ast.FunctionDef, ast.AsyncFunctionDef)) else node.target.id
                     for node in members(protocol)}
            if names - has:
                missing[where] = sorted(names - has)
    assert missing == {}


def cases(module: str, function: str) -> set[object]:
    """The literal patterns of the ``match`` in ``function`` of ``module`` (``screen``: a method of the
    screen)."""
    tree = ast.parse((TUI / "walk_screen" / f"{module}.py").read_text(encoding="utf-8"))
    found: set[object] = set()
    for node in ast.walk(tree):
        if isinstance(node, (ast.FunctionDef, ast.AsyncFunctionDef)) and node.name == function:
            for pattern in ast.walk(node):
                if isinstance(pattern, ast.MatchValue) and isinstance(pattern.value, ast.Constant):
                    found.add(pattern.value.value)
    return found


def test_every_key_names_an_action_of_the_walk_screen_and_a_case_it_handles() -> None:
    handled = {"step": set(MOVES), "pick": cases("picker", "take")} | {
        name: cases("screen", f"action_{name}") for name in ("walk", "setting", "file", "view")}
    for key in ALL_KEYS:
        namespace, name, arguments = parse(key.action)
        if namespace == "app":
            continue
        assert callable(getattr(WalkScreen, f"action_{name}", None)), key.action
        if name in handled:
            assert arguments[0] in handled[name], key.action
