"""``py:MODULE:NAME`` and ``py:FILE.py:NAME``: a navigator from the person's own code, through the real entry point
(the console script, whose search path does not hold the current folder unless the provider puts it there)."""

from __future__ import annotations

import json
import re
import subprocess
import sys
import textwrap
from pathlib import Path

import pytest

from core import NavigatorRequest, NodeView
from explorer.navigators import NavigatorConfigError, resolve_navigator, shared_across_threads
from explorer.navigators.python_code import CodeTarget, parse_target
from tests.command_line import run_cli
from tests.samples import SAMPLES

ROOT = Path(__file__).resolve().parents[3]
HANDBOOK = SAMPLES / "handbook.yaml"
QUESTIONS = SAMPLES / "handbook.questions.yaml"
ENTRY = Path(sys.executable).parent / "reasoning-explorer"

NAVIGATORS = '''
from core import NavigatorChoice, TreeNavigator


class FirstOne(TreeNavigator):
    """The first candidate offered, always."""

    def supports(self, model):
        return False  # never asked: the py: id names the object

    def choose(self, request):
        return NavigatorChoice(tuple(c.id for c in request.candidates[:1]), rationale="the first one")


class Picky(TreeNavigator):
    """The candidates whose id holds ``word``: an option handed over as a string."""

    def __init__(self, word, most="2"):
        self.word, self.most = word, int(most)

    def supports(self, model):
        return False

    def choose(self, request):
        ids = [c.id for c in request.candidates if self.word in c.id][: self.most]
        return NavigatorChoice(tuple(ids), rationale=f"ids holding {self.word!r}")


def make(word="refund"):
    return Picky(word, "1")


INSTANCE = FirstOne()


class Unshared(FirstOne):
    shared_across_threads = False


class Raises(TreeNavigator):
    def supports(self, model):
        return False

    def choose(self, request):
        raise RuntimeError("the navigator broke\\nsecond line")


class Garbage(TreeNavigator):
    def supports(self, model):
        return False

    def choose(self, request):
        return 42


def broken_factory():
    raise KeyError("no key here")


def not_a_navigator():
    return "a string"


NUMBER = 3


class NotOne:
    pass
'''


def run(*args: object, cwd: Path = ROOT) -> subprocess.CompletedProcess[str]:
    return run_cli(*args, cwd=cwd, columns=400)  # type: ignore[return-value]


def landed(*args: object, cwd: Path = ROOT) -> list[str]:
    walked = run("walk", HANDBOOK, *args, "--json", cwd=cwd)
    assert walked.returncode == 0, walked.stderr
    return json.loads(walked.stdout)["summary"]["landed"]


def refused(*args: object, cwd: Path = ROOT) -> str:
    walked = run("walk", HANDBOOK, "refunds", *args, cwd=cwd)
    assert walked.returncode == 2, (walked.stdout, walked.stderr)
    assert walked.stdout == ""
    lines = walked.stderr.splitlines()
    assert len(lines) == 1, walked.stderr
    return lines[0]


@pytest.fixture
def code(tmp_path: Path) -> Path:
    """A folder holding ``mynavs.py`` (an importable module once the folder is current) and a file elsewhere."""
    (tmp_path / "mynavs.py").write_text(NAVIGATORS)
    return tmp_path


def test_the_readmes_keyword_navigator_walks_as_py_from_a_file(tmp_path: Path) -> None:
    text = "".join(page.read_text() for page in [ROOT / "README.md", *sorted((ROOT / "docs").glob("*.md"))])
    (block,) = [b for b in re.findall(r"```python\n(.*?)```", text, re.S) if "class KeywordNavigator" in b]
    (tmp_path / "keyword.py").write_text(block.split("strategy = ")[0])  # the class, not the README's own walk
    document = landed("refunds", "--navigator", f"py:{tmp_path / 'keyword.py'}:KeywordNavigator",
                      cwd=tmp_path)
    assert document == ["refunds"]  # Billing's summary says "refunds", and no child of Refunds shares a word


def test_a_class_from_a_module_in_the_current_folder(code: Path) -> None:
    assert landed("how long do refunds take", "--navigator", "py:mynavs:FirstOne", cwd=code) == ["password-sign-in"]


def test_a_file_by_a_relative_path_and_the_object_kinds(code: Path) -> None:
    (code / "sub").mkdir()
    (code / "sub" / "navs.py").write_text(NAVIGATORS)
    assert landed("q", "--navigator", "py:sub/navs.py:INSTANCE", cwd=code) == ["password-sign-in"]
    assert landed("q", "--navigator", "py:sub/navs.py:make@word=billing", cwd=code) == ["billing"]


def test_loading_a_navigator_writes_no_compiled_module_beside_it(code: Path,
                                                                 monkeypatch: pytest.MonkeyPatch) -> None:
    """Python writes ``__pycache__`` beside what it imports; the explorer only reads the user's folder, so a file or
    a module named by ``py:`` leaves none, even where Python would write one."""
    monkeypatch.setattr(sys, "dont_write_bytecode", False)
    (code / "sub").mkdir()
    (code / "sub" / "navs.py").write_text(NAVIGATORS)
    assert landed("q", "--navigator", "py:mynavs:FirstOne", cwd=code) == ["password-sign-in"]
    assert landed("q", "--navigator", "py:sub/navs.py:INSTANCE", cwd=code) == ["password-sign-in"]
    assert sorted(p.relative_to(code).as_posix() for p in code.rglob("*")) == ["mynavs.py", "sub", "sub/navs.py"]
    assert sys.dont_write_bytecode is False  # as it was


def test_options_after_at_are_handed_to_the_class_as_strings(code: Path) -> None:
    assert landed("q", "--navigator", "py:mynavs:Picky@word=-,most=1", cwd=code) == landed(
        "q", "--navigator", "py:mynavs:Picky@most=1,word=-", cwd=code) == ["deleted-items"]  # data-privacy, then one child a level
    assert landed("q", "--navigator", "py:mynavs:Picky@word=billing", cwd=code) == ["billing"]
    assert landed("q", "--navigator", "py:mynavs:make", cwd=code) == []  # no root's id holds "refund"


def test_what_goes_wrong_is_one_line_and_exit_2(code: Path, tmp_path: Path) -> None:
    (code / "raising.py").write_text("import json\nraise ImportError('cannot reach the vector store\\nmore')\n")
    (code / "syntax.py").write_text("def (:\n")
    assert refused("--navigator", "py:nowhere_at_all:X", cwd=code) == (
        "reasoning-explorer: error: navigator 'py:nowhere_at_all:X': module 'nowhere_at_all' does not import: "
        "ModuleNotFoundError: No module named 'nowhere_at_all'")
    assert refused("--navigator", "py:raising:X", cwd=code) == (
        "reasoning-explorer: error: navigator 'py:raising:X': module 'raising' does not import: "
        "ImportError: cannot reach the vector store")
    assert refused("--navigator", "py:syntax.py:X", cwd=code).startswith(
        "reasoning-explorer: error: navigator 'py:syntax.py:X': 'syntax.py' does not import: SyntaxError: ")
    assert refused("--navigator", "py:missing.py:X", cwd=code) == (
        "reasoning-explorer: error: navigator 'py:missing.py:X': no such file 'missing.py'; give the path of a .py file "
        "(relative to the current folder) or an importable module name")
    assert refused("--navigator", "py:mynavs:Nope", cwd=code) == (
        "reasoning-explorer: error: navigator 'py:mynavs:Nope': 'mynavs' has no 'Nope'; name a navigator class, a "
        "factory or an instance defined there")
    assert refused("--navigator", "py:mynavs:NUMBER", cwd=code) == (
        "reasoning-explorer: error: navigator 'py:mynavs:NUMBER': 'NUMBER' is a int, not a core.TreeNavigator subclass, "
        "a factory or an instance")
    assert refused("--navigator", "py:mynavs:NotOne", cwd=code) == (
        "reasoning-explorer: error: navigator 'py:mynavs:NotOne': 'NotOne' is the class NotOne, which is not a "
        "core.TreeNavigator subclass")
    assert refused("--navigator", "py:mynavs:not_a_navigator", cwd=code) == (
        "reasoning-explorer: error: navigator 'py:mynavs:not_a_navigator': 'not_a_navigator' returned a str, not a "
        "core.TreeNavigator")
    assert refused("--navigator", "py:mynavs:broken_factory", cwd=code) == (
        "reasoning-explorer: error: navigator 'py:mynavs:broken_factory': making 'broken_factory' raised "
        "KeyError: 'no key here'")
    assert refused("--navigator", "py:mynavs:Picky", cwd=code) == (
        "reasoning-explorer: error: navigator 'py:mynavs:Picky': making 'Picky' raised TypeError: "
        "Picky.__init__() missing 1 required positional argument: 'word'")
    assert refused("--navigator", "py:mynavs:INSTANCE@a=1", cwd=code) == (
        "reasoning-explorer: error: navigator 'py:mynavs:INSTANCE@a=1': 'INSTANCE' is a navigator instance and takes no "
        "options; name its class or a factory to hand it options")
    assert refused("--navigator", "py:mynavs:Picky@word", cwd=code) == (
        "reasoning-explorer: error: navigator 'py:mynavs:Picky@word': option 'word' is not key=value (a key is a Python "
        "name; options are separated by commas)")
    assert refused("--navigator", "py:mynavs", cwd=code) == (
        "reasoning-explorer: error: navigator 'py:mynavs': write py:MODULE:NAME or py:path/to/file.py:NAME, where NAME is "
        "a navigator class, a factory or an instance in that module (options after @: py:MODULE:NAME@key=value)")


def test_a_navigator_that_raises_or_answers_garbage_is_a_navigator_failure(code: Path) -> None:
    walked = run("walk", HANDBOOK, "q", "--navigator", "py:mynavs:Raises", "--on-failure", "partial", "--json",
                 cwd=code)
    assert walked.returncode == 0, walked.stderr
    document = json.loads(walked.stdout)
    assert document["summary"]["landed"] == []
    assert [(s["reason"], s["detail"]) for s in document["stops"]] == [
        ("navigator_failed", "RuntimeError: the navigator broke second line")]
    thrown = run("walk", HANDBOOK, "q", "--navigator", "py:mynavs:Garbage", cwd=code)
    assert thrown.returncode == 1
    assert ("Why: navigator 'py:mynavs:Garbage' failed choosing among the roots: TypeError: expected an iterable "
            "of node ids, got 42 (int)") in thrown.stdout.splitlines()
    assert "Traceback" not in thrown.stderr


BASE_EXCEPTIONS = '''
import asyncio

from core import NavigatorChoice, TreeNavigator


class Own(BaseException):
    pass


class SecondCallRaises(TreeNavigator):
    """Billing at the roots; then ``RAISED``, which is not an ``Exception``."""

    RAISED = BaseException

    def supports(self, model):
        return False

    def choose(self, request):
        if request.current is None:
            return NavigatorChoice(("billing",), rationale="billing")
        raise self.RAISED("at billing")


class Cancelled(SecondCallRaises):
    RAISED = asyncio.CancelledError


class Closing(SecondCallRaises):
    RAISED = GeneratorExit


class Custom(SecondCallRaises):
    RAISED = Own
'''


@pytest.mark.parametrize("name", ["Cancelled", "Closing", "Custom"])
def test_a_navigator_raising_a_base_exception_fails_as_on_failure_says(tmp_path: Path, name: str) -> None:
    """asyncio.CancelledError, GeneratorExit or the code's own BaseException from choose() was a traceback and exit 1,
    whatever --on-failure said (core never catches a BaseException): from a person's code it is a failure of the
    navigator like any other. Under partial the walk lands where it was; under throw it fails in words."""
    (tmp_path / "raising.py").write_text(BASE_EXCEPTIONS)
    raised = {"Cancelled": "CancelledError", "Closing": "GeneratorExit", "Custom": "Own"}[name]
    partial = run("walk", HANDBOOK, "refunds", "--navigator", f"py:raising.py:{name}", "--on-failure", "partial",
                  "--json", cwd=tmp_path)
    assert (partial.returncode, partial.stderr) == (0, "")
    document = json.loads(partial.stdout)
    assert document["summary"]["landed"] == ["billing"]
    assert [(s["reason"], s["path"], s["landed"], s["detail"]) for s in document["stops"]] == [
        ("navigator_failed", ["billing"], "billing", f"RuntimeError: the navigator raised {raised}: at billing")]
    thrown = run("walk", HANDBOOK, "refunds", "--navigator", f"py:raising.py:{name}", cwd=tmp_path)
    assert (thrown.returncode, thrown.stderr) == (1, "")
    assert thrown.stdout.splitlines()[-1] == (
        f"Why: navigator 'py:raising.py:{name}' failed choosing among the children of 'billing': "
        f"RuntimeError: the navigator raised {raised}: at billing")


def test_eval_compares_a_py_navigator_with_a_shipped_one(code: Path) -> None:
    evaluated = run("eval", QUESTIONS, "--navigator", "lexical:default", "--compare", "py:mynavs:FirstOne",
                    "--json", cwd=code)
    assert evaluated.returncode in (0, 1), evaluated.stderr
    document = json.loads(evaluated.stdout)
    assert document["navigator"] == "lexical:default"
    assert document["compare"]["navigator"] == "py:mynavs:FirstOne"


def test_files_off_refuses_every_py_id_before_any_code_runs(tmp_path: Path) -> None:
    canary = tmp_path / "ran"
    (tmp_path / "side_effect.py").write_text(f"open({str(canary)!r}, 'w').write('ran')\n")
    with pytest.raises(NavigatorConfigError, match="reads a file on this machine, and files are off"):
        resolve_navigator(f"py:{tmp_path / 'side_effect.py'}:X", allow_files=False)
    assert not canary.exists()


def test_the_code_is_loaded_once_and_says_whether_it_may_be_shared(code: Path) -> None:
    path = code / "mynavs.py"
    navigator = resolve_navigator(f"py:{path}:Unshared")
    assert shared_across_threads(navigator) is False
    assert shared_across_threads(resolve_navigator(f"py:{path}:FirstOne")) is True
    offer = NavigatorRequest("q", f"py:{path}:Unshared", None, (NodeView("a", "A"), NodeView("b", "B")), 5)
    assert navigator.choose(offer).selected == ("a",)
    assert navigator.navigator(f"py:{path}:Unshared") is navigator.navigator(f"py:{path}:Unshared")


def test_parse_target_splits_where_name_and_options() -> None:
    assert parse_target("py:pkg.mod:Nav") == CodeTarget("pkg.mod", "Nav")
    assert parse_target("py:a@b/nav.py:make@url=http://x:1/v1,k=") == CodeTarget(
        "a@b/nav.py", "make", (("url", "http://x:1/v1"), ("k", "")))
    assert parse_target("py:mod:Outer.inner").name == "Outer.inner"
    assert parse_target("py:nav.py:X").is_file and not parse_target("py:nav:X").is_file
    with pytest.raises(NavigatorConfigError, match="option 'a' is given twice"):
        parse_target("py:m:X@a=1,a=2")


def test_two_files_of_the_same_name_do_not_collide(tmp_path: Path) -> None:
    for name, pick in (("one", "first"), ("two", "second")):
        (tmp_path / name).mkdir()
        (tmp_path / name / "nav.py").write_text(textwrap.dedent(f"""
            from core import TreeNavigator
            class Nav(TreeNavigator):
                def supports(self, model): return False
                def choose(self, request): return ["{pick}"]
        """))
    offer = NavigatorRequest("q", "m", None, (NodeView("first", "F"), NodeView("second", "S")), 5)
    one = resolve_navigator(f"py:{tmp_path / 'one' / 'nav.py'}:Nav")
    two = resolve_navigator(f"py:{tmp_path / 'two' / 'nav.py'}:Nav")
    assert list(one.choose(NavigatorRequest("q", f"py:{tmp_path / 'one' / 'nav.py'}:Nav", None,
                                            offer.candidates, 5))) == ["first"]
    assert list(two.choose(NavigatorRequest("q", f"py:{tmp_path / 'two' / 'nav.py'}:Nav", None,
                                            offer.candidates, 5))) == ["second"]
