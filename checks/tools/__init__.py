"""Command-line tools behind the Makefile: `python -m checks.tools.<tool>`."""
