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


def test_a_new_file_gets_the_mode_open_would_give_it_and_a_replaced_file_keeps_its_own(tmp_path):
    """A corpus written by import, a page or a trace were made 0600 (the temporary file's mode): readable by no one
    else, whatever the person's umask said."""
    import os
    import stat

    from explorer.atomic_file import write_atomically

    umask = os.umask(0o022)
    os.umask(umask)
    plain = tmp_path / "plain.txt"
    with open(plain, "w", encoding="utf-8") as handle:  # what open() gives a new file here
        handle.write("x")
    new = write_atomically(tmp_path / "new.json", "{}\n")
    assert stat.S_IMODE(new.stat().st_mode) == stat.S_IMODE(plain.stat().st_mode) == 0o666 & ~umask
    kept = tmp_path / "kept.json"
    kept.write_text("old", encoding="utf-8")
    kept.chmod(0o640)
    write_atomically(kept, "new")
    assert stat.S_IMODE(kept.stat().st_mode) == 0o640 and kept.read_text(encoding="utf-8") == "new"
