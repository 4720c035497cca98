"""The one entry point, ``reasoning-explorer``: the explorer, and headless sub-commands for scripts and CI.

    reasoning-explorer [CORPUS | TRACE | QUESTIONS] [the explorer's options]    (cli.explore)
    reasoning-explorer walk CORPUS QUERY [...]                                   (cli.walk)
    reasoning-explorer validate CORPUS                                           (cli.validate)
    reasoning-explorer eval QUESTIONS [...]                                      (cli.evaluate)
    reasoning-explorer replay TRACE [...]                                        (cli.replay)
    reasoning-explorer diff A.jsonl B.jsonl [--json]                             (cli.diff)
    reasoning-explorer serve [CORPUS | TRACE] [...]   (in a browser)             (cli.serve)
    reasoning-explorer export TRACE --html OUT.html   (a walk as one file)       (cli.export)
    reasoning-explorer import FILE.pdf [-o CORPUS]    (a PDF as a corpus)        (cli.importing)
    reasoning-explorer audit CORPUS [--json]          (the map's weakest nodes)  (cli.audit)

Each sub-command is a module of its own; what they share (argument types, walk options, exit codes) is
``cli.options``, and the files they read ``cli.inputs``. Exit codes: 0 success; 1 the command ran but found
errors (validate) or the walk failed under the ``throw`` policy; 2 usage and configuration errors (one line on
stderr); 130 interrupted. The headless paths never import Textual.
"""

from __future__ import annotations

import errno
import io
import os
import sys
from collections.abc import Callable, Sequence

from ..process import program_started
from ..safe_text import one_line
from .audit import cmd_audit
from .diff import cmd_diff
from .evaluate import cmd_eval
from .explore import cmd_explore
from .importing import cmd_import
from .options import EXIT_INTERRUPTED, EXIT_OK, EXIT_USAGE, PROG, UsageError
from .replay import cmd_replay
from .validate import cmd_validate
from .walk import cmd_walk


def cmd_export(argv: Sequence[str]) -> int:
    from .export import cmd_export as export  # Textual loads only for this command

    return export(argv)


def cmd_serve(argv: Sequence[str]) -> int:
    from .serve import cmd_serve as serve  # textual-serve and aiohttp load only for this command

    return serve(argv)


COMMANDS: dict[str, Callable[[Sequence[str]], int]] = {
    "walk": cmd_walk,
    "validate": cmd_validate,
    "eval": cmd_eval,
    "replay": cmd_replay,
    "diff": cmd_diff,
    "serve": cmd_serve,
    "export": cmd_export,
    "import": cmd_import,
    "audit": cmd_audit,
}


def main(argv: Sequence[str] | None = None) -> int:
    args = list(sys.argv[1:] if argv is None else argv)
    for stream in (sys.stdout, sys.stderr):  # whatever text reaches a writer (a lone surrogate...), it never fails
        if isinstance(stream, io.TextIOWrapper):
            stream.reconfigure(errors="backslashreplace")
    try:
        with program_started():  # the environment read once, here; every module below reads it from there
            if args and args[0] in COMMANDS:
                return COMMANDS[args[0]](args[1:])
            return cmd_explore(args)
    except UsageError as exc:
        print(f"{PROG}: error: {one_line(str(exc))}", file=sys.stderr)
        return EXIT_USAGE
    except KeyboardInterrupt:
        print(f"{PROG}: interrupted", file=sys.stderr)
        return EXIT_INTERRUPTED
    except BrokenPipeError:
        return EXIT_OK
    except OSError as exc:  # a file no check foresaw (a name too long for a loader's test...): one line
        where = f"{os.fsdecode(exc.filename)}: " if exc.filename is not None else ""
        problem = ("the path is longer than the file system allows; give a shorter path"
                   if exc.errno == errno.ENAMETOOLONG else exc.strerror or str(exc))
        print(f"{PROG}: error: {one_line(where + problem)}", file=sys.stderr)
        return EXIT_USAGE


def entry() -> None:
    """The console script."""
    sys.exit(main())
