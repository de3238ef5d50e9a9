"""A deep learning framework built from scratch, one chapter at a time.

The chapters' files are here: chapter 1 `autodiff` (the graph engine, `Value`), chapter 2
`gradcheck`, `function`, `ops`, `shape_ops` and `tensor` (`Tensor`, `Function`), chapter 3
`nn` (with chapters 5 to 7 inside it), chapter 4 `optim` and `lr_scheduler`. Two wings hold
the rest: `bonus/`, each chapter's optional exercises (`bonus/chapter4_optimizers.py`), and
`provided/`, what the course gives and does not teach: the data sets (`framework.data`),
pictures (`framework.viz`), PyTorch's names for tensors (`framework.arange`,
`framework.float32`, `framework.sum(x, dim=1)`, ...), `autograd` (`autograd.Function` in
PyTorch's style, `autograd.grad`), `memory` and `runtime`. `utils.data` is PyTorch's Dataset
and DataLoader.

Each name below loads its file when it is first used, so a chapter's file that does not
import yet breaks only what uses it. Importing the package changes nothing outside it but
one import finder, which answers only for the module paths of files that moved
(`framework.viz` is `framework.provided.viz`). `memory.tune()` is the explicit opt-in that
makes training steps faster for the whole process: freed memory kept for reuse (a malloc
setting, on Linux only), a cycle collector that scans less often (the framework's graphs hold
no cycles) and one BLAS thread (a second one crawls on a busy machine for products of the
course's sizes). `set_backend("kernels")` runs F.layer_norm, F.softmax and F.gelu by chapter 8's
fused kernels (`provided/backend.py`; it imports Numba, nothing else here does).
"""

from .provided.function_names import BUILTIN_NAMES, METHOD_FUNCTIONS, OWN_FUNCTIONS, REFUSED_FUNCTIONS
from .provided.lazy import attach, keep_old_paths

#: Module paths of files that moved, kept working: old path → where the file is now.
MOVED = {
    "autograd": "provided.autograd", "creation": "provided.surface", "data": "provided.data",
    "dates": "provided.dates", "generator": "provided.generator",
    "graph_drawing": "provided.graph_drawing", "memory": "provided.memory",
    "optimizer": "provided.optimizer", "prerequisites": "provided.prerequisites",
    "runtime": "provided.runtime", "surface": "provided.surface",
    "tensor_methods": "provided.tensor_methods", "viz": "provided.viz",
    "autodiff_extra": "bonus.chapter1_autodiff", "ops_extra": "bonus.chapter2_tensor",
    "nn.smooth": "bonus.chapter3_primitives", "optim_extra": "bonus.chapter4_optimizers",
    "property_tests": "bonus.chapter4_optimizers", "nn.beam_search": "bonus.chapter5_transformer",
    "nn.rmsnorm": "bonus.chapter5_transformer", "nn.conv_variants": "bonus.chapter6_convolution",
    "nn.text_metrics": "bonus.chapter7_gpt",
}
keep_old_paths(__name__, MOVED)

__all__, __getattr__, __dir__ = attach(
    __name__,
    names={  # submodule: the names it exports here
        "autodiff": ["Value", "backpropagate", "enable_grad", "is_grad_enabled", "no_grad",
                     "numerical_derivative", "set_grad_enabled", "topological_order"],
        "provided.generator": ["Generator", "default_generator", "manual_seed"],
        "provided.backend": ["get_backend", "set_backend"],
        "provided.printing": ["Size"],
        "nn": ["load", "save"],
        "provided.surface": [
            "add", "amax", "amin", "arange", "argmax", "argmin", "cat", "clamp", "clip", "clone",
            "concatenate", "cuda", "device", "div", "double", "empty", "exp", "eye", "flatten",
            "float16", "float32", "float64", "from_numpy", "full", "full_like", "gather", "half",
            "int8", "int16", "int32", "int64", "is_tensor", "linspace", "log", "log_softmax",
            "long", "masked_fill", "matmul", "maximum", "mean", "minimum", "mul", "neg", "numel",
            "ones", "ones_like", "permute", "rand", "rand_like", "randint", "randn", "randn_like",
            "randperm", "relu", "reshape", "sigmoid", "softmax", "sqrt", "squeeze", "stack", "sub",
            "t", "tanh", "tensor", "transpose", "tril", "triu", "uint8", "unsqueeze", "where",
            "zeros", "zeros_like",
            # beyond the chapters' own: more of PyTorch's names, so its programs run unchanged
            "BoolTensor", "DoubleTensor", "FloatTensor", "IntTensor", "LongTensor", "accelerator",
            "argsort", "backends", "chunk", "cos", "cumsum", "eq", "expm1", "ge",
            "get_default_device", "get_default_dtype", "gt", "isfinite", "isnan", "le", "log1p",
            "logical_and", "logical_not", "logical_or", "lt", "mm", "multinomial", "ne", "norm",
            "prod", "rsqrt", "set_default_device", "set_default_dtype", "sin", "sort", "split",
            "square", "std", "topk", "var"],
        # the families of PyTorch's names (issue 38): elementwise, logic, selection, indexing, ...
        "provided.functions": [*METHOD_FUNCTIONS, *OWN_FUNCTIONS, *REFUSED_FUNCTIONS],
        "function": ["Context", "Function", "unbroadcast"],
        "gradcheck": ["gradcheck", "numerical_gradient"],
        "tensor": ["Tensor"],
    },
    submodules=["nn", "optim", "utils"],
    aliases={name: MOVED[name] for name in ("autograd", "data", "memory", "runtime", "surface",
                                             "viz")},
    # builtins' names (torch.sum, torch.float): attributes, but kept out of `import *`
    unlisted={"provided.surface": ["abs", "bool", "float", "int", "max", "min", "pow", "sum"],
              "provided.functions": list(BUILTIN_NAMES)},
)
del attach, keep_old_paths, BUILTIN_NAMES, METHOD_FUNCTIONS, OWN_FUNCTIONS, REFUSED_FUNCTIONS
