"""The one atomic writer: a file replaced whole or not at all, and no temporary left behind."""

from __future__ import annotations

import threading

import pytest

from explorer.atomic_file import write_atomically


def test_a_write_replaces_the_file_whole(tmp_path):
    target = tmp_path / "run.json"
    target.write_text("old\n", encoding="utf-8")
    assert write_atomically(target, "new ünïcode\n") == target
    assert target.read_text(encoding="utf-8") == "new ünïcode\n"
    assert sorted(p.name for p in tmp_path.iterdir()) == ["run.json"]


def test_a_write_that_fails_leaves_the_old_file_and_no_temporary(tmp_path):
    target = tmp_path / "questions.yaml"
    target.write_text("old\n", encoding="utf-8")
    with pytest.raises(UnicodeEncodeError):
        write_atomically(target, "half \udc80 written")  # a lone surrogate cannot be UTF-8: fails mid-write
    assert target.read_text(encoding="utf-8") == "old\n"
    assert sorted(p.name for p in tmp_path.iterdir()) == ["questions.yaml"]


def test_a_folder_that_does_not_exist_is_an_oserror(tmp_path):
    with pytest.raises(FileNotFoundError):
        write_atomically(tmp_path / "missing" / "page.html", "x")


def test_threads_writing_one_path_never_share_a_temporary(tmp_path):
    target = tmp_path / "walk.jsonl"
    texts = [f"{i}\n" * 2000 for i in range(8)]
    threads = [threading.Thread(target=write_atomically, args=(target, text)) for text in texts]
    for thread in threads:
        thread.start()
    for thread in threads:
        thread.join()
    assert target.read_text(encoding="utf-8") in texts  # one writer's whole text, never a mix
    assert sorted(p.name for p in tmp_path.iterdir()) == ["walk.jsonl"]


def test_the_temporary_is_named_by_its_prefix_beside_the_file(tmp_path, monkeypatch):
    seen: list[str] = []
    import os

    real_replace = os.replace

    def replace(source, destination):
        seen.append(os.path.basename(source))
        real_replace(source, destination)

    monkeypatch.setattr(os, "replace", replace)
    write_atomically(tmp_path / "a.jsonl", "x", prefix=".a.42")
    assert len(seen) == 1 and seen[0].startswith(".a.42.") and seen[0].endswith(".tmp")
