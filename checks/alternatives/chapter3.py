"""Chapter 3, written a second way: different, textbook-style code that must score 100.

Registration by deleting from both tables, names gathered from each child's own
named_parameters, Linear without folding the batch axes (tensordot over them), softmax and
cross-entropy with plain sums and a one-hot target matrix, BCE through logaddexp, the
initialisers' bounds from the standard deviation, Sequential iterating over itself.
"""

import textwrap

from checks.mutants import WHOLE_REGION, Mutant

NN, F, INIT = "nn/modules.py", "nn/functional.py", "nn/init.py"


def code(text: str, indent: int = 8) -> str:
    """A block of source, dedented, then indented to a method body's depth."""
    return textwrap.indent(textwrap.dedent(text).lstrip("\n"), " " * indent)


ALTERNATIVES = [
    # -- 3.1 registration
    Mutant("3.1", "both tables cleared in a loop, then filed by type", code("""
        self._parameters.pop(name, None)
        self._modules.pop(name, None)
        if isinstance(value, Parameter):
            self._parameters[name] = value
        elif isinstance(value, Module):
            self._modules[name] = value
        """), code("""
        for table in (self._parameters, self._modules):
            if name in table:
                del table[name]
        if isinstance(value, Parameter):
            self._parameters[name] = value
        if isinstance(value, Module):
            self._modules[name] = value
        """)),
    Mutant("3.1", "named_parameters from each child's own, then deduplicated", code("""
        seen: set[int] = set()

        def walk(module: Module, path: str) -> Iterator[tuple[str, Parameter]]:
            for name, parameter in module._parameters.items():
                if id(parameter) not in seen:
                    seen.add(id(parameter))
                    yield path + name, parameter
            for name, child in module._modules.items():
                yield from walk(child, f"{path}{name}.")

        yield from walk(self, f"{prefix}." if prefix else "")
        """), code("""
        found = list(self._parameters.items())
        for child_name, child in self._modules.items():
            for name, parameter in child.named_parameters():
                found.append((child_name + "." + name, parameter))
        seen = []
        for name, parameter in found:
            if any(parameter is other for other in seen):
                continue
            seen.append(parameter)
            yield (prefix + "." + name if prefix else name), parameter
        """)),
    Mutant("3.1", "parameters as a generator expression", code("""
        for _, parameter in self.named_parameters():
            yield parameter
        """), code("""
        return (parameter for _, parameter in self.named_parameters())
        """)),
    # -- 3.2 Linear
    Mutant("3.2", "Linear's parameters drawn with keyword sizes and an if/else", code("""
        bound = 1 / math.sqrt(in_features)
        rng = default_generator()
        weight = rng.uniform(-bound, bound, (out_features, in_features))
        self.weight = Parameter(weight.astype(dtype))
        self.bias = Parameter(rng.uniform(-bound, bound, out_features).astype(dtype)) if bias else None
        """), code("""
        generator = default_generator()
        limit = math.sqrt(1.0 / in_features)
        drawn = generator.uniform(low=-limit, high=limit, size=(out_features, in_features))
        self.weight = Parameter(drawn.astype(dtype))
        if bias:
            drawn = generator.uniform(low=-limit, high=limit, size=(out_features,))
            self.bias = Parameter(drawn.astype(dtype))
        else:
            self.bias = None
        """)),
    Mutant("3.2", "Linear forward on the batch axes as they are", code("""
        x2 = x.reshape(-1, x.shape[-1])
        out = x2 @ weight.T
        if bias is not None:
            out += bias
        ctx.save_for_backward(x2, weight)
        return out.reshape(x.shape[:-1] + (weight.shape[0],))
        """), code("""
        ctx.save_for_backward(x, weight)
        out = np.matmul(x, weight.T)
        return out if bias is None else out + bias
        """)),
    Mutant("3.2", "Linear backward with tensordot and sums over the batch axes", code("""
        x2, weight = ctx.saved_tensors
        grad2 = grad.reshape(-1, weight.shape[0])
        grad_x = (grad2 @ weight).reshape(ctx.x_shape) if ctx.needs_input_grad[0] else None
        grad_w = grad2.T @ x2 if ctx.needs_input_grad[1] else None
        # Σ over the rows as a product with a ones vector: one BLAS call, about 4 µs against
        # sum(axis=0)'s 20 for a (1024, 64) gradient (W2's layers), the same sum
        ones = np.ones(len(grad2), grad2.dtype)
        grad_b = ones @ grad2 if ctx.needs_input_grad[2] else None
        """), code("""
        x, weight = ctx.saved_tensors
        batch = tuple(range(grad.ndim - 1))
        grad_x = np.matmul(grad, weight)
        grad_w = np.tensordot(grad, x, axes=(batch, batch))
        grad_b = np.sum(grad, axis=batch)
        """)),
    # -- 3.3 softmax and log-softmax
    Mutant("3.3", "softmax forward with np.max and np.sum", code("""
        e = np.exp(x - x.max(axis=axis, keepdims=True))
        out = e / e.sum(axis=axis, keepdims=True)
        """), code("""
        exps = np.exp(x - np.max(x, axis=axis, keepdims=True))
        out = exps / np.sum(exps, axis=axis, keepdims=True)
        """)),
    Mutant("3.3", "softmax backward as s·g - s·Σ(s·g)", code("""
        return (out * (grad - (grad * out).sum(axis=ctx.axis, keepdims=True)),)
        """), code("""
        weighted = np.sum(out * grad, axis=ctx.axis, keepdims=True)
        return (out * grad - out * weighted,)
        """)),
    Mutant("3.3", "log-softmax forward as x - (max + log Σ e^(x - max))", code("""
        shifted = x - x.max(axis=axis, keepdims=True)
        out = shifted - np.log(np.exp(shifted).sum(axis=axis, keepdims=True))
        """), code("""
        top = np.max(x, axis=axis, keepdims=True)
        out = x - (top + np.log(np.sum(np.exp(x - top), axis=axis, keepdims=True)))
        """)),
    Mutant("3.3", "log-softmax backward with the softmax named", code("""
        return (grad - np.exp(out) * grad.sum(axis=ctx.axis, keepdims=True),)
        """), code("""
        probabilities = np.exp(out)
        return (grad - probabilities * np.sum(grad, axis=ctx.axis, keepdims=True),)
        """)),
    # -- 3.4 cross-entropy
    Mutant("3.4", "cross-entropy as -Σ q log p with a one-hot target matrix", code("""
        n, classes = logits.shape
        logits = np.ascontiguousarray(logits)  # rows one after another, as the flat index counts
        keep = targets != ignore_index
        count = int(np.count_nonzero(keep))
        # each row's target logit by its place in the flat logits (an ignored row's: class 0)
        target_at = np.arange(0, n * classes, classes) + np.where(keep, targets, 0)
        shifted = logits - logits.max(axis=1, keepdims=True)
        e = np.exp(shifted)
        total = e.sum(axis=1, keepdims=True)
        log_total = np.log(total[:, 0])
        losses = log_total - shifted.ravel()[target_at]  # -log p[i, yᵢ]
        if label_smoothing:
            # -mean_c log p[i, c] = log Σ eˣ - mean_c shifted
            smooth = log_total - shifted.mean(axis=1)
            losses = (1 - label_smoothing) * losses + label_smoothing * smooth
        losses = losses * keep
        ctx.save_for_backward(e, total, target_at, keep)
        ctx.reduction, ctx.count, ctx.label_smoothing = reduction, count, label_smoothing
        """), code("""
        classes = logits.shape[1]
        keep = targets != ignore_index
        count = int(keep.sum())
        log_p = logits - logits.max(axis=1, keepdims=True)
        log_p = log_p - np.log(np.exp(log_p).sum(axis=1, keepdims=True))
        onehot = np.eye(classes, dtype=logits.dtype)[np.where(keep, targets, 0)]
        q = (1 - label_smoothing) * onehot + label_smoothing / classes
        losses = -(q * log_p).sum(axis=1) * keep
        ctx.save_for_backward(log_p, q, keep)
        ctx.reduction, ctx.count = reduction, count
        """)),
    Mutant("3.4", "cross-entropy backward (softmax - q) per row", code("""
        e, total, target_at, keep = ctx.saved_tensors
        eps = ctx.label_smoothing
        # each row's cotangent: its own ("none"), the loss's ("sum"), or 1/count of it ("mean")
        scale = grad * keep
        if ctx.reduction == "mean":
            scale = scale / max(ctx.count, 1)
        scale = scale[:, None]
        grad_logits = e * (scale / total)  # softmax times each row's cotangent, in one pass
        grad_logits.ravel()[target_at] -= (1 - eps) * scale[:, 0]
        if eps:
            grad_logits -= eps / e.shape[1] * scale
        return grad_logits, None
        """), code("""
        log_p, q, keep = ctx.saved_tensors
        per_row = grad * keep
        if ctx.reduction == "mean":
            per_row = per_row / max(ctx.count, 1)
        return (np.exp(log_p) - q) * per_row[:, None], None
        """)),
    # -- 3.5 MSE and BCE
    Mutant("3.5", "MSE saving both inputs, the reductions written out", code("""
        diff = x - y
        ctx.save_for_backward(diff)
        ctx.reduction = reduction
        return _reduce(diff * diff, reduction)
        """), code("""
        ctx.save_for_backward(x, y)
        ctx.reduction = reduction
        squared = (x - y) ** 2
        if reduction == "mean":
            return squared.mean()
        return squared.sum() if reduction == "sum" else squared
        """)),
    Mutant("3.5", "MSE backward from both inputs", code("""
        (diff,) = ctx.saved_tensors
        grad_x = 2 * diff * _reduction_scale(grad, diff.size, ctx.reduction)
        """), code("""
        x, y = ctx.saved_tensors
        scale = grad / x.size if ctx.reduction == "mean" else grad
        grad_x = 2 * (x - y) * scale
        """)),
    Mutant("3.5", "BCE as logaddexp(0, x) - x·y", code("""
        losses = np.maximum(x, 0) - x * y + np.log1p(np.exp(-np.abs(x)))
        """), code("""
        losses = np.logaddexp(0, x) - x * y
        """)),
    Mutant("3.5", "BCE backward with σ(x) = exp(-logaddexp(0, -x))", code("""
        grad_x = (stable_sigmoid(x) - y) * scale
        grad_y = -x * scale if ctx.needs_input_grad[1] else None
        """), code("""
        grad_x = (np.exp(-np.logaddexp(0, -x)) - y) * scale
        grad_y = -x * scale
        """)),
    # -- 3.6 initialisation
    Mutant("3.6", "xavier bound as √3 times the standard deviation", code("""
        bound = gain * math.sqrt(6.0 / (fan_in + fan_out))
        """, 4), code("""
        std = gain * math.sqrt(2.0 / (fan_in + fan_out))
        bound = math.sqrt(3.0) * std
        """, 4)),
    Mutant("3.6", "kaiming's fan from a dict, its bound from the standard deviation", code("""
        fan = fan_in if mode == "fan_in" else fan_out
        bound = calculate_gain(nonlinearity, a) * math.sqrt(3.0 / fan)
        """, 4), code("""
        fan = {"fan_in": fan_in, "fan_out": fan_out}[mode]
        std = calculate_gain(nonlinearity, a) / math.sqrt(fan)
        bound = math.sqrt(3.0) * std
        """, 4)),
    # -- 3.7 Sequential
    Mutant("3.7", "Sequential registers through __setattr__ with a counter", code("""
        for index, module in enumerate(modules):
            setattr(self, str(index), module)
        """), code("""
        count = 0
        for module in modules:
            self.__setattr__(f"{count}", module)
            count += 1
        """)),
    Mutant("3.7", "Sequential's forward iterates over itself", code("""
        for module in self._modules.values():
            x = module(x)
        return x
        """), code("""
        out = x
        for layer in self:
            out = layer(out)
        return out
        """)),
    Mutant(
        "3.8", "softplus as relu plus a correction, its rule from the output",
        "        z = beta * a\n        ctx.save_for_backward(z)\n"
        "        return (np.maximum(z, 0) + np.log1p(np.exp(-np.abs(z)))) / beta\n",
        "        z = beta * a\n        ctx.save_for_backward(z)\n"
        "        return np.logaddexp(0, z) / beta\n",
    ),
    Mutant(
        "3.8", "σ written with tanh",
        "return (grad * stable_sigmoid(z),)",
        "return (grad * (0.5 + 0.5 * np.tanh(z / 2)),)",
    ),
    Mutant(
        "3.9", "Huber loss as the quadratic of the clipped difference plus the linear rest",
        WHOLE_REGION,
        "d = x - y\n"
        "inner = np.clip(d, -delta, delta)\n"
        "losses = 0.5 * inner * inner + delta * (np.abs(d) - np.abs(inner))\n"
        "ctx.save_for_backward(inner)\n"
        "ctx.reduction, ctx.delta = reduction, delta\n"
        "return _reduce(losses, reduction)\n",
        within="HuberLoss.forward",
    ),
    Mutant(
        "3.9", "Huber's rule from the clipped difference saved",
        WHOLE_REGION,
        "(inner,) = ctx.saved_tensors\n"
        "scale = grad / inner.size if ctx.reduction == \"mean\" else grad\n"
        "return inner * scale, -inner * scale\n",
        within="HuberLoss.backward",
    ),
]
