"""A stand-in for torchvision, which the corpus programs import for MNIST only.

It is not torchvision: `datasets.MNIST` holds generated digits (no download), and
`transforms` and `utils.save_image` do what those programs ask of them. Tensors are made
with whichever `torch` the runner has bound, so one program runs the same on both backends.
"""

from . import datasets, transforms, utils

__all__ = ["datasets", "transforms", "utils"]
