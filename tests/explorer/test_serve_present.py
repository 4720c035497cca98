"""`serve --present` hands presenting mode to every tab's explorer; the page serve sends focuses the terminal."""

from __future__ import annotations

import sys

from explorer.cli.serve import TEMPLATES, app_argv, make_parser


def test_serve_present_passes_present_to_each_tab():
    args = make_parser().parse_args(["--present", "--navigator", "lexical:default"])
    assert app_argv(args, 2) == [sys.executable, "-m", "explorer.cli.serve_session", "--navigator=lexical:default",
                                 "--on-failure=throw", "--present"]
    assert "--present" not in app_argv(make_parser().parse_args([]))


def test_the_served_page_links_nothing_outside_and_focuses_the_terminal():
    page = (TEMPLATES / "app_index.html").read_text()
    assert "fonts.googleapis.com" not in page and "https://" not in page
    assert 'querySelector("#terminal .xterm-helper-textarea")' in page and "keys.focus(" in page
