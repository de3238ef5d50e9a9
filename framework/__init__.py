"""A deep learning framework built from scratch, one chapter at a time.

Chapter 1 `autodiff` (the graph engine, `Value`), chapter 2 `tensor` (`Tensor`,
`Function`), chapter 3 `nn`, chapter 4 `optim`, chapter 5 `nn.transformer`, chapter 6
`nn.conv`; `data`, `utils.data` (PyTorch's Dataset and DataLoader), `viz`, `memory` and
`runtime` are provided.

Each name below loads its file when it is first used, so a chapter's file that does not
import yet breaks only what uses it. Importing the package changes nothing outside it.
`memory.tune()` is the explicit opt-in that makes training steps faster for the whole
process: freed memory kept for reuse (a malloc setting, on Linux only) and a cycle
collector that scans less often (the framework's graphs hold no cycles).
"""

from ._lazy import attach

__all__, __getattr__, __dir__ = attach(
    __name__,
    names={  # submodule: the names it exports here
        "autodiff": ["Value", "backpropagate", "is_grad_enabled", "no_grad",
                     "numerical_derivative", "topological_order"],
        "generator": ["Generator", "default_generator", "manual_seed"],
        "nn": ["load", "save"],
        "tensor": ["Context", "Function", "Tensor", "concatenate", "gradcheck", "matmul",
                   "maximum", "minimum", "numerical_gradient", "ones", "randn", "stack",
                   "tensor", "unbroadcast", "where", "zeros"],
    },
    submodules=["data", "memory", "nn", "optim", "runtime", "utils", "viz"],
)
del attach  # a helper of this file, not a name of the package
