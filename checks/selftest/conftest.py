"""The selftests draw with the checks' hypothesis settings, whichever file runs first.

Importing `checks.harness` loads the profile that HYPOTHESIS_PROFILE names ("ci" under
`make test`, "learner" otherwise): no deadline, so a loaded machine cannot fail a test by
slowness. Without this import, a selftest file run on its own drew under hypothesis's
default 200 ms deadline.
"""

import checks.harness  # noqa: F401
