"""Issue 44 point 3: one gate for every file written. A test reads the code and finds every writer (a file opened
for writing, text or bytes written to a path, a screenshot saved, a file renamed, replaced, moved or copied into
place, a temporary file made): none is outside the gate's own modules (:mod:`explorer.outputs` and the primitives
under it, :mod:`explorer.atomic_file`). And the gate's rules on real files, links and FIFOs in tmp_path: an input
refused, an existing file only when asked, a link written through (never replaced), nothing written to a FIFO."""

from __future__ import annotations

import ast
import os
import threading
from pathlib import Path

import pytest

from explorer.atomic_file import write_atomically
from explorer.outputs import Ledger, Output, Read, Refused, free_name, open_stream, write

ROOT = Path(__file__).resolve().parents[2]
GATE = {"explorer/outputs.py", "explorer/atomic_file.py"}
"""The only modules that may write a file: the gate and its primitives."""
WRITE_MODES = set("wax+")
CALLS = {("os", "replace"), ("os", "rename"), ("os", "renames"), ("shutil", "move"),
         ("shutil", "copy"), ("shutil", "copy2"), ("shutil", "copyfile"), ("shutil", "copytree"),
         ("shutil", "copyfileobj"), ("tempfile", "mkstemp"), ("tempfile", "NamedTemporaryFile"),
         ("tempfile", "mkdtemp")}
METHODS = {"write_text", "write_bytes", "save_screenshot", "rename", "symlink_to", "hardlink_to", "link_to",
           "write_atomically"}
OPEN_FLAGS = {"O_WRONLY", "O_RDWR", "O_CREAT", "O_TRUNC", "O_APPEND"}


def _mode(call: ast.Call, position: int) -> str | None:
    for keyword in call.keywords:
        if keyword.arg == "mode" and isinstance(keyword.value, ast.Constant):
            return str(keyword.value.value)
    if len(call.args) > position and isinstance(call.args[position], ast.Constant):
        return str(call.args[position].value)
    return None


def writers_in(source: str) -> list[tuple[int, str]]:
    """Each call in ``source`` that writes a file, by line: what it is."""
    found: list[tuple[int, str]] = []
    for node in ast.walk(ast.parse(source)):
        if not isinstance(node, ast.Call):
            continue
        func = node.func
        if isinstance(func, ast.Name):
            if func.id == "open" and set(_mode(node, 1) or "") & WRITE_MODES:
                found.append((node.lineno, "open(..., write mode)"))
            elif func.id in {"write_atomically", "mkstemp", "NamedTemporaryFile", "copyfile", "move"}:
                found.append((node.lineno, func.id))
            continue
        if not isinstance(func, ast.Attribute):
            continue
        owner = func.value.id if isinstance(func.value, ast.Name) else None
        if (owner, func.attr) in CALLS:
            found.append((node.lineno, f"{owner}.{func.attr}"))
        elif owner == "os" and func.attr == "fdopen" and set(_mode(node, 1) or "w") & WRITE_MODES:
            found.append((node.lineno, "os.fdopen(..., write mode)"))  # a mode not written as a literal: a writer
        elif owner == "os" and func.attr == "open":
            flags = {n.attr for n in ast.walk(node) if isinstance(n, ast.Attribute) and n.attr.startswith("O_")}
            if flags & OPEN_FLAGS:
                found.append((node.lineno, "os.open(..., for writing)"))
        elif func.attr in METHODS:
            found.append((node.lineno, f".{func.attr}()"))
        elif func.attr == "open" and set(_mode(node, 0) or "") & WRITE_MODES:
            found.append((node.lineno, ".open(write mode)"))
        elif func.attr == "replace" and len(node.args) == 1 and not node.keywords:  # Path.replace (str's has two)
            found.append((node.lineno, ".replace(target)"))
    return found


def test_the_finder_finds_each_kind_of_writer():
    source = "\n".join([
        "open(p, 'w')", "open(p, mode='a')", "p.open('x')", "p.write_text(t)", "p.write_bytes(b)",
        "app.save_screenshot(filename=n)", "os.replace(a, b)", "shutil.move(a, b)", "shutil.copy(a, b)",
        "p.rename(q)", "p.replace(q)", "os.fdopen(d, 'w')", "tempfile.mkstemp()", "write_atomically(p, t)",
        "os.open(p, os.O_WRONLY | os.O_CREAT)",
        # not writers:
        "open(p)", "open(p, 'rb')", "p.open('rb')", "s.replace('a', 'b')", "d.replace(tzinfo=u)",
        "os.open(p, os.O_RDONLY)", "os.fdopen(d, 'rb')",
    ])
    assert [line for line, _ in writers_in(source)] == list(range(1, 16))


def test_every_writer_in_the_code_is_the_gate():
    outside = []
    for path in sorted([*(ROOT / "explorer").rglob("*.py"), *(ROOT / "core").rglob("*.py")]):
        name = path.relative_to(ROOT).as_posix()
        if name in GATE:
            continue
        outside += [f"{name}:{line}: {what}" for line, what in writers_in(path.read_text(encoding="utf-8"))]
    assert outside == [], "write files through explorer.outputs (write, open_stream), never directly"


def test_the_writers_of_files_ask_the_gate():
    """Each module that makes a file the person keeps calls the gate (write, open_stream or write_trace, which is
    one of its callers), so that removing a call would leave a writer the finder above reports as missing."""
    askers = {"explorer/trace.py", "explorer/tui/html_export.py", "explorer/tui/screens/sweep_page.py",
              "explorer/walks/evaluation/kept_run.py", "explorer/walks/evaluation/check_set.py",
              "explorer/corpora/questions.py", "explorer/navigators/prompt_variants.py",
              "explorer/navigators/llm/cache.py", "explorer/walks/telemetry/exporter.py",
              "explorer/tui/walk_screen/walk_files.py"}
    for name in askers:
        calls = {node.func.id for node in ast.walk(ast.parse((ROOT / name).read_text(encoding="utf-8")))
                 if isinstance(node, ast.Call) and isinstance(node.func, ast.Name)}
        assert calls & {"write", "open_stream"}, name


# -- the gate's rules on real files ---------------------------------------------------------------------------------


def test_an_output_over_an_input_is_refused_in_one_line_and_the_input_is_unchanged(tmp_path):
    corpus = tmp_path / "handbook.yaml"
    corpus.write_text("the corpus\n")
    link = tmp_path / "link.svg"
    link.symlink_to(corpus)
    ledger = Ledger(Read("the corpus", corpus))
    for path in (corpus, link):
        with pytest.raises(Refused) as refused:
            write(Output("the screenshot", path), "<svg/>", ledger, doing="save the screenshot", replace=True)
        assert str(refused.value) == (f"the screenshot {path} is the corpus ({corpus}); an output must not overwrite "
                                      "an input: choose another file")
    assert corpus.read_text() == "the corpus\n" and link.is_symlink()
    assert ledger.written == ()


def test_an_existing_file_is_replaced_only_when_asked_and_the_ledger_says_what_was_written(tmp_path):
    kept = tmp_path / "handbook.run.json"
    kept.write_text("budget 3\n")
    ledger = Ledger()
    with pytest.raises(Refused) as refused:
        write(Output("the run", kept), "budget 15\n", ledger, doing="save the run")
    assert refused.value.exists and str(refused.value) == (f"the run {kept} exists and would be replaced; choose "
                                                           "another name")
    assert kept.read_text() == "budget 3\n"
    assert free_name(kept) == tmp_path / "handbook-2.run.json"
    write(Output("the run", kept), "budget 15\n", ledger, doing="save the run", replace=True)
    assert kept.read_text() == "budget 15\n"
    assert ledger.written == (Output("the run", kept),)


def test_a_write_through_a_symlink_replaces_its_target_and_leaves_the_link(tmp_path):
    target = tmp_path / "real.jsonl"
    target.write_text("old\n")
    target.chmod(0o640)
    link = tmp_path / "link.jsonl"
    link.symlink_to(target)
    write_atomically(link, "new\n")
    assert link.is_symlink() and os.readlink(link) == str(target)
    assert target.read_text() == "new\n" and (target.stat().st_mode & 0o777) == 0o640  # it keeps its own mode
    assert sorted(p.name for p in tmp_path.iterdir()) == ["link.jsonl", "real.jsonl"]  # no temporary left


def test_nothing_is_written_to_a_fifo_a_device_or_a_link_loop(tmp_path):
    fifo = tmp_path / "pipe"
    os.mkfifo(fifo)
    to_fifo, loop = tmp_path / "to-fifo", tmp_path / "loop"
    to_fifo.symlink_to(fifo)
    loop.symlink_to(loop)
    for path in (fifo, to_fifo, Path("/dev/null"), loop):
        with pytest.raises(OSError):
            write_atomically(path, "x")
        with pytest.raises(OSError):
            open_stream(Output("--otlp-file", path), doing="write spans", replace=True)
    assert to_fifo.is_symlink() and loop.is_symlink() and fifo.exists()
    assert sorted(p.name for p in tmp_path.iterdir()) == ["loop", "pipe", "to-fifo"]


def test_the_ledger_follows_a_changing_list_and_is_safe_from_threads(tmp_path):
    walks: list[Path] = []
    ledger = Ledger(Read("the corpus", tmp_path / "c.yaml"))
    ledger.follow(lambda: [Read("the file walk 1 was read from", path) for path in walks])
    walks.append(tmp_path / "walk.jsonl")
    assert list(ledger) == [Read("the corpus", tmp_path / "c.yaml"),
                            Read("the file walk 1 was read from", tmp_path / "walk.jsonl")]
    threads = [threading.Thread(target=ledger.read, args=("a kept run", tmp_path / f"{n}.run.json")) for n in range(8)]
    for thread in threads:
        thread.start()
    for thread in threads:
        thread.join()
    assert len(list(ledger)) == 10
