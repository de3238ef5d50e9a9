"""Provided: `framework.save` and `framework.load`, as `torch.save` and `torch.load` for
state dicts: a model's arrays in one `.npz` file, written atomically, read without pickle.
"""

from __future__ import annotations

import os
import secrets
import zipfile

import numpy as np

from ..function import unwrap
from .modules import Module

__all__ = ["load", "save"]


# names np.savez takes as its own arguments (so they never reach the file), in any NumPy version
RESERVED_KEYS = ("file", "args", "kwds", "allow_pickle")


def _checkpoint_key(key) -> str:
    """The key, if np.savez stores it under that exact name and np.load gives it back as it is."""
    plain = isinstance(key, str) and key and all(c.isalnum() or c in "._-" for c in key)
    if not plain or key.endswith(".npy") or key in RESERVED_KEYS:
        raise ValueError(
            f"save: the key {key!r} cannot be a checkpoint name: use letters, digits, '_', '.' "
            f"and '-' (not ending in '.npy', not one of {RESERVED_KEYS}, which np.savez would "
            "drop or rename); nothing was written"
        )
    return key


def _checkpoint_array(key: str, value) -> np.ndarray:
    """The value as an array of real numbers (bool, integers or floats), or a ValueError."""
    try:
        array = np.asarray(unwrap(value))
    except ValueError as error:  # NumPy refuses ragged nested lists
        raise ValueError(f"save: the value of {key!r} is not rectangular ({error}); give every "
                         "row the same length; nothing was written") from None
    if array.dtype.kind not in "biuf":
        raise ValueError(
            f"save: the value of {key!r} holds {array.dtype} values, not real numbers; a "
            "checkpoint holds arrays of bool, integers or floats only (load never unpickles "
            "objects); nothing was written"
        )
    return array


def save(module: Module | dict, path) -> None:
    """Write a module's state dict (or a dict of arrays) to `path` as .npz, at exactly that path.

    All or nothing: every key and value is checked first; the file is then written under a
    temporary name in the same folder, flushed to disk, and renamed to `path` in one step
    (os.replace), so a save that fails (a bad value, a full disk) leaves `path` as it was.
    """
    state = module.state_dict() if isinstance(module, Module) else module
    arrays = {_checkpoint_key(key): _checkpoint_array(key, value) for key, value in state.items()}
    temporary = f"{os.fspath(path)}.{secrets.token_hex(4)}.tmp"  # same folder: a rename, not a copy
    try:
        with open(temporary, "xb") as file:
            np.savez(file, **arrays)
            file.flush()
            os.fsync(file.fileno())
        os.replace(temporary, path)
    finally:
        if os.path.exists(temporary):  # the save failed before the rename
            os.unlink(temporary)


NPZ_MAGIC, NPY_MAGIC = b"PK\x03\x04", b"\x93NUMPY"  # how a .npz (a zip) and a .npy begin


def load(path, map_location=None, weights_only: bool = True) -> dict[str, np.ndarray]:
    """The state dict that `save` wrote: pass it to `module.load_state_dict`. No pickles are read.

    A file that is not such a checkpoint (a .npy array, Python objects, a truncated or damaged
    .npz) is a ValueError that says which; the file is closed either way. `map_location` and
    `weights_only` are PyTorch's: arrays live on the CPU, and only arrays are ever read.
    """
    if map_location not in (None, "cpu") and str(map_location) != "cpu":
        raise ValueError(f"load: map_location={map_location!r}; the framework runs on the CPU only")
    with open(path, "rb") as file:
        start = file.read(len(NPY_MAGIC))
        if start.startswith(NPY_MAGIC):
            raise ValueError(f"load: {path} is a single NumPy array (.npy), not a checkpoint; "
                             "read it with np.load, or write checkpoints with framework.save")
        if not start.startswith(NPZ_MAGIC):
            raise ValueError(f"load: {path} is not a checkpoint written by framework.save "
                             f"(a .npz file begins with {NPZ_MAGIC!r}, this one with {start!r})")
        file.seek(0)
        try:
            with np.load(file, allow_pickle=False) as archive:
                return {name: archive[name] for name in archive.files}
        except (zipfile.BadZipFile, EOFError, OSError, ValueError) as error:
            what = ("holds Python objects, which only unpickling could read, and load never "
                    "unpickles" if "allow_pickle" in str(error) else "is truncated or damaged")
            raise ValueError(f"load: {path} {what} ({error}); "
                             "save the model again with framework.save") from error
