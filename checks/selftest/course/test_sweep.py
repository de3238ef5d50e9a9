"""The soundness sweep and the checks it proved unsound: a correct answer never loses marks."""

import os
import subprocess
import sys
import textwrap

from hypothesis import settings

import checks.harness  # noqa: F401 (registers the profiles)
from checks.loader import ROOT
from checks.tools import test as stages


def test_the_sweep_profile_draws_1000_fresh_examples_per_check():
    sweep = settings.get_profile("sweep")
    assert sweep.max_examples == 1000 and not sweep.derandomize and sweep.deadline is None
    assert sweep.database is None  # nothing replayed: every run draws afresh


def test_the_sweep_is_a_stage_run_on_request_only():
    assert "sweep" in stages.ON_REQUEST and "sweep" not in stages.STAGES
    assert "sweep:" in (ROOT / "Makefile").read_text()


# Draws on which a correct Adam (the reference) sat 3e-4 and 7e-3 from the minimiser after 300
# steps at lr 0.1, and so lost marks under the old "converges within 1e-4" check.
ADAM_DRAWS = textwrap.dedent("""
    import checks.chapter4_optimizers as c
    for seed, weight_decay in ((216, 0.25), (391, 0.0)):
        c.test_adam_follows_its_update_rule_for_300_steps_down_a_convex_quadratic.hypothesis.inner_test(
            seed=seed, weight_decay=weight_decay)
        c.test_adamw_follows_its_update_rule_for_300_steps_down_a_convex_quadratic.hypothesis.inner_test(
            seed=seed, weight_decay=weight_decay)
    print("passed")
""")


def test_adams_long_run_check_passes_the_reference_on_the_draws_that_failed_it():
    done = subprocess.run([sys.executable, "-c", ADAM_DRAWS], cwd=ROOT, capture_output=True,
                          text=True, timeout=120, env={**os.environ, "IMPL": "solutions"})
    assert done.stdout.strip() == "passed", done.stdout + done.stderr
