"""The bonus track's inline checks in the notebooks: an exercise not done yet is skipped.

    >>> with attempt("1.8"):
    ...     assert softplus(Value(0.0)).data > 0

Bonus exercises are optional: a learner who skips them runs every notebook to its end. Only
the stub of the named exercise is skipped (one line says so); any other error, and a failing
assertion, is raised as usual.
"""

from __future__ import annotations

from collections.abc import Iterator
from contextlib import contextmanager


@contextmanager
def attempt(exercise_id: str) -> Iterator[None]:
    """Run a bonus exercise's inline check; its untouched stub prints one line instead of raising."""
    try:
        yield
    except NotImplementedError as error:
        if not str(error).startswith(f"Exercise {exercise_id}: "):
            raise
        print(f"bonus exercise {exercise_id} not done yet: its check is skipped (the bonus "
              "track is optional)")
