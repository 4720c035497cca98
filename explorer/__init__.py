"""explorer — the Textual app, the command line, the navigators that ship with the app,
corpus loaders and traces, on top of ``core``."""

__version__ = "0.1.0"
