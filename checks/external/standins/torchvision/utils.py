"""`save_image`: the corpus only writes samples to look at, so it writes nothing."""


def save_image(tensor, fp, **kwargs) -> None:
    """Accept what torchvision's save_image accepts; no file is written."""
