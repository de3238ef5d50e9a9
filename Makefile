# Every target is a thin wrapper over one `python -m checks.tools.<tool>` command
# (listed in README.md), so nothing depends on make itself.

ifeq ($(OS),Windows_NT)
PY := .venv/Scripts/python.exe
else
PY := .venv/bin/python
endif
PYTHON3 ?= python3

.PHONY: setup lab check student test sweep bench gpu-check notebooks use-reference autograder test-matrix release

setup:
	$(PYTHON3) -m checks.tools.setup

lab:
	$(PY) -m checks.tools.lab

check-chapter%:
	$(PY) -m checks.tools.grade $*

check:
	$(PY) -m checks.tools.grade

compare-chapter%:
	$(PY) -m checks.tools.compare $*

# EX=2.3 (one exercise), CHAPTER=3 (a chapter) or CHAPTER=1-5 (chapters 1 to 5)
use-reference:
	$(PY) -m checks.tools.use_reference $(or $(EX),$(CHAPTER))

student:
	$(PY) -m checks.tools.student

notebooks:
	$(PY) -m checks.tools.execute

test:
	$(PY) -m checks.tools.test

sweep:
	$(PY) -m checks.tools.test --only sweep

bench:
	$(PY) -m checks.tools.bench

# chapter 8's CUDA kernels on a real GPU, timed; one line and exit 0 where none is visible
gpu-check:
	$(PY) -m checks.tools.gpu_check

autograder:
	$(PY) -m checks.tools.autograder

test-matrix:
	$(PY) -m checks.tools.matrix

# the learner's repository without the answers, as a new git repository: build/release/ (or --out)
release:
	$(PY) -m checks.tools.release
