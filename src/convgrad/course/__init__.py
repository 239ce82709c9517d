"""The course around the lessons: student copies, slide decks, the website,
hub links and grading.

Run it as ``python -m convgrad.course``::

    python -m convgrad.course student-copies OUT/
    python -m convgrad.course slides OUT/ --offline [--pdf]
    python -m convgrad.course site OUT/
    python -m convgrad.course link HUB_URL [REPO_URL]
    python -m convgrad.course configure --repo OWNER/NAME --release BRANCH
    python -m convgrad.course assignments OUT/        # an nbgrader source course
    python -m convgrad.course grade SUBMISSIONS --out grades.csv
    python -m convgrad.course check

``configure`` names the repository, image and release
(:mod:`convgrad.course.project`). The publishing commands (``slides``,
``site``) live in :mod:`convgrad.course.publish` and need the ``slides`` or
``site`` extra; importing this package imports none of them.

Every command iterates over ``notebooks/NN-*.ipynb``, so it adapts as
lessons land. Solutions live in one place (``convgrad.exercises``), and
:mod:`convgrad.course.solutions` is the one reader of them as notebook
text; anything a lesson marks as a solution is stripped from student
copies and slides (see :mod:`convgrad.course.student` for the markers).
"""

from __future__ import annotations

from .lessons import Lesson, find_lessons, repo_root
from .solutions import solution_lines
from .student import find_leaks, student_copy, write_student_copies

__all__ = [
    "Lesson",
    "find_leaks",
    "find_lessons",
    "repo_root",
    "solution_lines",
    "student_copy",
    "write_student_copies",
]
