"""The walk screen stays a screen that owns its actions: few methods, few that only forward, and parts that are
handed what they need (a part's protocol names at most a handful of the screen's members, and never another part).

Read from the source, as the import contracts are: what the numbers guard is the code a maintainer opens."""

from __future__ import annotations

import ast
from pathlib import Path

from textual.actions import parse

import explorer.tui
from explorer.tui.keymap import ALL_KEYS
from explorer.tui.stepping import MOVES
from explorer.tui.walk_screen import WalkScreen

TUI = Path(explorer.tui.__file__).parent
PARTS = ("Stepping", "Picking", "WalkRunner", "Rewalking", "Comparing", "Presenter", "OpeningWalks", "Listening",
         "NextWalk", "WalkFiles", "WalkExport", "AskingAgain")
"""The walk screen's parts (README, "How the code is laid out")."""


def screen_class() -> ast.ClassDef:
    tree = ast.parse((TUI / "walk_screen.py").read_text(encoding="utf-8"))
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


def test_every_key_names_an_action_of_the_walk_screen() -> None:
    for key in ALL_KEYS:
        namespace, name, arguments = parse(key.action)
        if namespace == "app":
            continue
        assert callable(getattr(WalkScreen, f"action_{name}", None)), key.action
        if name == "step":
            assert arguments[0] in MOVES, key.action
