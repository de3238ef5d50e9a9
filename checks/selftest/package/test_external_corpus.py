"""The corpus of PyTorch programs written outside this project (checks/external) on the framework:
each program runs to the end, or stops with the error expected.json records for it, so a
program that starts to run, or stops elsewhere, is seen. (With PyTorch installed,
checks/torch_parity/test_external.py compares their printed values with PyTorch's.)
"""

import json

import pytest

from checks.external import coverage
from checks.external.runner import expected, header_lines, name, programs, run_program

PROGRAMS = programs()


def test_the_corpus_has_25_programs_each_with_an_outcome_on_record():
    assert len(PROGRAMS) >= 25
    assert sorted(expected()) == sorted(name(p) for p in PROGRAMS)


@pytest.mark.parametrize("path", PROGRAMS, ids=name)
def test_program_header_names_its_source_licence_and_data(path):
    header = path.read_text().splitlines()[: header_lines(path)]
    fields = [line.split(":")[0] for line in header if not line.startswith("#  ")]
    assert fields[:3] == ["# Source", "# Licence", "# Data"], header
    assert any(licence in header[1] for licence in ("MIT", "BSD-3-Clause", "Apache-2.0")), header[1]


@pytest.mark.parametrize("path", PROGRAMS, ids=name)
def test_program_runs_on_the_framework_as_recorded(path):
    outcome = run_program(path, "framework")
    stops_with = expected()[name(path)]
    if stops_with is None:
        assert outcome.ran, f"{name(path)} stopped: {outcome.error} ({outcome.where})"
    else:
        assert not outcome.ran, f"{name(path)} now runs to the end: record it (runner --write-expected)"
        assert outcome.error.startswith(stops_with), f"{name(path)}: {outcome.error} ({outcome.where})"


def test_the_readme_coverage_table_is_the_one_pytorchs_names_give_today():
    version = json.loads(coverage.NAMES_FILE.read_text())["torch_version"]
    table = coverage.markdown(coverage.classify("solutions"), version)
    assert f"{coverage.BEGIN}\n{table}\n{coverage.END}" in coverage.README.read_text(), (
        "README's coverage table is stale: python -m checks.external.coverage --readme")


def test_the_readme_family_table_is_the_one_pytorchs_names_give_today():
    families = coverage.family_markdown(coverage.classify("solutions"))
    section = f"{coverage.FAMILY_BEGIN}\n{families}\n{coverage.FAMILY_END}"
    assert section in coverage.README.read_text(), (
        "README's coverage table by family is stale: python -m checks.external.coverage --readme")


def test_every_name_of_a_family_is_one_of_pytorchs():
    """A base name PyTorch lacks (a typo in FAMILIES) would count nothing: none may be there."""
    names = json.loads(coverage.NAMES_FILE.read_text())
    known = {n.removesuffix("_") for ns in ("torch", "torch.Tensor") for n in names[ns]}
    for family, bases in coverage.FAMILIES.items():
        assert not set(bases) - known, f"{family}: not PyTorch's: {sorted(set(bases) - known)}"
    assert set(coverage.CONTAINERS) <= set(names["torch.nn"])


def test_the_module_forms_are_derived_from_the_functional_names():
    names = json.loads(coverage.NAMES_FILE.read_text())
    forms = coverage.module_forms(names)
    assert {"Softplus", "MSELoss", "CrossEntropyLoss", "ReLU"} <= set(forms)
    assert not {"Module", "Sequential", "Parameter"} & set(forms)
