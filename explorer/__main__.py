"""``python -m explorer``: the same as ``reasoning-explorer``."""

from .cli.main import entry

entry()
