"""A deep learning framework built from scratch, one chapter at a time.

Chapter 1 `autodiff` (the graph engine, `Value`), chapter 2 `tensor` (`Tensor`, `Function`),
chapter 3 `nn`, chapter 4 `optim`, chapter 5 `nn.transformer`, chapter 6 `nn.conv`, chapter
7 `nn.gpt`; `data`, `utils.data` (PyTorch's Dataset and DataLoader), `viz`, `memory` and
`runtime` are provided, and so are PyTorch's names for tensors (`surface`:
`framework.arange`, `framework.float32`, `framework.sum(x, dim=1)`, ...) and `autograd`
(`autograd.Function` in PyTorch's style, `autograd.grad`).

Each name below loads its file when it is first used, so a chapter's file that does not
import yet breaks only what uses it. Importing the package changes nothing outside it.
`memory.tune()` is the explicit opt-in that makes training steps faster for the whole
process: freed memory kept for reuse (a malloc setting, on Linux only), a cycle collector
that scans less often (the framework's graphs hold no cycles) and one BLAS thread (a second
one crawls on a busy machine for products of the course's sizes).
"""

from ._lazy import attach

__all__, __getattr__, __dir__ = attach(
    __name__,
    names={  # submodule: the names it exports here
        "autodiff": ["Value", "backpropagate", "enable_grad", "is_grad_enabled", "no_grad",
                     "numerical_derivative", "set_grad_enabled", "topological_order"],
        "generator": ["Generator", "default_generator", "manual_seed"],
        "nn": ["load", "save"],
        "surface": ["add", "amax", "amin", "arange", "argmax", "argmin", "cat", "clamp", "clip",
                    "clone", "cuda", "device", "div", "double", "empty", "exp",
                    "eye", "flatten", "float16", "float32", "float64",
                    "from_numpy", "full", "full_like", "gather", "half", "int8",
                    "int16", "int32", "int64", "is_tensor", "linspace", "log",
                    "log_softmax", "long", "masked_fill", "mean", "mul", "neg",
                    "numel", "ones_like", "permute", "rand", "rand_like",
                    "randint", "randn_like", "randperm", "relu", "reshape",
                    "sigmoid", "softmax", "sqrt", "squeeze", "sub", "t", "tanh",
                    "transpose", "tril", "triu", "uint8", "unsqueeze",
                    "zeros_like"],
        "creation": ["concatenate", "matmul", "maximum", "minimum", "ones", "randn", "stack",
                     "tensor", "where", "zeros"],
        "function": ["Context", "unbroadcast"],
        "gradcheck": ["gradcheck", "numerical_gradient"],
        # Function through tensor.py, which tells it the class of the tensors it makes
        "tensor": ["Function", "Tensor"],
    },
    submodules=["autograd", "data", "memory", "nn", "optim", "runtime", "surface", "utils", "viz"],
    # builtins' names (torch.sum, torch.float): attributes, but kept out of `import *`
    unlisted={"surface": ["abs", "bool", "float", "int", "max", "min", "pow", "sum"]},
)
del attach  # a helper of this file, not a name of the package
