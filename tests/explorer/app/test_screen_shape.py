"""The walk screen and the evaluation screen stay screens that own their actions: few methods, few that only forward,
and parts that are handed what they need (a part's protocol names at most a handful of the screen's members, and
never another part), each screen one folder of its own.

Read from the source, as the import contracts are: what the numbers guard is the code a maintainer opens."""

from __future__ import annotations

import ast
import tomllib
from pathlib import Path

import pytest
from textual.actions import parse

import explorer.tui
from explorer.corpora import load_corpus
from explorer.navigators import resolve_navigator
from explorer.tui.keymap import ALL_KEYS
from explorer.tui.walk_screen import WalkScreen
from explorer.tui.walk_screen.stepping import MOVES
from explorer.walk_settings import WalkSettings
from explorer.walks.walk_list import WalkList
from tests.samples import SAMPLES

ROOT = Path(__file__).resolve().parents[3]

TUI = Path(explorer.tui.__file__).parent
PARTS = ("Stepping", "Picking", "WalkRunner", "Rewalking", "Comparing", "Presenter", "OpeningWalks", "Listening",
         "NextWalk", "WalkFiles", "WalkExport", "AskingAgain")
"""The walk screen's parts (README, "How the code is laid out")."""


SCREENS = {"WalkScreen": "walk_screen", "EvaluationScreen": "evaluation_screen"}
"""Each screen in the walk screen's shape, and its folder (``FOLDER/screen.py``, its parts beside it)."""


def screen_class(name: str = "WalkScreen") -> ast.ClassDef:
    tree = ast.parse((TUI / SCREENS[name] / "screen.py").read_text(encoding="utf-8"))
    return next(node for node in tree.body if isinstance(node, ast.ClassDef) and node.name == name)


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


@pytest.mark.parametrize("name", sorted(SCREENS))
def test_each_screen_has_at_most_40_methods_and_10_forwarders(name: str) -> None:
    defined = methods(screen_class(name))
    forwarders = [method.name for method in defined if forwards(method)]
    assert len(defined) <= 40, [method.name for method in defined]
    assert len(forwarders) <= 10, forwarders


@pytest.mark.parametrize("name", sorted(SCREENS))
def test_each_screen_is_a_folder_of_its_own_with_its_parts_under_a_layer_contract(name: str) -> None:
    """The screen's module and its parts live in one folder, which no other screen's module shares, and the
    folder's layers are a contract of its own in pyproject.toml (the screen over its parts)."""
    folder = TUI / SCREENS[name]
    parts = {path.stem for path in folder.glob("*.py")} - {"__init__", "screen"}
    assert parts  # the screen has parts of its own
    contracts = tomllib.loads((ROOT / "pyproject.toml").read_text(encoding="utf-8"))["tool"]["importlinter"]
    (contract,) = [c for c in contracts["contracts"] if c.get("containers") == [f"explorer.tui.{SCREENS[name]}"]]
    layered = {module.strip() for layer in contract["layers"] for module in layer.split("|")}
    assert contract["layers"][0] == "screen" and layered == parts | {"screen"}
    defining = [path.relative_to(TUI).as_posix() for path in sorted(TUI.rglob("*.py"))
                if any(isinstance(node, ast.ClassDef) and node.name == name
                       for node in ast.parse(path.read_text(encoding="utf-8")).body)]
    assert defining == [f"{SCREENS[name]}/screen.py"]  # the screen is made in its folder, and nowhere else


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


def test_the_walk_screen_is_what_its_protocols_say():
    """A protocol the screen is handed as (the export's ``WalkView``) names only what the screen has: a member it
    lost would fail at a key press, not at type-checking time."""
    screen = WalkScreen(load_corpus(SAMPLES / "handbook.yaml"), WalkList(), WalkSettings(""),
                        resolve_navigator("lexical:default"))
    has = set(dir(screen))
    missing = {}
    for where, protocol in protocols():
        if protocol.name in ("Host", "WalkView"):
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


# -- the guard of the house: parts handed what they need, one redraw --------------------------------------------------


def part_modules() -> list[Path]:
    return [path for path in sorted((TUI / "walk_screen").glob("*.py")) if path.name not in ("screen.py", "__init__.py")]


def test_no_part_is_handed_the_screen():
    """Each part is made with what it uses (the shown walk, a stage of three calls, collaborators by name): none
    keeps the screen itself, whatever the annotation says. Read off a screen as made, attribute by attribute, into
    what each part holds (a bound method or a lambda may call the screen: it does not hand it over)."""
    screen = WalkScreen(load_corpus(SAMPLES / "handbook.yaml"), WalkList(), WalkSettings(""),
                        resolve_navigator("lexical:default"))
    parts = {name: value for name, value in vars(screen).items()
             if type(value).__module__.startswith("explorer.tui.walk_screen.")}
    assert {type(part).__name__ for part in parts.values()} >= set(PARTS)  # the walk: none is missed by a rename

    def holds_the_screen(value: object, seen: set[int]) -> bool:
        if value is screen:
            return True
        if id(value) in seen or (not hasattr(value, "__dict__") and not hasattr(value, "__dataclass_fields__")):
            return False
        seen.add(id(value))
        if not type(value).__module__.startswith("explorer."):
            return False  # a widget, a corpus's parts, a navigator: not ours to read into
        inner = vars(value) if hasattr(value, "__dict__") else {f: getattr(value, f)
                                                               for f in value.__dataclass_fields__}
        return any(holds_the_screen(each, seen) for each in inner.values())

    holding = sorted(name for name, part in parts.items() if holds_the_screen(part, set()))
    assert holding == []


def test_no_part_takes_a_screen_or_a_widget_to_reach_into():
    """Read from the source: no constructor of a part is annotated with the screen, a ``Screen`` or a ``Widget``
    (the widgets a part fills are named by their own class), and no part's protocol is the screen's."""
    taking = []
    for path in part_modules():
        for node in ast.walk(ast.parse(path.read_text(encoding="utf-8"))):
            if isinstance(node, ast.FunctionDef) and node.name == "__init__":
                for argument in [*node.args.args, *node.args.kwonlyargs]:
                    names = {n.id for n in ast.walk(argument.annotation)
                             if isinstance(n, ast.Name)} if argument.annotation else set()
                    if names & {"WalkScreen", "Screen", "Widget", "Host"}:
                        taking.append(f"{path.name}:{node.lineno} {argument.arg}: {ast.unparse(argument.annotation)}")
    assert taking == []


def test_nothing_outside_the_screen_calls_its_redraw():
    """A part moves the shown walk and the screen redraws (it watches the walk): no module but the screen's calls
    a redraw, and ``walk_changed`` (the call parts used to have to remember) is gone."""
    calling = []
    for path in sorted((ROOT / "explorer").rglob("*.py")):
        if path == TUI / "walk_screen" / "screen.py":
            continue
        for node in ast.walk(ast.parse(path.read_text(encoding="utf-8"))):
            if isinstance(node, ast.Call) and isinstance(node.func, ast.Attribute) and node.func.attr in (
                    "redraw", "walk_changed", "_schedule_render", "_view_changed"):
                calling.append(f"{path.relative_to(ROOT)}:{node.lineno} {node.func.attr}")
    assert calling == []


def test_the_app_reaches_no_part_of_the_walk_screen():
    """The app talks to the walk screen through its own methods (``open_history``, ``evaluate``, ``pause``,
    ``close_walks``…), never to one of its parts."""
    screen = WalkScreen(load_corpus(SAMPLES / "handbook.yaml"), WalkList(), WalkSettings(""),
                        resolve_navigator("lexical:default"))
    part_names = {name for name, value in vars(screen).items()
                  if type(value).__module__.startswith("explorer.tui.walk_screen.")} | {"view"}
    reached = []
    for path in sorted(TUI.glob("*.py")):
        for node in ast.walk(ast.parse(path.read_text(encoding="utf-8"))):
            if (isinstance(node, ast.Attribute) and isinstance(node.value, ast.Attribute)
                    and node.value.attr == "walk_screen" and node.attr in part_names):
                reached.append(f"{path.name}:{node.lineno} walk_screen.{node.attr}")
    assert part_names >= {"runner", "next_walk", "files", "export", "comparing_walks"}
    assert reached == []
