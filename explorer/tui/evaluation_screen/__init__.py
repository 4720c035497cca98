"""The evaluation screen, one folder in the walk screen's shape: the screen (:mod:`.screen`) over its parts — the
table of questions (:mod:`.table`: its columns, rows, filters and order, where a new column goes), each side's run
(:mod:`.sides`) and each cell (:mod:`.cells`)."""

from .cells import totals
from .screen import EVALUATION, EvaluationScreen, open_question_set

__all__ = ["EVALUATION", "EvaluationScreen", "open_question_set", "totals"]
