"""Whether the grading tests run in the sandbox.

The grade command seals each notebook in a bubblewrap sandbox, and refuses
to grade without one unless told ``--no-sandbox``. On a machine with
bubblewrap (CI installs Debian's package) the tests grade through it; on a
laptop without it they grade with ``--no-sandbox``, which runs the same
sealed worker and the same checker in the parent, and the hostile class
(tests/test_grading_hostile.py) is skipped. ``CONVGRAD_REQUIRE_SANDBOX=1``
(set by CI) makes a missing sandbox an error instead.
"""

from __future__ import annotations

import os

from convgrad.course.sealed import sandbox_problem

PROBLEM = sandbox_problem()
if PROBLEM is not None and os.environ.get("CONVGRAD_REQUIRE_SANDBOX"):
    raise RuntimeError(f"CONVGRAD_REQUIRE_SANDBOX is set, but {PROBLEM}")

#: grade_class(..., sandbox=SANDBOX)
SANDBOX = PROBLEM is None
#: the grade command's flags to match
CLI_FLAGS = [] if SANDBOX else ["--no-sandbox"]
