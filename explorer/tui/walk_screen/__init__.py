"""The walk screen (:mod:`.screen`) and its parts: one module each, made by the screen and handed what they use."""

from .screen import WalkScreen

__all__ = ["WalkScreen"]
