"""Markdown summaries worth reading: extractive over a section's prose (markup-only lines left out), covering its
children's titles, and a front matter's own description first."""

from __future__ import annotations

from pathlib import Path

from explorer.corpora import load_corpus
from explorer.corpora.markdown_prose import description, prose


def write(folder: Path, name: str, text: str) -> Path:
    path = folder / name
    path.write_text(text, encoding="utf-8")
    return path


def test_admonition_markers_includes_code_and_html_are_never_the_summary(tmp_path: Path) -> None:
    path = write(tmp_path, "workers.md", (
        "# Workers\n\n"
        '!!! tip "Added in version 0.13.0"\n\n'
        "--8<-- \"docs/snippets/workers.md\"\n\n"
        "```python\nrun_worker(task)\n```\n\n"
        "<div class=\"note\">Raw HTML here.</div>\n\n"
        "Workers run blocking functions without freezing the UI of your app.\n"
    ))
    corpus = load_corpus(path)
    assert corpus.summary_of("workers") == "Workers run blocking functions without freezing the UI of your app."


def test_a_guide_index_is_summarised_by_the_sentences_about_what_is_under_it(tmp_path: Path) -> None:
    path = write(tmp_path, "guide.md", (
        "# Guide\n\n"
        "Welcome to the Textual Guide! This guide was written for everyone. "
        "Read it from start to end, or dip in where you like. "
        "Workers let an app run blocking code while its screen stays live. "
        "Styles set colours and layout from CSS files kept next to the code. "
        "Thanks go to the many people who read the drafts.\n\n"
        "## Workers\n\nRun work in threads.\n\n## Styles\n\nColours and layout.\n"
    ))
    summary = load_corpus(path).summary_of("guide")
    assert summary == ("Welcome to the Textual Guide! Workers let an app run blocking code while its screen stays "
                       "live. Styles set colours and layout from CSS files kept next to the code.")


def test_front_matter_description_wins(tmp_path: Path) -> None:
    path = write(tmp_path, "events.md", (
        "---\ntitle: Events\ndescription: \"How messages reach handlers, and how to stop them.\"\n---\n\n"
        "Events are a kind of message. They are sent by Textual when something happens in the app.\n"
    ))
    corpus = load_corpus(path)
    assert corpus.summary_of("events") == "How messages reach handlers, and how to stop them."
    assert corpus.index["events"].metadata["summaryDerived"] is False


def test_an_empty_description_takes_no_other_key(tmp_path: Path) -> None:
    path = write(tmp_path, "events.md", (
        "---\ndescription:\ntitle: Events\n---\n\nEvents are a kind of message sent when something happens.\n"))
    assert load_corpus(path).summary_of("events") == "Events are a kind of message sent when something happens."


def test_a_folded_description_is_its_text(tmp_path: Path) -> None:
    path = write(tmp_path, "events.md", (
        "---\ntitle: Events\ndescription: >-\n  How messages reach handlers,\n  and how to stop them.\n"
        "icon: bell\n---\n\nEvents are a kind of message.\n"))
    assert load_corpus(path).summary_of("events") == "How messages reach handlers, and how to stop them."


def test_a_description_line_of_many_spaces_is_read_in_one_pass() -> None:
    assert description("description: a" + " " * 200_000 + "b\n") == "a b"  # the regex took minutes (quadratic)


def test_a_section_with_only_a_list_keeps_its_first_item(tmp_path: Path) -> None:
    path = write(tmp_path, "keys.md", "# Keys\n\n- ctrl+c quits\n- q closes\n")
    assert load_corpus(path).summary_of("keys") == "ctrl+c quits"


def test_prose_keeps_an_admonition_body_and_quotes_but_not_markers() -> None:
    text = ('!!! note "Careful"\n\n    Threads share the app. Use call_from_thread.\n\n'
            "> Quoted words stay here.\n\n| a | b |\n|---|---|\n\n{% include 'x.md' %}\n\n<!--\nhidden\n-->\n")
    assert prose(text) == "Threads share the app. Use call_from_thread.\n\nQuoted words stay here."
