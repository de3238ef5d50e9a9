"""A pytest plugin for the notebook runs: nbval waits longer for a cell's last outputs.

Once a cell has finished, nbval reads the rest of its outputs with a fixed 5-second
limit between messages. Two kernels on two busy cores can miss that after a
minutes-long training cell, and the cell then fails although it ran; a minute is
still quick to notice a kernel that really went silent.
"""

OUTPUT_TIMEOUT_S = 60


def pytest_collection_modifyitems(items) -> None:
    for item in items:
        if hasattr(item, "output_timeout"):
            item.output_timeout = OUTPUT_TIMEOUT_S
