"""Second correct implementations: each chapter's solution regions written another way.

`checks/alternatives/chapterN.py` defines `ALTERNATIVES`, a list of `checks.mutants.Mutant`
edits of the reference, addressed by exercise region as the bug zoo's are. Applied together they
give a different, correct, textbook-style answer, and the chapter's graders must give it
100/100 (`checks/selftest/test_alternatives.py`): the graders judge behaviour, not idiom.
"""
