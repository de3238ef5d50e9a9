"""Chapter 3's bug zoo: the mistakes learners make in modules, layers, losses and init."""

from checks.mutants import Mutant

NN, F, INIT = "nn/modules.py", "nn/functional.py", "nn/init.py"

MUTANTS = [
    # -- 3.1 registration
    Mutant(
        "3.1", "nested module parameters missed (one level, no prefix)",
        'yield from walk(child, f"{path}{name}.")',
        "yield from child._parameters.items()",
    ),
    Mutant(
        "3.1", "nested names without the dot",
        'yield from walk(child, f"{path}{name}.")',
        'yield from walk(child, f"{path}{name}")',
    ),
    Mutant(
        "3.1", "submodules never registered",
        "        elif isinstance(value, Module):\n            self._modules[name] = value\n",
        "",
    ),
    Mutant(
        "3.1", "reassigning a name keeps the old parameter",
        "        self._parameters.pop(name, None)\n        self._modules.pop(name, None)\n",
        "",
    ),
    Mutant(
        "3.1", "a shared parameter listed twice",
        "if id(parameter) not in seen:",
        "if True:",
    ),
    Mutant(
        "3.1", "parameters() walks the tree itself and repeats a shared module's",
        "        for _, parameter in self.named_parameters():\n            yield parameter\n",
        "        yield from self._parameters.values()\n"
        "        for child in self._modules.values():\n            yield from child.parameters()\n",
    ),
    # -- 3.2 Linear
    Mutant(
        "3.2", "Linear's weight of shape (in, out)",
        "weight = rng.uniform(-bound, bound, (out_features, in_features))",
        "weight = rng.uniform(-bound, bound, (in_features, out_features))",
    ),
    Mutant(
        "3.2", "Linear forward multiplies by W, not Wᵀ",
        "out = x2 @ weight.T",
        "out = x2 @ weight.reshape(weight.shape[::-1])",
    ),
    Mutant(
        "3.2", "Linear adds a bias when bias=False",
        ".astype(dtype)) if bias else None",
        ".astype(dtype))",
    ),
    Mutant(
        "3.2", "Linear init bound from fan_out",
        "bound = 1 / math.sqrt(in_features)",
        "bound = 1 / math.sqrt(out_features)",
    ),
    Mutant(
        "3.2", "Linear bias gradient not summed over the batch (first row only)",
        "grad_b = ones @ grad2 if ctx.needs_input_grad[2] else None",
        "grad_b = grad2[0] if ctx.needs_input_grad[2] else None",
    ),
    Mutant(
        "3.2", "Linear weight gradient transposed",
        "grad_w = grad2.T @ x2 if ctx.needs_input_grad[1] else None",
        "grad_w = (x2.T @ grad2).reshape(weight.shape) if ctx.needs_input_grad[1] else None",
    ),
    # -- 3.3 softmax and log-softmax
    Mutant(
        "3.3", "naive softmax without the max shift (overflows)",
        "e = np.exp(x - x.max(axis=axis, keepdims=True))",
        "e = np.exp(x)",
    ),
    Mutant(
        "3.3", "log-softmax as the log of a softmax",
        "out = shifted - np.log(np.exp(shifted).sum(axis=axis, keepdims=True))",
        "out = np.log(np.exp(shifted) / np.exp(shifted).sum(axis=axis, keepdims=True))",
    ),
    Mutant(
        "3.3", "softmax backward without the Σ g·s term",
        "return (out * (grad - (grad * out).sum(axis=ctx.axis, keepdims=True)),)",
        "return (out * grad,)",
    ),
    Mutant(
        "3.3", "log-softmax backward sums over every axis",
        "return (grad - np.exp(out) * grad.sum(axis=ctx.axis, keepdims=True),)",
        "return (grad - np.exp(out) * grad.sum(),)",
    ),
    # -- 3.4 cross-entropy
    Mutant(
        "3.4", "cross-entropy normalised over the wrong axis (the batch)",
        "total = e.sum(axis=1, keepdims=True)",
        "total = e.sum(axis=0, keepdims=True)",
    ),
    Mutant(
        "3.4", "mean counts the ignored targets",
        "return losses.sum() / count if count",
        "return losses.sum() / n if count",
    ),
    Mutant(
        "3.4", "cross-entropy without the max shift (overflows)",
        "shifted = logits - logits.max(axis=1, keepdims=True)",
        "shifted = logits",
    ),
    Mutant(
        "3.4", "the flat index read on logits of any layout (a transposed array's rows interleave)",
        "        logits = np.ascontiguousarray(logits)  # rows one after another, as the flat index counts\n",
        "",
    ),
    Mutant(
        "3.4", "ignored rows still get a gradient",
        "scale = grad * keep\n",
        "scale = grad * np.ones(keep.shape)\n",
    ),
    Mutant(
        "3.4", "label smoothing forgotten in the gradient",
        "grad_logits.ravel()[target_at] -= (1 - eps) * scale[:, 0]",
        "grad_logits.ravel()[target_at] -= scale[:, 0]",
    ),
    # -- 3.5 MSE and BCE
    Mutant(
        "3.5", "naive BCE: log σ(x) and log(1 - σ(x)) (inf at 1e4)",
        "losses = np.maximum(x, 0) - x * y + np.log1p(np.exp(-np.abs(x)))",
        "losses = -(y * np.log(stable_sigmoid(x)) + (1 - y) * np.log(1 - stable_sigmoid(x)))",
    ),
    Mutant(
        "3.5", "MSE gradient without the factor 2",
        "grad_x = 2 * diff * _reduction_scale(grad, diff.size, ctx.reduction)",
        "grad_x = diff * _reduction_scale(grad, diff.size, ctx.reduction)",
    ),
    Mutant(
        "3.5", "BCE gradient y - σ(x) (sign flipped)",
        "grad_x = (stable_sigmoid(x) - y) * scale",
        "grad_x = (y - stable_sigmoid(x)) * scale",
    ),
    # -- 3.6 initialisation
    Mutant(
        "3.6", "kaiming bound with fan_out for fan_in",
        'fan = fan_in if mode == "fan_in" else fan_out',
        'fan = fan_out if mode == "fan_in" else fan_in',
    ),
    Mutant(
        "3.6", "kaiming without the gain",
        "bound = calculate_gain(nonlinearity, a) * math.sqrt(3.0 / fan)",
        "bound = math.sqrt(3.0 / fan)",
    ),
    Mutant(
        "3.6", "xavier bound √(2/(fan_in + fan_out)) (the std, not the bound)",
        "bound = gain * math.sqrt(6.0 / (fan_in + fan_out))",
        "bound = gain * math.sqrt(2.0 / (fan_in + fan_out))",
    ),
    # -- 3.7 Sequential
    Mutant(
        "3.7", "Sequential applies its modules in reverse",
        "        for module in self._modules.values():\n            x = module(x)\n",
        "        for module in reversed(self._modules.values()):\n            x = module(x)\n",
    ),
    Mutant(
        "3.7", "Sequential names its modules from 1",
        "setattr(self, str(index), module)",
        "setattr(self, str(index + 1), module)",
    ),
    Mutant(
        "3.7", "Sequential returns the last module applied to the input",
        "        for module in self._modules.values():\n            x = module(x)\n        return x\n",
        "        for module in self._modules.values():\n            y = module(x)\n        return y\n",
    ),
    # -- 3.8 (bonus) softplus
    Mutant(
        "3.8", "beta ignored",
        "        z = beta * a\n",
        "        z = a\n",
    ),
    Mutant(
        "3.8", "ln(1 + e^z) as written: inf at 1e4",
        "return (np.maximum(z, 0) + np.log1p(np.exp(-np.abs(z)))) / beta",
        "return np.log1p(np.exp(z)) / beta",
    ),
    Mutant(
        "3.8", "gradient σ(−βa): the sign slipped",
        "return (grad * stable_sigmoid(z),)",
        "return (grad * stable_sigmoid(-z),)",
    ),
    # -- 3.9 (bonus) Huber loss
    Mutant(
        "3.9", "the linear branch without −½δ",
        "delta * (size - 0.5 * delta)",
        "delta * size",
    ),
    Mutant(
        "3.9", "gradient d everywhere, as MSE's half",
        "grad_x = np.clip(d, -ctx.delta, ctx.delta) * _reduction_scale(",
        "grad_x = d * _reduction_scale(",
    ),
    Mutant(
        "3.9", "'mean' not divided in the backward",
        "_reduction_scale(grad, d.size, ctx.reduction)",
        "grad",
    ),
]
