"""The response cache: an identical request is answered from disk without a call; what makes a request
different; what is never cached; and entries that are truncated, garbage or written by two writers at once are
misses, never failures. (Two eval runs in a row against the real local model: test_local_model.py.)"""

from __future__ import annotations

import json
import multiprocessing
import os
import threading
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import httpx
import pytest

from core import CancellationToken, NavigatorRequest, NodeView
from explorer.navigators import resolve_navigator
from explorer.navigators.answered import Answered, answered_by
from explorer.navigators.llm.cache import ResponseCache, request_key
from explorer.navigators.llm.settings import CACHE_DIR_ENV, cache_dir
from explorer.navigators.openai_compat import (
    OPENAI_API_KEY_ENV,
    OPENAI_BASE_URL_ENV,
    NavigatorHTTPError,
    OpenAICompatibleNavigator,
)

CANDIDATES = (NodeView("billing", "Billing"), NodeView("accounts", "Accounts"), NodeView("support", "Support"))


@pytest.fixture
def folder(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> Iterator[Path]:
    cache = tmp_path / "cache"
    monkeypatch.setenv(CACHE_DIR_ENV, str(cache))
    monkeypatch.setenv(OPENAI_API_KEY_ENV, "sk-first-key-0001")
    monkeypatch.setenv(OPENAI_BASE_URL_ENV, "http://llm.test/v1")
    yield cache


class Server:
    """A MockTransport handler that counts calls and answers each with the next id of ``answers``."""

    def __init__(self, *answers: str) -> None:
        self.answers = list(answers)
        self.calls = 0

    def __call__(self, request: httpx.Request) -> httpx.Response:
        self.calls += 1
        chosen = self.answers[(self.calls - 1) % len(self.answers)]
        text = json.dumps({"selected": [chosen], "rationale": f"call {self.calls}"})
        return httpx.Response(200, json={"choices": [{"message": {"role": "assistant", "content": text}}]})


def ask(server: Server, model: str = "openai:m", query: str = "refunds", candidates: tuple[NodeView, ...] = CANDIDATES,
        remaining: int = 5) -> Any:
    with OpenAICompatibleNavigator(transport=httpx.MockTransport(server)) as nav:
        return nav.choose(NavigatorRequest(query, model, None, candidates, remaining, CancellationToken()))


def entries(folder: Path) -> list[Path]:
    return sorted(folder.rglob("*.json"))


def test_an_identical_request_is_answered_from_the_cache_without_a_call(folder: Path) -> None:
    server = Server("billing", "support")
    first, second = ask(server), ask(server)
    assert server.calls == 1
    assert (second.selected, second.rationale) == (first.selected, first.rationale) == (("billing",), "call 1")
    assert answered_by(first.transcript) is Answered.LIVE
    assert answered_by(second.transcript) is Answered.CACHED
    pairs = dict(second.transcript)
    assert pairs["http"] == "none: 200 from the response cache"
    assert pairs["answered"].startswith("cached: the answer to an identical request, saved ")
    assert pairs["answer"] == dict(first.transcript)["answer"]
    (entry,) = entries(folder)
    saved = json.loads(entry.read_text())
    assert saved["where"] == "http://llm.test/v1" and saved["status"] == 200
    assert saved["request"]["messages"][1]["content"].startswith("Query: refunds")


def test_the_key_is_never_part_of_the_request_so_another_key_hits(folder: Path,
                                                                  monkeypatch: pytest.MonkeyPatch) -> None:
    server = Server("billing", "support")
    ask(server)
    monkeypatch.setenv(OPENAI_API_KEY_ENV, "sk-other-key-0002")
    assert ask(server).selected == ("billing",)
    assert server.calls == 1
    text = "".join(path.read_text() for path in entries(folder))
    assert "sk-first-key-0001" not in text and "sk-other-key-0002" not in text


@pytest.mark.parametrize("change", ["base_url", "model", "messages", "schema", "sampling", "max_tokens", "offer"])
def test_any_part_of_the_request_makes_another_entry(folder: Path, monkeypatch: pytest.MonkeyPatch,
                                                     change: str) -> None:
    server = Server("billing", "support")
    ask(server)
    kwargs: dict[str, Any] = {}
    if change == "base_url":
        monkeypatch.setenv(OPENAI_BASE_URL_ENV, "http://other.test/v1")
    elif change == "model":
        kwargs["model"] = "openai:other"
    elif change == "messages":
        kwargs["query"] = "invoices"
    elif change == "schema":
        kwargs["model"] = "openai:m@schema=off"
    elif change == "sampling":
        kwargs["model"] = "openai:m@temperature=0.5,seed=1"
    elif change == "max_tokens":
        kwargs["model"] = "openai:m@max_tokens=99"
    else:
        kwargs["remaining"] = 2  # the schema's maxItems and the prompt's visits left
    assert ask(server, **kwargs).selected == ("support",)
    assert server.calls == 2
    assert len(entries(folder)) == 2


def test_a_temperature_above_0_without_a_seed_is_never_cached(folder: Path) -> None:
    server = Server("billing", "support")
    first, second = ask(server, model="openai:m@temperature=0.8"), ask(server, model="openai:m@temperature=0.8")
    assert (first.selected, second.selected) == (("billing",), ("support",))
    assert server.calls == 2
    assert entries(folder) == []
    assert answered_by(second.transcript) is Answered.LIVE


def test_a_temperature_above_0_with_a_seed_is_cached(folder: Path) -> None:
    server = Server("billing", "support")
    ask(server, model="openai:m@temperature=0.8,seed=3")
    assert ask(server, model="openai:m@temperature=0.8,seed=3").selected == ("billing",)
    assert server.calls == 1


def test_off_means_no_cache(folder: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setenv(CACHE_DIR_ENV, "off")
    server = Server("billing", "support")
    ask(server), ask(server)
    assert server.calls == 2
    assert not folder.exists()


def test_a_cache_folder_that_is_a_file_is_refused_in_one_line(folder: Path) -> None:
    folder.parent.mkdir(exist_ok=True)
    folder.write_text("a file where the cache folder should be")
    said = f"{CACHE_DIR_ENV}={folder}: not a folder; name a folder for the cache (it is made if need be)"
    with pytest.raises(NavigatorHTTPError) as caught:
        cache_dir()
    assert str(caught.value) == said
    navigator = resolve_navigator("openai:m")  # the cache is no setting of the model: a program may name its own
    with pytest.raises(NavigatorHTTPError) as refused:
        navigator.settings("openai:m")  # unwired, at its first call
    assert str(refused.value) == said


def test_the_default_folder_is_the_users_cache_folder(monkeypatch: pytest.MonkeyPatch, tmp_path: Path) -> None:
    monkeypatch.delenv(CACHE_DIR_ENV)
    monkeypatch.setenv("XDG_CACHE_HOME", str(tmp_path / "xdg"))
    assert cache_dir() == tmp_path / "xdg" / "reasoning-explorer" / "llm"
    monkeypatch.delenv("XDG_CACHE_HOME")
    monkeypatch.setenv("HOME", str(tmp_path / "home"))
    assert cache_dir() == tmp_path / "home" / ".cache" / "reasoning-explorer" / "llm"
    monkeypatch.setenv("XDG_CACHE_HOME", "relative/path")  # the spec says: ignore a relative one
    assert cache_dir() == tmp_path / "home" / ".cache" / "reasoning-explorer" / "llm"


def test_an_unreadable_answer_is_cached_too_and_fails_the_same_without_a_call(folder: Path) -> None:
    calls = []

    def handler(request: httpx.Request) -> httpx.Response:
        calls.append(request)
        return httpx.Response(200, json={"choices": [{"message": {"role": "assistant", "content": "no JSON"}}]})

    for _ in range(2):
        with OpenAICompatibleNavigator(transport=httpx.MockTransport(handler)) as nav, \
                pytest.raises(NavigatorHTTPError, match="is not the JSON asked for") as caught:
            nav.choose(NavigatorRequest("q", "openai:m", None, CANDIDATES, 5, CancellationToken()))
    assert len(calls) == 1
    assert answered_by(caught.value.transcript) is Answered.CACHED


def test_an_error_answer_is_not_cached(folder: Path) -> None:
    replies = [httpx.Response(404, json={"error": {"message": "no such model"}})]

    def handler(request: httpx.Request) -> httpx.Response:
        return replies.pop(0) if replies else Server("accounts")(request)

    with OpenAICompatibleNavigator(transport=httpx.MockTransport(handler)) as nav:
        with pytest.raises(NavigatorHTTPError, match="HTTP 404"):
            nav.choose(NavigatorRequest("q", "openai:m", None, CANDIDATES, 5, CancellationToken()))
        assert entries(folder) == []
        assert nav.choose(NavigatorRequest("q", "openai:m", None, CANDIDATES, 5, CancellationToken())).selected == (
            "accounts",)


# -- entries that are not whole ---------------------------------------------------------------------------


@pytest.mark.parametrize("damage", ["truncated", "garbage", "empty", "another request", "not an object",
                                    "a folder", "wrong types", "a symlink"])
def test_a_damaged_entry_is_a_miss_and_is_written_again(folder: Path, damage: str) -> None:
    server = Server("billing", "support")
    ask(server)
    (entry,) = entries(folder)
    whole = entry.read_text()
    if damage == "truncated":
        entry.write_text(whole[: len(whole) // 2])
    elif damage == "garbage":
        entry.write_bytes(b"\x00\xff\xfe garbage \x89PNG")
    elif damage == "empty":
        entry.write_text("")
    elif damage == "another request":
        saved = json.loads(whole)
        saved["request"]["messages"][1]["content"] = "Query: something else"
        entry.write_text(json.dumps(saved))
    elif damage == "not an object":
        entry.write_text("[1, 2, 3]")
    elif damage == "a folder":
        entry.unlink()
        entry.mkdir()
    elif damage == "a symlink":  # to a whole entry, even: an entry is a file this cache wrote, never a link
        elsewhere = folder.parent / "elsewhere.json"
        elsewhere.write_text(whole)
        entry.unlink()
        entry.symlink_to(elsewhere)
    else:
        saved = json.loads(whole)
        saved["status"] = "200"
        entry.write_text(json.dumps(saved))
    assert ask(server).selected == ("support",)
    assert server.calls == 2
    if damage != "a folder":
        assert ask(server).selected == ("support",)  # written again, whole: the next one is a hit
        assert server.calls == 2


def test_a_fifo_at_an_entrys_path_is_a_miss_not_waited_on(folder: Path) -> None:
    """The cache opened it blocking, and a FIFO with no writer held the walk for ever (issue 30, point 7)."""
    server = Server("billing", "support")
    ask(server)
    (entry,) = entries(folder)
    entry.unlink()
    os.mkfifo(entry)
    answered: list[Any] = []
    asking = threading.Thread(target=lambda: answered.append(ask(server)), daemon=True)
    asking.start()
    asking.join(30)  # a hang guard, not a pause
    if asking.is_alive():  # let the stuck reader go (a writer opens the FIFO), then fail
        os.close(os.open(entry, os.O_WRONLY | os.O_NONBLOCK))
        asking.join(10)
        pytest.fail("the cache waited on a FIFO at an entry's path")
    assert [choice.selected for choice in answered] == [("support",)]
    assert server.calls == 2
    assert entry.is_file() and ask(server).selected == ("support",)  # written again, whole: a hit
    assert server.calls == 2


def test_a_folder_that_cannot_be_written_is_no_failure(folder: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    folder.parent.mkdir(exist_ok=True)
    blocking = folder.parent / "a-file"
    blocking.write_text("a file where the cache folder's parent should be")
    monkeypatch.setenv(CACHE_DIR_ENV, str(blocking / "cache"))
    server = Server("billing")
    assert ask(server).selected == ("billing",)
    assert ask(server).selected == ("billing",)
    assert server.calls == 2


BODY = {"model": "m", "messages": [{"role": "user", "content": "x" * 20_000}], "temperature": 0}


def _write_many(folder: str, writer: int, rounds: int) -> None:
    cache = ResponseCache(Path(folder))
    for round_ in range(rounds):
        assert cache.put("http://w.test/v1", BODY, 200, json.dumps({"writer": writer, "round": round_}) * 50)


def test_two_writers_of_one_key_at_once_leave_a_whole_entry_and_readers_never_fail(tmp_path: Path) -> None:
    folder = tmp_path / "shared"
    cache = ResponseCache(folder)
    context = multiprocessing.get_context("spawn")
    writers = [context.Process(target=_write_many, args=(str(folder), n, 150)) for n in (1, 2)]
    for process in writers:
        process.start()
    seen: list[int] = []
    problems: list[BaseException] = []
    stop = threading.Event()

    def read() -> None:
        while not stop.is_set():
            try:
                hit = cache.get("http://w.test/v1", BODY)
                if hit is not None:
                    seen.append(json.loads(hit.text[: hit.text.index("}") + 1])["writer"])
            except BaseException as exc:  # a reader must never fail: collected, and the test says so
                problems.append(exc)

    reader = threading.Thread(target=read)
    reader.start()
    for process in writers:
        process.join(timeout=120)
    stop.set()
    reader.join(timeout=30)
    assert [process.exitcode for process in writers] == [0, 0]
    assert problems == []
    assert set(seen) <= {1, 2}
    final = cache.get("http://w.test/v1", BODY)
    assert final is not None and final.status == 200
    assert [path.name for path in (folder / request_key("http://w.test/v1", BODY)[:2]).iterdir()] == [
        f"{request_key('http://w.test/v1', BODY)}.json"]  # no temporary file left behind
    assert os.access(folder, os.W_OK)
