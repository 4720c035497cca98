"""Installing throw-away navigator providers as real distributions (a ``*.dist-info`` on ``sys.path``)."""

from __future__ import annotations

import itertools
import sys
import textwrap
from pathlib import Path

_counter = itertools.count()

PROVIDER = '''
from core import NavigatorChoice, TreeNavigator


class {cls}(TreeNavigator):
    def __init__(self):
        {init}

    def supports(self, model):
        return model.startswith({prefix!r})

    def choose(self, request):
        return NavigatorChoice(tuple(c.id for c in request.candidates[:1]), {cls!r})
'''


class Plugins:
    """Writes distributions into a folder that is on ``sys.path`` for one test."""

    def __init__(self, root: Path, group: str) -> None:
        self.root = root
        self.group = group
        self.modules: list[str] = []

    def install(
        self,
        dist: str,
        entries: dict[str, str],
        providers: dict[str, tuple[str, str]] | None = None,
        group: str | None = None,
    ) -> None:
        """``entries`` maps entry-point names to ``module:Class``; ``providers`` maps
        ``module:Class`` to (model prefix, constructor body) for modules to write."""
        for target, (prefix, init) in (providers or {}).items():
            module, cls = target.split(":")
            (self.root / f"{module}.py").write_text(PROVIDER.format(cls=cls, prefix=prefix, init=init))
            self.modules.append(module)
        info = self.root / f"{dist}-1.0.dist-info"
        info.mkdir()
        (info / "METADATA").write_text(f"Metadata-Version: 2.1\nName: {dist}\nVersion: 1.0\n")
        lines = "\n".join(f"{name} = {value}" for name, value in entries.items())
        (info / "entry_points.txt").write_text(f"[{group or self.group}]\n{lines}\n")

    def provider(self, prefix: str, init: str = "pass") -> str:
        """A fresh module with one provider class; returns ``module:Class``."""
        n = next(_counter)
        return f"fake_nav_{n}_{prefix.strip(':').replace('-', '_')}:Nav{n}"

    def cleanup(self) -> None:
        for module in self.modules:
            sys.modules.pop(module, None)


def dedent(text: str) -> str:
    return textwrap.dedent(text)
