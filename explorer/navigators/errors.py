"""What goes wrong in choosing a navigator: a model id that cannot be used (:class:`NavigatorConfigError`), one
whose navigator needs a person where nobody steps through (:class:`NavigatorNeedsAPerson`), and one that names a file
where files are off (:class:`NavigatorReadsAFile`)."""

from __future__ import annotations

__all__ = ["NavigatorConfigError", "NavigatorNeedsAPerson", "NavigatorReadsAFile"]


class NavigatorConfigError(ValueError):
    """A navigator model id that cannot be used: unknown, a missing script, a broken trace, a file refused..."""


class NavigatorNeedsAPerson(NavigatorConfigError):
    """A navigator that waits for a person at every decision, asked for walks nobody steps through."""


class NavigatorReadsAFile(NavigatorConfigError):
    """A navigator that reads a file on this machine (``script:``, ``replay:``, ``local:PATH``), asked for where files
    are off (``--no-files``, a served session shared beyond this machine)."""
