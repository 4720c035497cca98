"""Untrusted text made visible: terminal controls, bidi overrides and lone surrogates never go out raw."""

from __future__ import annotations

import json
import subprocess
import sys

import pytest

from explorer.safe_text import escape_json, has_control, json_text, one_line, safe, visible

HOSTILE = "ok\x1b]0;pwned\x07 \x9b2J \u202eevil \u2066x\u2069 \u200b\ufeff \x7f \ud800 \udcff"


def test_visible_escapes_c0_c1_bidi_invisible_and_lone_surrogates():
    assert visible(HOSTILE) == ("ok\\x1b]0;pwned\\x07 \\x9b2J \\u202eevil \\u2066x\\u2069 \\u200b\\ufeff \\x7f "
                                "\\ud800 \\udcff")


def test_visible_text_encodes_as_utf8_whatever_it_held():
    assert visible("caf\udce9 \ud83d").encode("utf-8") == b"caf\\udce9 \\ud83d"


def test_visible_keeps_letters_of_every_script_and_astral_characters():
    assert visible("naïve Ελληνικά 日本語 😀 עברית") == "naïve Ελληνικά 日本語 😀 עברית"


def test_one_line_folds_whitespace_and_escapes_the_rest():
    assert one_line("  a.yaml:3:\n\tbad \x1b[2J\r\n value\x85  ") == "a.yaml:3: bad \\x1b[2J value\\x85"


def test_json_text_escapes_what_json_dumps_leaves_raw_and_means_the_same():
    text = json_text({"title": HOSTILE, "é": ["日本", "\u009b"]}, indent=2)
    for raw in ("\x1b", "\x07", "\x9b", "\u202e", "\u2066", "\u200b", "\ufeff", "\x7f", "\ud800", "\udcff"):
        assert raw not in text
    assert "\\u202e" in text and "\\u009b" in text and "\\udcff" in text
    assert "é" in text and "日本" in text  # readable letters stay themselves
    assert json.loads(text) == {"title": HOSTILE, "é": ["日本", "\u009b"]}
    text.encode("utf-8")


def test_escape_json_leaves_the_layout_newlines_alone():
    assert escape_json('{\n  "a": "\u202e"\n}') == '{\n  "a": "\\u202e"\n}'


@pytest.mark.parametrize("width", [None, 12])
def test_safe_is_never_markup(width):
    text = safe("[bold]x[/] \x1b[31m", width=width)
    assert text.plain == clip_to("[bold]x[/] \\x1b[31m", width) and not text.spans


def clip_to(text, width):
    return text if width is None or len(text) <= width else text[: width - 1] + "…"


@pytest.mark.process
def test_escaping_text_and_writing_traces_never_load_rich():
    code = "import sys, explorer.safe_text, explorer.trace; print('rich' in sys.modules)"
    out = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, timeout=60)
    assert out.stdout.strip() == "False", out.stderr


def test_a_styled_head_colours_only_itself_so_text_appended_after_it_keeps_its_own_style():
    from rich.console import Console
    from rich.style import Style

    from explorer.safe_text import styled

    for head in (styled("Why     ", "bold red"), safe("Why     ", "bold red")):
        head.append("the model's own words")
        assert head.style == ""  # the Text's own style would colour all of it
        assert [(span.start, span.end, str(span.style)) for span in head.spans] == [(0, 8, "bold red")]
        assert head.get_style_at_offset(Console(), 10) == Style.parse("")
    assert styled("", "bold").spans == [] and styled("plain").spans == []


@pytest.mark.parametrize("name", ["a\tb", "a\nb", "a\rb", "a\x1bb", "a\u202eb", "a\u200bb", "a\ud800b", "a\x85b"])
def test_a_name_with_a_control_invisible_or_direction_character_or_a_break_has_control(name: str) -> None:
    assert has_control(name)


@pytest.mark.parametrize("name", ["refunds", "naïve café", "日本語", "a b", "emoji 🙂", "e\u0301"])
def test_a_plain_name_has_no_control(name: str) -> None:
    assert not has_control(name)
