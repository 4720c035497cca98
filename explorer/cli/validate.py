"""``reasoning-explorer validate``: a corpus's counts, errors and warnings."""

from __future__ import annotations

import errno
from collections.abc import Sequence
from pathlib import Path

from .options import EXIT_FOUND, EXIT_OK, PROG, Parser, console, fail, path_text


def cmd_validate(argv: Sequence[str]) -> int:
    parser = Parser(prog=f"{PROG} validate",
                    description="Load a corpus and report its counts, errors and warnings; or check a question set "
                                "(*.questions.yaml) against its corpus.")
    parser.add_argument("corpus", metavar="CORPUS", type=path_text,
                        help="a corpus, or a question set (*.questions.yaml) to check against its corpus")
    args = parser.parse_args(argv)
    from ..corpora.questions import looks_like_question_set
    from ..corpora.validate import validate, validate_questions
    from .render import question_set_report, validation_report

    try:
        Path(args.corpus).stat()
    except (FileNotFoundError, NotADirectoryError):
        fail(f"{args.corpus}: no such file or folder; give a .yaml, .json, .md or .pdf file, or a folder of .md files")
    except OSError as exc:
        fail(f"{args.corpus}: the path is longer than the file system allows; give a shorter path"
             if exc.errno == errno.ENAMETOOLONG else f"{args.corpus}: {exc.strerror or exc}")
    if looks_like_question_set(args.corpus):
        checked = validate_questions(args.corpus)
        console().print(question_set_report(checked))
        return EXIT_OK if checked.ok else EXIT_FOUND
    report = validate(args.corpus)
    console().print(validation_report(report))
    return EXIT_OK if report.ok else EXIT_FOUND
