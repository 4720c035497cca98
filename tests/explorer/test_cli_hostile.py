"""Every sub-command and option of the real entry point under hostile values: one escaped line on stderr, exit 2.

Paths longer than the file system allows, folders and FIFOs where files go,
traces nested too deeply or holding 5,000-digit numbers, header paths with
terminal escape sequences or a NUL, non-UTF-8 questions, numbers that are
huge, negative, NaN or Unicode digits, empty values. Each case runs
``reasoning-explorer`` in a subprocess and must end with exit code 2, exactly
one line on stderr (``reasoning-explorer: error: ...``) with every terminal
control, C1 and bidi character escaped, nothing on stdout and never a
traceback. Then what reaches stdout: lone surrogates and controls in a
trace's titles and rationales, and ``--json``, never go out raw.
"""

from __future__ import annotations

import json
import os
import re
import shutil
import subprocess
import sys
from dataclasses import dataclass
from pathlib import Path

import pytest

from core import OnFailure
from explorer.corpora import load_corpus
from explorer.navigators import resolve_navigator
from explorer.walk_settings import WalkSettings
from explorer.walks.session import WalkSession
from tests.command_line import run_cli
from tests.samples import SAMPLES

ROOT = Path(__file__).resolve().parents[2]
HANDBOOK = SAMPLES / "handbook.yaml"
QUESTIONS = SAMPLES / "handbook.questions.yaml"
SCRIPT = shutil.which("reasoning-explorer", path=str(Path(sys.executable).parent)) or "reasoning-explorer"
# What must never reach a terminal raw: C0 but the final newline, DEL, C1, bidi, invisible format characters.
RAW = re.compile("[\x00-\x09\x0b-\x1f\x7f-\x9f\u061c\u200b-\u200f\u2028\u2029\u202a-\u202e\u2060-\u2069\ufeff]")
HOSTILE_NAME = "\x1b]0;PWNED\x07\x1b[2J\u202eevil\x9b.yaml"
ESCAPED_NAME = "\\x1b]0;PWNED\\x07\\x1b[2J\\u202eevil\\x9b.yaml"


def run(*args: object, cwd: Path = ROOT) -> subprocess.CompletedProcess[bytes]:
    """The console script; ``str`` arguments with lone surrogates go out as the bytes they stand for."""
    return run_cli(*args, cwd=cwd, binary=True)  # type: ignore[return-value]


@dataclass(frozen=True)
class Files:
    root: Path
    long: Path  # a name longer than the file system allows (300 bytes; NAME_MAX is 255)
    folder: Path
    fifo_trace: Path
    fifo_corpus: Path
    fifo_out: Path
    good: Path
    nested_event: Path
    nested_header: Path
    big_number: Path
    nan: Path
    header_long_path: Path
    header_escape: Path
    header_nul: Path
    nul_questions: Path
    escape_questions: Path
    long_questions: Path


def trace_with(lines: list[str], path: Path, header: dict | None = None, line: int | None = None,
               text: str | None = None) -> Path:
    out = list(lines)
    if header is not None:
        out[0] = json.dumps(header)
    if line is not None and text is not None:
        out[line] = text
    path.write_text("\n".join(out) + "\n")
    return path


@pytest.fixture(scope="module")
def files(tmp_path_factory: pytest.TempPathFactory) -> Files:
    root = tmp_path_factory.mktemp("hostile")
    folder = root / "folder.jsonl"
    folder.mkdir()
    fifos = [root / "fifo.jsonl", root / "fifo.yaml", root / "out.jsonl"]
    for fifo in fifos:
        os.mkfifo(fifo)
    session = WalkSession(load_corpus(HANDBOOK), WalkSettings("refunds", "lexical:default",
                                                              on_failure=OnFailure.PARTIAL),
                          resolve_navigator("lexical:default"))
    session.run_headless()
    good = session.save_trace(root / "good.jsonl")
    lines = good.read_text().splitlines()
    header = json.loads(lines[0])

    def with_corpus(path: str) -> dict:
        return {**header, "corpus": {**header["corpus"], "path": path}}

    nested = "[" * 100_000 + "]" * 100_000
    questions = "corpus: {}\nquestions:\n  - {{id: q1, query: refunds, expect: [refunds]}}\n"
    nul_questions = root / "nul.questions.yaml"
    nul_questions.write_text(questions.format('"a\\0b.yaml"'))
    escape_questions = root / "escape.questions.yaml"
    escape_questions.write_text(questions.format('"\\e]0;PWNED\\a\\e[2J\\u202eevil\\x9b.yaml"'))
    long_questions = root / "long.questions.yaml"
    long_questions.write_text(questions.format(f'"{"q" * 300}.yaml"'))
    return Files(
        root=root, long=root / ("a" * 300 + ".yaml"), folder=folder, fifo_trace=fifos[0], fifo_corpus=fifos[1],
        fifo_out=fifos[2], good=good,
        nested_event=trace_with(lines, root / "nested-event.jsonl", line=1, text=nested),
        nested_header=trace_with(lines, root / "nested-header.jsonl", line=0, text=nested),
        big_number=trace_with(lines, root / "big-number.jsonl",
                              line=0, text=lines[0].replace('"max_depth": 6', '"max_depth": ' + "9" * 5000)),
        nan=trace_with(lines, root / "nan.jsonl", line=3,
                       text=re.sub(r'"seconds": [^,}]+', '"seconds": NaN', lines[3], count=1)),
        header_long_path=trace_with(lines, root / "long-path.jsonl", with_corpus("b" * 5000 + ".yaml")),
        header_escape=trace_with(lines, root / "escape.jsonl", with_corpus(HOSTILE_NAME)),
        header_nul=trace_with(lines, root / "nul.jsonl", with_corpus("a\x00b.yaml")),
        nul_questions=nul_questions, escape_questions=escape_questions, long_questions=long_questions,
    )


TOO_LONG = "longer than the file system allows"
H, Q = str(HANDBOOK), str(QUESTIONS)

# (arguments, a fragment of the message); "{name}" is a field of Files, "{root}" the fixture's folder.
CASES: list[tuple[list[str], str]] = [
    # walk: paths
    (["walk", "{long}", "q"], TOO_LONG),
    (["walk", "", "q"], "argument CORPUS: an empty path; name a file or folder"),
    (["walk", "{folder}", "q"], "no Markdown files (.md) in this folder"),
    (["walk", "{fifo_corpus}", "q"], "is a FIFO (named pipe)"),
    (["walk", H, "q", "--navigator", "script:{long}"], TOO_LONG),
    (["walk", H, "q", "--navigator", "replay:{long}"], TOO_LONG),
    (["walk", H, "q", "--navigator", "replay:{nested_event}"], ":2: JSON nested too deeply to read"),
    (["walk", H, "q", "--navigator", "replay:{nested_header}"], ":1: not a reasoning-explorer trace (JSON nested"),
    (["walk", H, "q", "--navigator", "replay:{big_number}"], "a number with more than 4300 digits"),
    (["walk", H, "q", "--navigator", "replay:{fifo_trace}"], "a FIFO (named pipe), not a regular file"),
    (["walk", H, "q", "--navigator", "replay:{folder}"], "a folder, not a trace file"),
    (["walk", H, "q", "--navigator", "replay:"], "replay: needs a file"),
    (["walk", H, "q", "--trace", "{root}/" + "t" * 300 + ".jsonl"], "longer than the file system allows (255 bytes)"),
    (["walk", H, "q", "--trace", "{root}/" + "x" * 300 + "/t.jsonl"], TOO_LONG),
    (["walk", H, "q", "--trace", "{folder}"], "it is a folder; name a file in it"),
    (["walk", H, "q", "--trace", "{fifo_out}"], "it is not a regular file (a pipe or a device)"),
    (["walk", H, "q", "--trace", ""], "argument --trace: an empty path"),
    (["walk", H, "q", "--trace", "{root}/missing/t.jsonl"], "no folder"),
    # walk: text and numbers
    (["walk", H, "caf\udce9", "--trace", "{root}/t.jsonl"], "argument QUERY: 'caf\\udce9' is not UTF-8 text"),
    (["walk", H, " "], "the query is blank"),
    (["walk", H, "q", "--max-visits", "9" * 5000], "argument --max-visits: 9999999999999999999… must be at most"),
    (["walk", H, "q", "--max-visits", "99999999999999999999"], "must be at most 100,000"),
    (["walk", H, "q", "--max-visits", "100001"], "100001 must be at most 100,000"),
    (["walk", H, "q", "--max-visits", "²"], "'²' is not a whole number"),
    (["walk", H, "q", "--max-visits", "١٢"], "'١٢' is not a whole number"),
    (["walk", H, "q", "--max-visits", "nan"], "'nan' is not a whole number"),
    (["walk", H, "q", "--max-visits", "1e3"], "'1e3' is not a whole number"),
    (["walk", H, "q", "--max-visits", "-5"], "-5 must be at least 1"),
    (["walk", H, "q", "--max-visits", ""], "'' is not a whole number"),
    (["walk", H, "q", "--max-visits", "\x1b[2J"], "'\\x1b[2J' is not a whole number"),
    (["walk", H, "q", "--max-depth", "inf"], "'inf' is not a whole number"),
    (["walk", H, "q", "--max-depth", "-1"], "-1 must be at least 0"),
    (["walk", H, "q", "--max-depth", "100001"], "must be at most 100,000"),
    (["walk", H, "q", "--on-failure", "\x1b]0;x\x07"], "invalid choice: '\\x1b]0;x\\x07'"),
    (["walk", H, "q", "--navigator", ""], "the navigator model is blank"),
    (["walk", H, "q", "--navigator", "\x1b]0;x\x07\u202e"], "no navigator supports '\\x1b]0;x\\x07\\u202e'"),
    (["walk", H, "q", "--force", ""], "--force '': write NODE=ID"),
    (["walk", H, "q", "--force", "\x1b[2J=a"], "no node '\\x1b[2J'"),
    (["walk", H, "q", "--otlp-endpoint", "http://[::1"], "is not an http(s) address"),
    (["walk", H, "q", "--otlp-file", "{root}/" + "x" * 300 + "/spans.jsonl"], TOO_LONG),
    # --otlp-file where no file can be written: refused like --trace, before anything opens it (a FIFO would block
    # the open for ever, issue 21)
    (["walk", H, "q", "--otlp-file", "{fifo_out}"],
     "cannot write spans to {fifo_out}: it is not a regular file (a pipe or a device)"),
    (["walk", H, "q", "--otlp-file", "/dev/null"], "cannot write spans to /dev/null: it is not a regular file"),
    (["walk", H, "q", "--otlp-file", "{folder}"], "cannot write spans to {folder}: it is a folder; name a file in it"),
    (["walk", H, "q", "--otlp-file", "{root}/" + "s" * 300 + ".jsonl"], "longer than the file system allows (255"),
    (["walk", H], "the following arguments are required: QUERY"),
    # validate
    (["validate", "{long}"], TOO_LONG),
    (["validate", ""], "an empty path"),
    (["validate", "{root}/" + HOSTILE_NAME], ESCAPED_NAME + ": no such file or folder"),
    (["validate"], "the following arguments are required: CORPUS"),
    # eval
    (["eval", "{long}"], TOO_LONG),
    (["eval", ""], "argument QUESTIONS: an empty path"),
    (["eval", "{folder}"], "no such question set"),
    (["eval", Q, "--corpus", "{long}"], TOO_LONG),
    (["eval", Q, "--corpus", ""], "argument --corpus: an empty path"),
    (["eval", Q, "--jobs", "0"], "0 must be at least 1"),
    (["eval", Q, "--jobs", "65"], "65 must be at most 64"),
    (["eval", Q, "--jobs", "99999999999999999999"], "must be at most 64"),
    (["eval", Q, "--max-visits", "²"], "'²' is not a whole number"),
    (["eval", "{nul_questions}"], "holds a NUL character"),
    (["eval", "{long_questions}"], "longer than the file system allows"),
    (["eval", "{escape_questions}"], ESCAPED_NAME),
    (["eval", Q, "--otlp-file", "{fifo_out}"], "cannot write spans to {fifo_out}: it is not a regular file"),
    # a kept run to resume or compare with: read only if it is one, refused in one line before any walk
    (["eval", Q, "--resume", "{long}"], TOO_LONG),
    (["eval", Q, "--resume", ""], "argument --resume: an empty path"),
    (["eval", Q, "--resume", "{folder}"], "{folder}: a folder, not a file; give a kept run (a file written by eval --save-run)"),
    (["eval", Q, "--resume", "{fifo_out}"], "{fifo_out}: a FIFO (named pipe), not a regular file; give a kept run"),
    (["eval", Q, "--resume", "{big_number}"], "big-number.jsonl: not a kept run (ValueError); give a file written by eval --save-run"),
    (["eval", Q, "--resume", "{root}/" + HOSTILE_NAME], ESCAPED_NAME + ": no such kept run"),
    (["eval", Q, "--against", "{nested_header}"], "nested-header.jsonl: not a kept run"),
    # replay
    (["replay", "{long}"], TOO_LONG),
    (["replay", ""], "argument TRACE: an empty path"),
    (["replay", "{folder}"], "a folder, not a trace file"),
    (["replay", "{fifo_trace}"], "a FIFO (named pipe), not a regular file"),
    (["replay", "{nested_event}"], "nested-event.jsonl:2: JSON nested too deeply to read; the file is damaged"),
    (["replay", "{nested_header}"], "nested-header.jsonl:1: not a reasoning-explorer trace (JSON nested too deeply"),
    (["replay", "{big_number}"], "big-number.jsonl:1: not a reasoning-explorer trace (a number with more than 4300"),
    (["replay", "{nan}"], "nan.jsonl:4: NaN is not a number a trace holds; the file is damaged"),
    (["replay", "{header_long_path}"], "the trace's corpus bbbbbbbb"),
    (["replay", "{header_escape}"], f"the trace's corpus {ESCAPED_NAME} is not here; pass --corpus PATH"),
    (["replay", "{header_nul}"], "the trace's corpus a\\x00b.yaml is not here"),
    (["replay", "{good}", "--corpus", "{long}"], TOO_LONG),
    (["replay", "{good}", "--corpus", ""], "argument --corpus: an empty path"),
    (["replay", "{good}", "--corpus", "{fifo_corpus}"], "is a FIFO (named pipe)"),
    (["replay", "{good}", "--max-visits", "0"], "0 must be at least 1"),
    (["replay", "{good}", "--max-depth", "9" * 5000], "must be at most 100,000"),
    (["replay", "{good}", "--force", "nope=a"], "no node 'nope'"),
    # the explorer: everything is checked before the screen opens
    (["{long}"], TOO_LONG),
    ([""], "argument CORPUS: an empty path"),
    (["{nested_event}"], ":2: JSON nested too deeply to read"),
    (["{big_number}"], "a number with more than 4300 digits"),
    (["{header_escape}"], f"the trace's corpus {ESCAPED_NAME} is not here"),
    (["{header_long_path}"], "the trace's corpus bbbbbbbb"),
    (["{fifo_trace}"], "a FIFO (named pipe), not a regular file"),
    (["{fifo_corpus}"], "is a FIFO (named pipe)"),
    (["--autoplay", "nan"], "nan must be between 0.05 and 60 seconds"),
    (["--autoplay", "inf"], "inf must be between 0.05 and 60 seconds"),
    (["--autoplay", "1e309"], "must be between 0.05 and 60 seconds"),
    (["--autoplay", "²"], "'²' is not a number of seconds"),
    (["--autoplay", ""], "'' is not a number of seconds"),
    (["--max-visits", "9" * 5000], "must be at most 100,000"),
    (["--max-depth", "-3"], "-3 must be at least 0"),
    (["--on-failure", "never"], "invalid choice: 'never'"),
    (["--query", " "], "the query is blank"),
    (["--query", "caf\udce9"], "is not UTF-8 text"),
    (["--trace", "{root}/" + "t" * 300 + ".jsonl"], "longer than the file system allows"),
    (["--trace", "{folder}"], "it is a folder"),
    (["--trace", "{fifo_out}"], "it is not a regular file"),
    (["--trace", ""], "argument --trace: an empty path"),
    (["--otlp-file", "{fifo_out}"], "cannot write spans to {fifo_out}: it is not a regular file"),
    (["--navigator", "nobody:x"], "no navigator supports 'nobody:x'"),
    (["--navigator", "script:{long}"], TOO_LONG),
    # files off from the first resolution on: a navigator naming a file is refused before it is read (issue 21)
    (["--no-files", "--navigator", "script:/etc/passwd"],
     "navigator 'script:/etc/passwd' reads a file on this machine, and files are off in this session"),
    (["--no-files", "--navigator", "replay:{good}"], "reads a file on this machine, and files are off"),
    (["--no-files", "--judge", "script:/etc/passwd"],
     "--judge: judge 'script:/etc/passwd' reads a file on this machine, and files are off in this session"),
    (["--bogus\x1b[2J"], "unrecognized arguments: --bogus\\x1b[2J"),
    # diff and serve take paths and a query like the rest
    (["diff", "", "x.jsonl"], "argument A.jsonl: an empty path; name a file or folder"),
    (["diff", "{long}", "{long}"], TOO_LONG),
    (["serve", ""], "argument CORPUS: an empty path; name a file or folder"),
    (["serve", "--query", "caf\udce9"], "is not UTF-8 text"),
    (["serve", "--otlp-file", "{fifo_out}"], "cannot write spans to {fifo_out}: it is not a regular file"),
    (["serve", "--trace", "{folder}"], "cannot save the trace to {folder}: it is a folder"),
    (["serve", "--otlp-endpoint", "http://[::1"], "is not an http(s) address"),
]


@pytest.mark.parametrize(("args", "message"), CASES, ids=[f"{n:03d}" for n in range(len(CASES))])
def test_hostile_arguments_are_one_escaped_line_and_exit_2(files: Files, args: list[str], message: str) -> None:
    fields = {name: str(getattr(files, name)) for name in Files.__dataclass_fields__}
    out = run(*(arg.format(**fields) if "{" in arg and "}" in arg else arg for arg in args))
    stderr = out.stderr.decode("utf-8")  # strict: whatever the arguments held, stderr is UTF-8
    assert out.returncode == 2, stderr
    assert "Traceback" not in stderr
    assert stderr.startswith("reasoning-explorer: error: ") and stderr.count("\n") == 1 and stderr.endswith("\n")
    assert message.format(**fields) in stderr
    assert not RAW.search(stderr[:-1]), stderr
    assert out.stdout == b""


def test_a_trace_headers_corpus_path_reaches_stderr_escaped(files: Files) -> None:
    out = run("replay", files.header_escape)
    assert out.stderr.decode() == (f"reasoning-explorer: error: {files.header_escape}: the trace's corpus "
                                   f"{ESCAPED_NAME} is not here; pass --corpus PATH\n")


def test_a_file_name_with_an_escape_sequence_reaches_stderr_escaped(files: Files) -> None:
    trace = files.root / "evil\x1b]0;PWNED\x07.jsonl"
    trace.write_text("hello\n")
    out = run("replay", trace)
    assert out.stderr.decode() == (f"reasoning-explorer: error: {files.root}/evil\\x1b]0;PWNED\\x07.jsonl:1: not a "
                                   "reasoning-explorer trace (the first line is not JSON)\n")


# what reaches stdout ------------------------------------------------------------------------------------------


@pytest.fixture(scope="module")
def hostile_trace(files: Files) -> Path:
    """The good trace with a lone surrogate, controls and bidi in a rationale, a transcript and a title."""
    lines = []
    for line in files.good.read_text().splitlines():
        data = json.loads(line)
        if data.get("event") == "navigator_chose":
            data["rationale"] = "lone \ud800 here \x1b]0;PWNED\x07 \u202e \x9b"
            data["transcript"] = [["label \udcff\x1b[2J", "body \ud83d \x1b[31m red"]]
        if data.get("event") == "node_entered":
            data["node"]["title"] += " \udce9\u202e\x9b"
        lines.append(json.dumps(data))
    path = files.root / "surrogates.jsonl"
    path.write_text("\n".join(lines) + "\n")
    return path


@pytest.mark.parametrize("extra", [[], ["--transcripts"]])
def test_lone_surrogates_and_controls_in_a_trace_print_escaped(hostile_trace: Path, extra: list[str]) -> None:
    out = run("replay", hostile_trace, *extra)
    assert out.returncode == 0, out.stderr.decode()
    text = out.stdout.decode("utf-8")
    assert "lone \\ud800 here \\x1b]0;PWNED\\x07 \\u202e \\x9b" in text
    assert not RAW.search(text.replace("\n", ""))
    if extra:
        assert "label \\udcff\\x1b[2J" in text and "body \\ud83d \\x1b[31m red" in text


def test_json_output_escapes_c1_bidi_and_lone_surrogates_and_means_the_same(hostile_trace: Path) -> None:
    out = run("replay", hostile_trace, "--json")
    assert out.returncode == 0, out.stderr.decode()
    text = out.stdout.decode("utf-8")
    assert not RAW.search(text.replace("\n", "")) and "\\u202e" in text and "\\u009b" in text
    chose = [e for e in json.loads(text)["events"] if e["event"] == "navigator_chose"]
    assert chose[0]["rationale"] == "lone \ud800 here \x1b]0;PWNED\x07 \u202e \x9b"


def test_walk_json_escapes_a_corpus_title_with_bidi_and_c1(files: Files) -> None:
    corpus = files.root / "bidi.yaml"
    corpus.write_text('source: b\nnodes:\n  - id: a\n    title: "refunds \\u202eevil\\x9b[2J \\u2066x"\n'
                      '    summary: refunds\n')
    out = run("walk", corpus, "refunds", "--json")
    assert out.returncode == 0, out.stderr.decode()
    text = out.stdout.decode("utf-8")
    assert not RAW.search(text.replace("\n", ""))
    assert "refunds \\u202eevil\\u009b[2J \\u2066x" in text
    offered = json.loads(text)["events"][1]["candidates"][0]
    assert offered["title"] == "refunds \u202eevil\x9b[2J \u2066x"


def test_eval_json_escapes_a_question_with_bidi(files: Files) -> None:
    questions = files.root / "bidi.questions.yaml"
    questions.write_text(f'corpus: {HANDBOOK}\nquestions:\n  - {{id: q1, query: "refunds \\u202e\\x9b", '
                         'expect: [refunds]}\n')
    out = run("eval", questions, "--json")
    assert out.returncode == 0, out.stderr.decode()
    text = out.stdout.decode("utf-8")
    assert not RAW.search(text.replace("\n", "")) and "refunds \\u202e\\u009b" in text
    assert json.loads(text)["results"][0]["query"] == "refunds \u202e\x9b"


@pytest.mark.process
def test_a_saved_walk_after_a_killed_save_leaves_no_stale_temporary(files: Files) -> None:
    folder = files.root / "saves"
    folder.mkdir()
    child = subprocess.Popen([sys.executable, "-c", "pass"])
    child.wait(60)
    stale = folder / f".t.jsonl.{child.pid}.abcd1234.tmp"  # a save whose process was killed
    stale.write_text('{"format": "reasoning-explorer-trace"')
    out = run("walk", HANDBOOK, "refunds", "--trace", folder / "t.jsonl")
    assert out.returncode == 0, out.stderr.decode()
    assert sorted(p.name for p in folder.iterdir()) == ["t.jsonl"]


# a NUL cannot cross exec, but main() takes any list of strings (serve and tests call it in-process) ----------------


@pytest.mark.parametrize(("args", "message"), [
    (["walk", H, "q", "--trace", "a\x00b.jsonl"], "argument --trace: 'a\\x00b.jsonl': a path cannot hold a NUL"),
    (["walk", "a\x00b.yaml", "q"], "argument CORPUS: 'a\\x00b.yaml': a path cannot hold a NUL character"),
    (["validate", "a\x00b.yaml"], "argument CORPUS: 'a\\x00b.yaml': a path cannot hold a NUL character"),
    (["eval", "a\x00b.yaml"], "argument QUESTIONS: 'a\\x00b.yaml': a path cannot hold a NUL character"),
    (["eval", Q, "--corpus", "a\x00b"], "argument --corpus: 'a\\x00b': a path cannot hold a NUL character"),
    (["eval", Q, "--resume", "a\x00b"], "argument --resume: 'a\\x00b': a path cannot hold a NUL character"),
    (["replay", "a\x00b.jsonl"], "argument TRACE: 'a\\x00b.jsonl': a path cannot hold a NUL character"),
    (["a\x00b.jsonl"], "argument CORPUS: 'a\\x00b.jsonl': a path cannot hold a NUL character"),
    (["--trace", "a\x00b"], "argument --trace: 'a\\x00b': a path cannot hold a NUL character"),
    (["walk", H, "q", "--otlp-file", "a\x00b"], "argument --otlp-file: 'a\\x00b': a path cannot hold a NUL"),
    (["walk", H, "q", "--navigator", "replay:a\x00b"], "navigator 'replay:a\\x00b': "),
    (["walk", H, "q", "--navigator", "script:a\x00b"], "navigator 'script:a\\x00b': "),
])
def test_a_nul_in_an_argument_is_one_line_and_exit_2(capsys: pytest.CaptureFixture[str], args: list[str],
                                                     message: str) -> None:
    from explorer.cli.main import main

    assert main(args) == 2
    captured = capsys.readouterr()
    assert captured.err.startswith("reasoning-explorer: error: ") and captured.err.count("\n") == 1
    assert message in captured.err and not RAW.search(captured.err[:-1])
    assert captured.out == ""
