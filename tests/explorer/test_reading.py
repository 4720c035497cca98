"""Every file the product reads is a regular file, read with a size cap, or refused in one line (issue 45, serious
point 3): one reader, :mod:`explorer.reading`, and a check that every read in the code goes through it.

Real FIFOs (with no writer: a read of one blocks for ever), links to character devices and loops of symlinks in
tmp_path. Each read runs under a guard: a read that blocks on a FIFO is released (a writer opens and closes it) and
the test fails, rather than hanging the suite."""

from __future__ import annotations

import ast
import errno
import os
import threading
from collections.abc import Callable
from pathlib import Path

import pytest

from explorer.reading import NotARegularFile, TooLarge, open_regular, problem, read_file, read_head

ROOT = Path(__file__).resolve().parents[2]
READER = ROOT / "explorer" / "reading.py"


# -- every read goes through the reader ----------------------------------------------------------------------------

WRITE_MODES = set("wax+")
WRITE_FLAGS = {"O_WRONLY", "O_RDWR", "O_CREAT", "O_DIRECTORY"}
NOT_FILES = {
    # methods named open that open no file: a dialog, a panel, a walk's screen part
    ("explorer/tui/walk_screen/screen.py", "self.asking_again.open"),
    ("explorer/tui/evaluation_screen/screen.py", "panel.open"),
}


def _mode(call: ast.Call, position: int) -> str | None:
    """The mode a call to open passes (a literal), ``"r"`` when none is given, ``None`` when it is not a literal."""
    mode: ast.expr | None = call.args[position] if len(call.args) > position else None
    mode = next((k.value for k in call.keywords if k.arg == "mode"), mode)
    if mode is None:
        return "r"
    return mode.value if isinstance(mode, ast.Constant) and isinstance(mode.value, str) else None


def _flags(call: ast.Call) -> set[str]:
    """The names of the flags an ``os.open`` passes (``os.O_RDWR``, or ``getattr(os, "O_DIRECTORY", 0)``)."""
    if len(call.args) < 2:
        return set()
    return {node.attr if isinstance(node, ast.Attribute) else str(node.value) for node in ast.walk(call.args[1])
            if isinstance(node, ast.Attribute) or (isinstance(node, ast.Constant) and isinstance(node.value, str))}


def reads_in(path: Path) -> list[str]:
    """Each call in ``path`` that reads a file other than through :mod:`explorer.reading`: ``FILE:LINE: SOURCE``."""
    source = path.read_text(encoding="utf-8")
    found: list[str] = []
    relative = path.relative_to(ROOT).as_posix()
    for node in ast.walk(ast.parse(source)):
        if not isinstance(node, ast.Call):
            continue
        func = node.func
        text = ast.unparse(func) if isinstance(func, ast.Attribute) else ""
        read = False
        if isinstance(func, ast.Name) and func.id == "open":
            mode = _mode(node, 1)
            read = mode is None or not WRITE_MODES & set(mode)
        elif isinstance(func, ast.Attribute) and func.attr in ("read_text", "read_bytes"):
            read = True
        elif isinstance(func, ast.Attribute) and text == "os.open":
            read = not WRITE_FLAGS & _flags(node)
        elif isinstance(func, ast.Attribute) and text in ("os.fdopen", "io.open"):
            mode = _mode(node, 1)
            read = mode is None or not WRITE_MODES & set(mode)
        elif isinstance(func, ast.Attribute) and func.attr == "open" and (relative, text) not in NOT_FILES:
            mode = _mode(node, 0)
            read = mode is None or not WRITE_MODES & set(mode)
        if read:
            found.append(f"{relative}:{node.lineno}: {text}")
    return found


def test_every_read_of_a_file_in_the_product_goes_through_the_one_reader() -> None:
    files = [p for package in ("core", "explorer") for p in sorted((ROOT / package).rglob("*.py")) if p != READER]
    assert len(files) > 100
    assert [read for path in files for read in reads_in(path)] == []


def test_the_check_finds_a_read_of_each_kind(tmp_path: Path) -> None:
    module = tmp_path / "reads.py"
    module.write_text(
        "import os\nfrom pathlib import Path\n"
        "open('a')\nopen('a', 'rb')\nPath('a').read_text()\nPath('a').read_bytes()\nPath('a').open()\n"
        "os.open('a', os.O_RDONLY)\nos.fdopen(3)\n"
        "open('a', 'w')\nPath('a').open('w')\nos.open('a', os.O_WRONLY | os.O_CREAT)\nos.fdopen(3, 'w')\n")
    global ROOT
    saved, ROOT = ROOT, tmp_path
    try:
        assert [line.split(": ")[0] for line in reads_in(module)] == [f"reads.py:{n}" for n in range(3, 10)]
    finally:
        ROOT = saved


# -- the reader --------------------------------------------------------------------------------------------------


def guarded(read: Callable[[], object], fifo: Path | None = None, timeout: float = 30.0) -> object:
    """``read()`` on a thread; when it has not returned in ``timeout`` (a hang guard, no promise of speed), a FIFO it
    may block on is opened for writing and closed, so the read ends and the test fails instead of hanging."""
    outcome: list[object] = []

    def run() -> None:
        try:
            outcome.append(("returned", read()))
        except BaseException as exc:  # handed to the test
            outcome.append(("raised", exc))

    thread = threading.Thread(target=run, daemon=True)
    thread.start()
    thread.join(timeout)
    if thread.is_alive():
        if fifo is not None:
            os.close(os.open(fifo, os.O_WRONLY | os.O_NONBLOCK))  # the blocked reader gets its end of file
        thread.join(timeout)
        pytest.fail(f"the read blocked for {timeout} s")
    kind, value = outcome[0]  # type: ignore[misc]
    if kind == "raised":
        raise value  # type: ignore[misc]
    return value


@pytest.fixture
def odd_files(tmp_path: Path) -> dict[str, Path]:
    """A FIFO with no writer, a link to /dev/zero, a loop of two links, a folder, and a small regular file."""
    fifo = tmp_path / "fifo.yaml"
    os.mkfifo(fifo)
    zero = tmp_path / "zero.yaml"
    zero.symlink_to("/dev/zero")
    (tmp_path / "loop-a.yaml").symlink_to(tmp_path / "loop-b.yaml")
    (tmp_path / "loop-b.yaml").symlink_to(tmp_path / "loop-a.yaml")
    folder = tmp_path / "folder.yaml"
    folder.mkdir()
    regular = tmp_path / "regular.txt"
    regular.write_bytes(b"0123456789")
    return {"fifo": fifo, "zero": zero, "loop": tmp_path / "loop-a.yaml", "folder": folder, "regular": regular}


@pytest.mark.parametrize("reader", [lambda p: read_file(p, 100), lambda p: read_head(p, 4)])
def test_the_reader_refuses_what_is_no_regular_file_at_once(odd_files: dict[str, Path], reader) -> None:
    with pytest.raises(NotARegularFile) as fifo:
        guarded(lambda: reader(odd_files["fifo"]), odd_files["fifo"])
    assert problem(fifo.value) == "a FIFO (named pipe), not a regular file"
    with pytest.raises(NotARegularFile) as zero:
        guarded(lambda: reader(odd_files["zero"]))
    assert problem(zero.value) == "a character device, not a regular file"
    with pytest.raises(OSError) as loop:
        guarded(lambda: reader(odd_files["loop"]))
    assert loop.value.errno == errno.ELOOP
    assert problem(loop.value).startswith("the path goes round a loop of symlinks")
    with pytest.raises(IsADirectoryError) as folder:
        reader(odd_files["folder"])
    assert problem(folder.value) == "a folder, not a file"
    with pytest.raises(FileNotFoundError) as missing:
        reader(odd_files["regular"].with_name("missing"))
    assert problem(missing.value) == "no such file"
    with pytest.raises(OSError) as nul:
        reader(Path("a\0b"))
    assert nul.value.errno == errno.EINVAL


def test_the_reader_reads_a_regular_file_up_to_its_cap(odd_files: dict[str, Path]) -> None:
    regular = odd_files["regular"]
    assert read_file(regular, 10) == b"0123456789"
    with pytest.raises(TooLarge) as large:
        read_file(regular, 9)
    assert problem(large.value) == "10 bytes, more than the 9 read"
    assert read_head(regular, 4) == b"0123"
    with open_regular(regular, 10) as stream:
        assert stream.readline() == b"0123456789"
    link = regular.with_name("link.txt")
    link.symlink_to(regular)
    assert read_file(link, 10) == b"0123456789"
    with pytest.raises(OSError) as not_followed:
        read_file(link, 10, follow_symlinks=False)
    assert not_followed.value.errno == errno.ELOOP
