"""Exercise checkers: run the learner's function, and name the mistake.

A lesson's exercise cell holds a stub that raises ``NotImplementedError``
and one line that checks it::

    def col2im(col, input_size, kernel_size, stride=1, padding=0,
               dilation=1):
        raise NotImplementedError  # your code here

    exercises.check("col2im", col2im)

``check`` runs the function on every seeded case of the exercise, compares
each output with the reference solution, and prints one of:

- ``not attempted yet`` while the stub still raises ``NotImplementedError``;
- ``passed`` with the number of cases;
- the first wrong element (its index, the expected and the returned value,
  the case), which terms feed it where the output is a scatter, the 2-D
  plane drawn as a grid, and, when the evidence points at one, the mistake:
  a code of :data:`CODES` (``CheckResult.diagnosis``), what it is, what
  showed it, and how to fix it.

An exercise with several outputs also gets a verdict for each
(``each output: dx ✗ (no-crop)  dw ✓  db ✓``, ``CheckResult.verdicts``),
so a learner knows which parts are done. A fix is said in the form the
learner used where it matters (``kernel-flipped`` asks a ``dx`` written as
a conv2d of the zero-stuffed ``dy`` for the flip, and loops that flip to
drop it).

An answer whose values are right but which changes its arguments is wrong
too (``mutates-input``, or ``not-restored`` for a nudge left in place).
``check`` never raises for a wrong or unfinished answer, so an untouched
exercise cell runs cleanly under nbval. ``check(..., plot=True)`` and
:meth:`CheckResult.plot` draw the wrong plane beside the expected one.

Each call runs in isolation (:mod:`.isolation`): on POSIX in a child
process, killed at a time limit per case (``time_limit=10`` seconds,
``None`` for none) whatever the learner's code catches, with the code
``time-limit``; a crash there (``os._exit``, a segfault) is an error
verdict, not a dead kernel; what the function prints is printed before the
verdict; grad mode, the backend and NumPy's error state here are as they
were. Everything that reads what the function returned or raised (as
numbers, its ``len`` and ``repr``, an exception's text) runs there, inside
the limit: a return value that cannot be read as numbers is
``bad-return``, not a traceback. An error names the learner's own line and
what its index or shapes mean there (:mod:`.raised`). The verdict is
printed wrapped at words (:func:`.display.wrap`). A bad argument to
``check`` itself (``seed='a'``) raises an error that names it.

Each exercise is one module of :mod:`.lessons`, ``lNN<letter>_<name>``:
its reference solution, its seeded cases, its scatter if an output is one,
its mistakes (the rules that name them), and last its declaration,
``EXERCISE = Exercise(...)`` with the lesson, the outputs and a hint.
What several exercises share is in :mod:`.shared`. The other modules are
the checker, the same for every exercise:

- :mod:`.exercise`: the :class:`Exercise` record;
- :mod:`.registry`: :data:`EXERCISES`, found in :mod:`.lessons`;
- :mod:`.shared`: case tables, the conv scatter, models and rules used by
  more than one exercise, and the generic rules every exercise gets;
- :mod:`.vocabulary`: the mistake codes, and which exercise can make which;
- :mod:`.feeds`: scatters written out as terms (who feeds each element);
- :mod:`.diagnosis`: how evidence is weighed, and the kinds of rule;
- :mod:`.checker` and :mod:`.display`: :func:`check`, :class:`CheckResult`,
  the report, the grid and the figure;
- :mod:`.isolation`: the learner's calls in a child process killed at the
  time limit (an alarm where there is no fork), with nothing left behind;
  :mod:`.wire` is what crosses between the processes (data, never a pickle
  from the learner's side);
- :mod:`.raised`: the learner's line an error came from, and what its
  index or shapes mean;
- :mod:`.graded`: :func:`grade`, the checker as an instructor's
  autograder (a secret seed, a score per output, nothing on stderr, no
  credit for calling the library; see ``docs/grading.md``).

``exercises.bug_hunt`` is lesson 9's module (its network and suspects).
A reference solution is reached one way, :func:`solution` (name), never
under the exercise's name: a learner's ``col2im`` is the only ``col2im``
in a lesson's namespace, and ``tests/test_exercise_convention.py`` holds
the package to that.

Adding an exercise
------------------

Write one module, ``lessons/lNN<letter>_<name>.py``; nothing else is
registered by hand. ``CONTRIBUTING.md`` walks through one. In short:

1. The reference solution, as the learner is asked to write it (sizes
   from :mod:`convgrad.geometry`).
2. ``cases(rng)``: a handful of small cases that *separate* the likely
   mistakes (each mistake gives a different answer on one case and, where
   it can hide, the right answer on another: overlap and none, stride 1
   and 2, padding 0 and 1, dilation 1 and 2, two and three images, square
   and non-square planes).
3. ``MISTAKES``, specific first. Reuse what fits: ``CONV_BACKWARD``
   (:mod:`.shared`) serves any conv backward, ``overwrites``
   (:mod:`.diagnosis`) and ``no_crop`` (:mod:`.shared`) any scatter with a
   ``feed``, ``model`` anything whose wrong answer can be computed. A new
   mistake gets a code in :data:`CODES` and a row in the vocabulary's
   table.
4. ``EXERCISE = Exercise(name, lesson, solution, cases, ...)``: outputs,
   ``feeds`` for outputs that are scatters, and a one-line ``hint`` said
   when no rule fits.
5. Test it: a wrong answer per mistake, in two styles at least (loops and
   a vectorised or ``np.add.at`` form), and two right answers in other
   styles in ``tests/test_diagnosis.py``; the stub cell in the lesson;
   record the checker's verdicts again
   (``python tests/test_exercise_verdicts.py --write``).
"""

from __future__ import annotations

from . import vocabulary
from .checker import CheckResult, check
from .exercise import Exercise
from .graded import Graded, grade
from .lessons import l09c_find_wrong_backward as bug_hunt
from .registry import EXERCISES, solution
from .vocabulary import CODES

__all__ = [
    "CODES",
    "EXERCISES",
    "CheckResult",
    "Graded",
    "Exercise",
    "bug_hunt",
    "check",
    "grade",
    "solution",
    "vocabulary",
]
