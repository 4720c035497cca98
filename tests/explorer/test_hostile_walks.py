"""Hostile code and hostile span files, through the real command line: each is one line (or a navigator failure
judged by ``--on-failure``), never a traceback and never the explorer's own exit. (test_python_code.py and
test_span_walks.py hold the other cases: a module raising ImportError, a factory raising, Raises and Garbage during
a walk, a span file cut in the middle of a line, spans from another program.)"""

from __future__ import annotations

import json
import subprocess
import sys
from pathlib import Path

import pytest

from tests.command_line import run_cli
from tests.samples import SAMPLES

ROOT = Path(__file__).resolve().parents[2]
HANDBOOK = SAMPLES / "handbook.yaml"
ENTRY = Path(sys.executable).parent / "reasoning-explorer"

CODE = '''
import sys

from core import NavigatorChoice, TreeNavigator


class Base(TreeNavigator):
    def supports(self, model):
        return False


class ExitsWhileChoosing(Base):
    def choose(self, request):
        sys.exit(4)


class ExitsWhenMade(Base):
    def __init__(self):
        sys.exit("no model file")

    def choose(self, request):
        return NavigatorChoice(())


class OSErrorWhenMade(Base):
    def __init__(self):
        raise OSError("cannot open the model file")

    def choose(self, request):
        return NavigatorChoice(())


class AnswersNone(Base):
    def choose(self, request):
        return None


class AnswersAString(Base):
    def choose(self, request):
        return NavigatorChoice("billing")


class AnswersUnoffered(Base):
    def choose(self, request):
        return NavigatorChoice(("no-such-node",))
'''


def run(*args: object, cwd: Path = ROOT) -> subprocess.CompletedProcess[str]:
    return run_cli(*args, cwd=cwd, columns=400)  # type: ignore[return-value]


@pytest.fixture(scope="module")
def code(tmp_path_factory: pytest.TempPathFactory) -> Path:
    folder = tmp_path_factory.mktemp("code")
    (folder / "hostile.py").write_text(CODE)
    (folder / "exits_on_import.py").write_text("import sys\nsys.exit(3)\n")
    (folder / "raises_on_import.py").write_text("raise RuntimeError('config missing: VECTOR_URL\\nmore')\n")
    return folder


@pytest.mark.parametrize(("model", "said"), [
    ("py:exits_on_import:X", "module 'exits_on_import' does not import: SystemExit: sys.exit(3) was called"),
    ("py:exits_on_import.py:X", "'exits_on_import.py' does not import: SystemExit: sys.exit(3) was called"),
    ("py:raises_on_import:X", "module 'raises_on_import' does not import: RuntimeError: config missing: VECTOR_URL"),
    ("py:hostile:ExitsWhenMade", "making 'ExitsWhenMade' raised SystemExit: sys.exit('no model file') was called"),
    ("py:hostile:OSErrorWhenMade", "making 'OSErrorWhenMade' raised OSError: cannot open the model file"),
])
def test_code_that_cannot_be_made_a_navigator_is_one_line_before_any_walk(code: Path, model: str, said: str) -> None:
    done = run("walk", HANDBOOK, "refunds", "--navigator", model, cwd=code)
    assert (done.returncode, done.stdout) == (2, "")
    assert done.stderr == f"reasoning-explorer: error: navigator {model!r}: {said}\n"


@pytest.mark.parametrize(("name", "detail"), [
    ("ExitsWhileChoosing", "RuntimeError: the navigator called sys.exit(4)"),
    ("AnswersNone", "TypeError: expected an iterable of node ids, got None (NoneType)"),
    ("AnswersAString", "TypeError: expected an iterable of node ids, got 'billing' (str)"),
])
def test_a_navigator_that_exits_or_answers_garbage_fails_as_any_navigator_by_on_failure(
        code: Path, name: str, detail: str) -> None:
    model = f"py:hostile:{name}"
    for policy in ("empty", "partial"):
        done = run("walk", HANDBOOK, "refunds", "--navigator", model, "--on-failure", policy, "--json", cwd=code)
        assert done.returncode == 0, done.stderr
        walked = json.loads(done.stdout)
        assert walked["summary"]["landed"] == []
        assert [(s["reason"], s["detail"]) for s in walked["stops"]] == [("navigator_failed", detail)]
    thrown = run("walk", HANDBOOK, "refunds", "--navigator", model, cwd=code)
    assert thrown.returncode == 1 and "Traceback" not in thrown.stderr
    assert f"Why: navigator {model!r} failed choosing among the roots: {detail}" in thrown.stdout.splitlines()


def test_a_navigator_that_names_ids_never_offered_lands_nothing_and_says_so(code: Path) -> None:
    done = run("walk", HANDBOOK, "refunds", "--navigator", "py:hostile:AnswersUnoffered", "--json", cwd=code)
    assert done.returncode == 0, done.stderr
    assert [(s["reason"], s["detail"]) for s in json.loads(done.stdout)["stops"]] == [
        ("invalid_choice", "'no-such-node' was not among the ids offered")]


@pytest.fixture(scope="module")
def spans(tmp_path_factory: pytest.TempPathFactory) -> str:
    """One walk's spans, as --otlp-file writes them (one line)."""
    folder = tmp_path_factory.mktemp("spans")
    done = run("walk", HANDBOOK, "how long do refunds take", "--otlp-file", folder / "one.jsonl")
    assert done.returncode == 0, done.stderr
    return (folder / "one.jsonl").read_text()


def one_line_refusal(path: Path) -> str:
    done = run("replay", path)
    assert (done.returncode, done.stdout) == (2, ""), done.stderr
    assert len(done.stderr.splitlines()) == 1 and "Traceback" not in done.stderr
    return done.stderr.removeprefix(f"reasoning-explorer: error: {path}").rstrip("\n")


def test_damaged_and_truncated_span_files_are_one_line_each(spans: str, tmp_path: Path) -> None:
    binary = tmp_path / "binary.jsonl"
    binary.write_bytes(b'{"resourceSpans": \xff\xfe\x00')
    assert one_line_refusal(binary) == ": cannot read the spans (UnicodeDecodeError); give an OTLP JSON file"
    exported = json.dumps(json.loads(spans), indent=2)  # a tracing tool's download: one document, cut short
    cut = tmp_path / "cut.json"
    cut.write_text(exported[: len(exported) // 2])
    assert one_line_refusal(cut) == (":1: not JSON (the file is damaged or cut short); give the OTLP JSON file "
                                     "--otlp-file wrote or a tracing tool exported")
    wrong = tmp_path / "wrong.jsonl"
    wrong.write_text(spans + json.dumps({"resourceSpans": {"not": "a list"}}) + "\n")
    assert one_line_refusal(wrong) == (":2: not OTLP JSON (no \"resourceSpans\"); give the OTLP JSON file "
                                       "--otlp-file wrote or a tracing tool exported")
    junk = json.loads(spans)
    junk["resourceSpans"][0]["scopeSpans"][0]["spans"] = ["x", None, 5]
    junk["resourceSpans"] += [[1], {"scopeSpans": "not a list"}, {"scopeSpans": [7, {"spans": {}}]}]
    foreign = tmp_path / "junk.jsonl"
    foreign.write_text(json.dumps(junk) + "\n")
    assert one_line_refusal(foreign) == (": holds no walk's spans (no span with reasoning_explorer.navigator); give "
                                         "spans the explorer exported (--otlp-file, or a tracing tool's export of "
                                         "them)")


def test_spans_whose_values_have_the_wrong_types_open_with_the_defaults(spans: str, tmp_path: Path) -> None:
    document = json.loads(spans)
    for span in document["resourceSpans"][0]["scopeSpans"][0]["spans"]:
        span["startTimeUnixNano"] = "soon"
        for attribute in span["attributes"]:
            if attribute["key"].endswith("max_nodes_visited"):
                attribute["value"] = {"intValue": "abc"}
            elif attribute["key"].endswith(".selected"):
                attribute["value"] = {"stringValue": "billing"}
    typed = tmp_path / "typed.jsonl"
    typed.write_text(json.dumps(document) + "\n")
    done = run("replay", typed, "--json")
    assert done.returncode == 0, done.stderr
    replayed = json.loads(done.stdout)
    assert replayed["settings"]["max_nodes_visited"] == 15
    assert [(s["reason"], s["landed"]) for s in replayed["stops"]] == [("navigator_stopped", None)]


ODD_USAGE = '''
from core import NavigatorChoice, TreeNavigator


class OddUsage(TreeNavigator):
    """The first candidate, with a usage JSON cannot hold: NaN, Infinity, an object and a tuple key."""

    def supports(self, model):
        return False

    def choose(self, request):
        usage = {"prompt_tokens": float("nan"), "cost": float("inf"), "model": object(), (1, 2): [float("-inf"), 3]}
        return NavigatorChoice(tuple(c.id for c in request.candidates[:1]), "the first", usage=usage)
'''


def _strict(text: str) -> object:
    def refuse(name: str) -> object:
        raise ValueError(f"{name} is not JSON")

    return json.loads(text, parse_constant=refuse)


def test_a_usage_json_cannot_hold_is_written_as_json_and_replays(tmp_path: Path) -> None:
    """NaN went into the trace as NaN (and replay refused the file as damaged), `walk --json` printed it, and an
    object in it crashed --json and --trace with a TypeError (issue 38, point 8)."""
    (tmp_path / "odd.py").write_text(ODD_USAGE)
    walked = run("walk", HANDBOOK, "refunds", "--navigator", "py:odd.py:OddUsage", "--json", "--trace", "t.jsonl",
                 cwd=tmp_path)
    assert walked.returncode == 0, walked.stderr
    chose = next(e for e in _strict(walked.stdout)["events"] if e["event"] == "navigator_chose")
    assert chose["usage"]["prompt_tokens"] is None and chose["usage"]["cost"] is None
    assert chose["usage"]["model"].startswith("<object object at ") and chose["usage"]["(1, 2)"] == [None, 3]
    for line in (tmp_path / "t.jsonl").read_text().splitlines():
        _strict(line)
    replayed = run("replay", tmp_path / "t.jsonl", "--json", cwd=tmp_path)
    assert replayed.returncode == 0, replayed.stderr
    assert _strict(replayed.stdout)["summary"]["end"] == "finished"


SURROGATE = '''
import json

from core import NavigatorChoice, TreeNavigator


class Surrogate(TreeNavigator):
    """The first candidate and an id never offered, each with a lone surrogate from a JSON-escaped answer."""

    def supports(self, model):
        return False

    def choose(self, request):
        answer = json.loads('{"rationale": "why \\\\ud800 this", "ghost": "x\\\\ud800"}')
        return NavigatorChoice((request.candidates[0].id, answer["ghost"]), answer["rationale"])
'''


def test_a_lone_surrogate_in_an_answer_reaches_the_spans_escaped_and_no_traceback(tmp_path: Path) -> None:
    """It made `walk --otlp-file` print 13 OpenTelemetry tracebacks and drop the attributes, exit 0 (issue 38,
    point 7)."""
    (tmp_path / "surrogate.py").write_text(SURROGATE)
    walked = run("walk", HANDBOOK, "refunds", "--navigator", "py:surrogate.py:Surrogate", "--otlp-file", "s.jsonl",
                 "--max-visits", "2", cwd=tmp_path)
    assert walked.returncode == 0 and walked.stderr == "", walked.stderr
    spans = (tmp_path / "s.jsonl").read_text(encoding="utf-8")
    values = [a["value"].get("stringValue") for a in _attributes(json.loads(spans))]
    assert "why \\ud800 this" in values
    assert any(isinstance(v, str) and "x\\ud800" in v for v in values)


def _attributes(document: dict) -> list[dict]:
    return [attribute for resource in document["resourceSpans"] for scope in resource["scopeSpans"]
            for span in scope["spans"] for attribute in span.get("attributes", [])]


PRINTS = '''
from core import NavigatorChoice, TreeNavigator

print("loading my navigator")


class Prints(TreeNavigator):
    """The first candidate, saying so with print() as it goes."""

    def supports(self, model):
        return False

    def choose(self, request):
        print("choosing among", len(request.candidates))
        return NavigatorChoice(tuple(c.id for c in request.candidates[:1]), "the first")
'''


def test_a_py_navigators_prints_go_to_stderr_and_walk_json_stays_json(tmp_path: Path) -> None:
    """A print() in a navigator (or in its module) corrupted `walk --json` (issue 38, point 17)."""
    (tmp_path / "prints.py").write_text(PRINTS)
    walked = run("walk", HANDBOOK, "refunds", "--navigator", "py:prints.py:Prints", "--json", "--max-visits", "3",
                 cwd=tmp_path)
    assert walked.returncode == 0, walked.stderr
    assert json.loads(walked.stdout)["summary"]["end"] == "finished"
    calls = json.loads(walked.stdout)["summary"]["navigator_calls"]
    assert walked.stderr.splitlines()[0] == "loading my navigator"
    assert [line.rsplit(" ", 1)[0] for line in walked.stderr.splitlines()[1:]] == ["choosing among"] * calls


MANY_IDS = '''
from core import NavigatorChoice, TreeNavigator


class ManyIds(TreeNavigator):
    """The first candidate, then 100,000 ids never offered; as a list, or as a generator that never ends."""

    def __init__(self, endless="no"):
        self.endless = endless == "yes"

    def supports(self, model):
        return False

    def choose(self, request):
        first = request.candidates[0].id

        def ids():
            yield first
            number = 0
            while self.endless or number < 100_000:
                number += 1
                yield f"ghost-{number}"

        return ids() if self.endless else NavigatorChoice(tuple(ids()), "many")
'''


@pytest.mark.parametrize("model", ["py:many.py:ManyIds", "py:many.py:ManyIds@endless=yes"])
def test_an_answer_of_100000_ids_is_read_only_as_far_as_the_bound(tmp_path: Path, model: str) -> None:
    """No bound held for py:, script: and walks rebuilt from spans (100,000 ids: 33 s and 506 MB; an endless
    generator, for ever): the first ids_kept(candidates) ids are read, as an LLM's (issue 38, point 10)."""
    (tmp_path / "many.py").write_text(MANY_IDS)
    walked = run("walk", HANDBOOK, "refunds", "--navigator", model, "--json", "--max-visits", "1",
                 "--on-failure", "partial", cwd=tmp_path)
    assert walked.returncode == 0, walked.stderr
    chose = next(e for e in json.loads(walked.stdout)["events"] if e["event"] == "navigator_chose")
    assert len(chose["selected"]) == 100 and chose["selected"][0] == "accounts"  # ids_kept(9 candidates)
    assert chose["hallucinated"][:2] == ["ghost-1", "ghost-2"] and chose["hallucinated"][-1] == "ghost-99"


def test_a_script_answer_of_many_ids_is_cut_at_the_bound(tmp_path: Path) -> None:
    ids = ", ".join(["billing", *[f"ghost-{n}" for n in range(1, 150)]])
    (tmp_path / "many.yaml").write_text(f"decisions:\n  start: {{select: [{ids}]}}\n")
    walked = run("walk", HANDBOOK, "refunds", "--navigator", "script:many.yaml", "--json", "--max-visits", "1",
                 "--on-failure", "partial", cwd=tmp_path)
    assert walked.returncode == 0, walked.stderr
    chose = next(e for e in json.loads(walked.stdout)["events"] if e["event"] == "navigator_chose")
    assert len(chose["selected"]) == 100 and chose["hallucinated"][-1] == "ghost-99"


TIED = '''
import threading

from core import NavigatorChoice, TreeNavigator


class Tied(TreeNavigator):
    """Holds what belongs to the thread that made it (as an sqlite3 connection does): asked on another, it fails."""

    shared_across_threads = False

    def __init__(self):
        self.thread = threading.get_ident()

    def supports(self, model):
        return False

    def choose(self, request):
        if threading.get_ident() != self.thread:
            raise RuntimeError("asked on another thread than the one that made me")
        return NavigatorChoice(tuple(c.id for c in request.candidates[:1]), "the first")
'''


def test_a_navigator_that_is_not_shared_across_threads_is_asked_on_its_own_thread(tmp_path: Path) -> None:
    """The walk's events are pulled on a thread of their own (a navigator that ignores the token can be given
    up), except for a navigator made for one thread: it is asked where it was made."""
    (tmp_path / "tied.py").write_text(TIED)
    walked = run("walk", HANDBOOK, "refunds", "--navigator", "py:tied.py:Tied", "--json", "--max-visits", "3",
                 cwd=tmp_path)
    assert walked.returncode == 0, walked.stderr
    assert json.loads(walked.stdout)["summary"]["end"] == "finished"
