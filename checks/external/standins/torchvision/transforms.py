"""`ToTensor`, `Normalize` and `Compose`, as torchvision's act on a (28, 28) uint8 image."""

import numpy as np


class ToTensor:
    """(H, W) uint8 in 0..255 -> a (1, H, W) float32 tensor in [0, 1]."""

    def __call__(self, image):
        import torch
        return torch.tensor((np.asarray(image, dtype=np.float32) / 255.0)[None])


class Normalize:
    """(x - mean) / std per channel."""

    def __init__(self, mean, std):
        self.mean, self.std = float(mean[0]), float(std[0])

    def __call__(self, tensor):
        return (tensor - self.mean) / self.std


class Compose:
    def __init__(self, transforms):
        self.transforms = list(transforms)

    def __call__(self, image):
        for transform in self.transforms:
            image = transform(image)
        return image
