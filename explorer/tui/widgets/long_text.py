"""Long untrusted text, shown a part at a time: a 50 MB node must not freeze the screen."""

from __future__ import annotations

from rich.text import Text

from ...safe_text import safe

PART = 20_000
"""Characters drawn at first, and added by each request for more."""


def shown_part(text: str, limit: int, *, more_key: str = "L") -> Text:
    """The first ``limit`` characters of ``text``, escaped, and a line saying how much is left and how to see it."""
    shown = safe(text[:limit], multiline=True)
    left = len(text) - limit
    if left > 0:
        shown.append(f"\n\n… {left:,} more characters: press {more_key} to show {min(PART, left):,} more",
                      style="bold")
    return shown
