"""The process's state in one place (explorer/process.py): the environment read once where the program starts, and
the holders of what is shared by the whole process."""

from __future__ import annotations

import re
import threading
from pathlib import Path

import pytest

from explorer.navigators.llm.errors import NavigatorHTTPError
from explorer.navigators.llm.settings import MAX_RETRIES_ENV, limits
from explorer.process import OnePerProcess, PerProcess, environment, program_started

NAME = "REASONING_EXPLORER_TEST_PROCESS_VARIABLE"


def test_outside_a_program_the_environment_is_read_as_it_is_now(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.delenv(NAME, raising=False)
    assert environment().get(NAME, "unset") == "unset"
    monkeypatch.setenv(NAME, "now")
    assert environment().get(NAME) == "now"


def test_a_program_sees_the_environment_it_started_with(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setenv(NAME, "at the start")
    monkeypatch.setenv(MAX_RETRIES_ENV, "4")
    with program_started() as started:
        monkeypatch.setenv(NAME, "changed later")
        monkeypatch.setenv(MAX_RETRIES_ENV, "not a number")  # read now, it would be refused
        assert environment() is started
        assert environment().get(NAME) == "at the start"
        assert limits().max_retries == 4
        with pytest.raises(TypeError):
            started.variables[NAME] = "written"  # type: ignore[index]
    assert environment().get(NAME) == "changed later"  # the program over: the environment as it is now
    with pytest.raises(NavigatorHTTPError):
        limits()


def test_a_program_run_inside_another_gives_the_outer_one_back(monkeypatch: pytest.MonkeyPatch) -> None:
    with program_started({NAME: "outer"}):
        with program_started({NAME: "inner"}):
            assert environment().get(NAME) == "inner"
        assert environment().get(NAME) == "outer"
        with pytest.raises(RuntimeError), program_started({NAME: "failing"}):
            raise RuntimeError("a program that fails")
        assert environment().get(NAME) == "outer"


def test_one_per_process_is_made_once_however_many_threads_ask() -> None:
    made: list[object] = []

    def make() -> object:
        made.append(object())
        return made[-1]

    one = OnePerProcess(make)
    barrier = threading.Barrier(8)
    got: list[object] = []

    def ask() -> None:
        barrier.wait()
        got.append(one.get())

    threads = [threading.Thread(target=ask) for _ in range(8)]
    for thread in threads:
        thread.start()
    for thread in threads:
        thread.join()
    assert len(made) == 1
    assert got == made * 8


def test_one_per_process_whose_making_failed_is_made_at_the_next_use() -> None:
    tries: list[int] = []

    def make() -> str:
        tries.append(1)
        if len(tries) == 1:
            raise OSError("not yet")
        return "made"

    one = OnePerProcess(make)
    with pytest.raises(OSError, match="not yet"):
        one.get()
    assert one.get() == "made"
    assert one.get() == "made"
    assert len(tries) == 2


def test_per_process_makes_one_value_per_key_and_lists_them_in_order() -> None:
    made: list[str] = []

    def make(key: str) -> list[str]:
        made.append(key)
        return [key]

    each = PerProcess(make)
    first = each.get("b")
    assert each.get("a") == ["a"]
    assert each.get("b") is first
    assert made == ["b", "a"]
    assert each.values() == (["b"], ["a"])


def test_no_module_but_the_process_module_reads_the_environment_itself() -> None:
    root = Path(__file__).resolve().parents[2]
    readers = sorted(
        f"{path.relative_to(root)}:{number}"
        for path in (root / "explorer").rglob("*.py")
        if path != root / "explorer" / "process.py"
        for number, line in enumerate(path.read_text(encoding="utf-8").splitlines(), 1)
        if re.search(r"\bos\.environ\b|\bgetenv\b|\bimport environ\b", line)
    )
    assert readers == [], "read explorer.process.environment() instead"
