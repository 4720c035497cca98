"""What goes wrong in choosing a navigator: a model id that cannot be used (:class:`NavigatorConfigError`), and one
whose navigator needs a person where nobody steps through (:class:`NavigatorNeedsAPerson`)."""

from __future__ import annotations

__all__ = ["NavigatorConfigError", "NavigatorNeedsAPerson"]


class NavigatorConfigError(ValueError):
    """A navigator model id that cannot be used: unknown, a missing script, a broken trace, a file refused..."""


class NavigatorNeedsAPerson(NavigatorConfigError):
    """A navigator that waits for a person at every decision, asked for walks nobody steps through."""
