"""``python -m explorer``: the same as ``reasoning-explorer``."""

from .cli import entry

entry()
