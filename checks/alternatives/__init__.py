"""Second correct implementations, one list per chapter: edits of the reference that must score 100."""
