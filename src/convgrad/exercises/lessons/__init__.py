"""The exercises, one module each: ``lNN<letter>_<name>.py``.

Module ``l03a_col2im`` is lesson 3's first exercise, ``col2im``; the letter
orders a lesson's exercises as its notebook asks them. A module holds the
whole exercise and declares it last::

    def col2im(col, input_size, kernel_size, ...):  # the reference solution
        ...

    def cases(rng):  # the seeded cases it is checked on
        ...

    def feed(case, output="output", *, stride=None, ...):  # its scatter
        ...

    MISTAKES = [overwrites(feed), no_crop(feed), ...]  # specific first

    EXERCISE = Exercise("col2im", 3, col2im, cases, feeds={"output": feed},
                        mistakes=MISTAKES, hint="...")

What two or more exercises use (case tables, the conv scatter, models,
rules such as ``no_crop`` and the generic ones) comes from
:mod:`convgrad.exercises.shared`; a module may also use another exercise's
reference solution (lesson 7's ``conv_transpose2d`` is lesson 3's
``col2im`` of ``wᵀ · x``), never its cases or mistakes.
:mod:`convgrad.exercises.registry` finds the modules;
``tests/test_exercise_convention.py`` checks that each keeps to this.
"""
