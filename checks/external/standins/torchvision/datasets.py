"""`MNIST`, generated: 28x28 uint8 images whose bright bar encodes the label."""

import numpy as np

#: Examples per split (MNIST has 60,000 and 10,000); small, so each epoch is a few steps.
SIZES = {True: 200, False: 100}


def generated_digits(count: int, seed: int) -> tuple[np.ndarray, np.ndarray]:
    """`count` noisy (28, 28) uint8 images and their int64 labels 0-9; label k lights rows 2k..2k+7."""
    rng = np.random.default_rng(seed)
    labels = rng.integers(0, 10, count)
    images = rng.integers(0, 60, (count, 28, 28))
    for image, label in zip(images, labels):
        image[2 * label: 2 * label + 8, 4:24] += 180
    return images.astype(np.uint8), labels.astype(np.int64)


class MNIST:
    """`torchvision.datasets.MNIST(root, train=True, transform=None, download=False)`, generated."""

    def __init__(self, root, train=True, transform=None, target_transform=None, download=False):
        self.train, self.transform, self.target_transform = train, transform, target_transform
        self.data, self.targets = generated_digits(SIZES[bool(train)], seed=0 if train else 1)

    def __len__(self) -> int:
        return len(self.data)

    def __getitem__(self, index):
        image, label = self.data[index], int(self.targets[index])
        if self.transform is not None:
            image = self.transform(image)
        if self.target_transform is not None:
            label = self.target_transform(label)
        return image, label
