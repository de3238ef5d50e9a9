"""The names `functions.py` gives `framework`, listed without importing it: the package's
`__init__` reads them (a name loads its file only when first used)."""

#: `torch.f(x, ...)` is `x.f(...)` for each of these (the families' methods)
METHOD_FUNCTIONS = (
    # elementwise math (elementwise.py)
    "tan", "asin", "acos", "atan", "sinh", "cosh", "asinh", "acosh", "atanh", "exp2", "log2",
    "log10", "reciprocal", "sinc", "deg2rad", "rad2deg", "logit", "erf", "erfc", "frac",
    "positive", "floor", "ceil", "trunc", "fix", "sign", "sgn", "atan2", "hypot", "fmod",
    "remainder", "logaddexp", "logaddexp2", "xlogy", "fmax", "fmin", "copysign", "arcsin",
    "arccos", "arctan", "arcsinh", "arccosh", "arctanh", "arctan2", "absolute", "negative",
    "multiply", "subtract", "divide", "true_divide", "clamp_min", "clamp_max", "nan_to_num",
    "lerp", "float_power", "addcmul", "addcdiv", "rsub", "ldexp", "frexp",
    # comparison and logic (logic.py)
    "isinf", "isposinf", "isneginf", "isreal", "signbit", "logical_xor", "bitwise_and",
    "bitwise_or", "bitwise_xor", "bitwise_not", "not_equal", "greater", "greater_equal", "less",
    "less_equal", "isclose", "allclose", "equal", "bitwise_left_shift", "bitwise_right_shift",
    "gcd", "lcm", "heaviside", "nextafter", "floor_divide", "all", "any",
    # reductions, scans, sorting and selection (selection.py)
    "nansum", "nanmean", "logsumexp", "aminmax", "count_nonzero", "diff", "cummax", "cummin",
    "msort", "kthvalue", "median", "unique", "cumprod", "logcumsumexp", "dist",
    "nanmedian", "quantile", "nanquantile", "mode", "unique_consecutive",
    # splitting and indexing (indexing.py)
    "unbind", "tensor_split", "hsplit", "vsplit", "dsplit", "index_select", "narrow", "select",
    "masked_select", "take", "take_along_dim", "nonzero", "argwhere", "scatter", "scatter_add",
    "index_add", "index_fill", "index_copy", "put", "masked_scatter", "scatter_reduce",
    "index_put",
    # sampling (random_ops.py)
    "bernoulli",
    # in-place forms that torch has as functions too (torch.sin_(x) is x.sin_())
    "abs_", "acos_", "acosh_", "arccos_", "arccosh_", "arcsin_", "arcsinh_", "arctan_",
    "arctanh_", "asin_", "asinh_", "atan_", "atanh_", "ceil_", "clamp_", "clamp_max_",
    "clamp_min_", "clip_", "cos_", "cosh_", "deg2rad_", "erf_", "erfc_", "exp2_", "exp_",
    "expm1_", "fix_", "floor_", "frac_", "gcd_", "lcm_", "ldexp_", "log10_", "log1p_", "log2_",
    "log_", "logit_", "nan_to_num_", "neg_", "negative_", "rad2deg_", "reciprocal_", "relu_",
    "round_", "rsqrt_", "sigmoid_", "sin_", "sinc_", "sinh_", "sqrt_", "square_", "tan_",
    "tanh_", "trunc_", "xlogy_", "index_put_",
)

#: functions of their own in functions.py
OWN_FUNCTIONS = ("atleast_1d", "atleast_2d", "atleast_3d", "hstack", "vstack", "row_stack",
                 "dstack", "column_stack", "concat", "std_mean", "var_mean", "normal", "poisson",
                 "randint_like", "seed", "initial_seed", "searchsorted", "bucketize", "isin")

#: refused by name, with the reason (loud.py's REFUSED)
REFUSED_FUNCTIONS = ("angle", "conj", "conj_physical", "imag", "real", "polar", "complex",
                     "view_as_real", "view_as_complex", "resolve_conj", "lgamma", "digamma",
                     "polygamma", "mvlgamma", "erfinv", "i0", "i0_", "igamma", "igammac")

#: names of Python's builtins: attributes of `framework`, kept out of `import *`
BUILTIN_NAMES = ("round",)
