"""PyTorch scripts that run unchanged on the framework and on PyTorch (see runner.py)."""
