"""Chapter 2 the textbook way: loops where the reference vectorises, every gradient computed."""

from checks.mutants import WHOLE_REGION, Mutant

ALTERNATIVES = [
    Mutant(
        "2.1", "numerical gradient over a flat view",
        "    for index in np.ndindex(x.shape):\n        original = x[index]\n"
        "        x[index] = original + eps\n        plus = f(x)\n"
        "        x[index] = original - eps\n        minus = f(x)\n"
        "        x[index] = original\n        grad[index] = (plus - minus) / (2 * eps)\n",
        "    flat, flat_grad = x.reshape(-1), grad.reshape(-1)  # views: writing them writes x, grad\n"
        "    for i in range(flat.size):\n        original = flat[i]\n"
        "        flat[i] = original + eps\n        plus = f(x)\n"
        "        flat[i] = original - eps\n        minus = f(x)\n"
        "        flat[i] = original\n        flat_grad[i] = (plus - minus) / (2 * eps)\n",
    ),
    Mutant(
        "2.2", "unbroadcast one axis at a time",
        "    if grad.shape == tuple(shape):\n        return grad\n"
        "    leading = grad.ndim - len(shape)\n    if leading:\n"
        "        grad = grad.sum(axis=tuple(range(leading)))\n"
        "    stretched = tuple(i for i, n in enumerate(shape) if n == 1 and grad.shape[i] != 1)\n"
        "    if stretched:\n        grad = grad.sum(axis=stretched, keepdims=True)\n    return grad\n",
        "    while grad.ndim > len(shape):\n        grad = grad.sum(axis=0)\n"
        "    for axis, size in enumerate(shape):\n"
        "        if size == 1 and grad.shape[axis] != 1:\n"
        "            grad = grad.sum(axis=axis, keepdims=True)\n    return grad\n",
    ),
    Mutant(
        "2.3", "mul computes both gradients, needed or not",
        "        grad_a = unbroadcast(grad * b, _shape(a)) if ctx.needs_input_grad[0] else None\n"
        "        grad_b = unbroadcast(grad * a, _shape(b)) if ctx.needs_input_grad[1] else None\n",
        "        grad_a = unbroadcast(grad * b, np.shape(a))\n"
        "        grad_b = unbroadcast(grad * a, np.shape(b))\n",
    ),
    Mutant(
        "2.3", "div computes both gradients, ∂b as -c/b",
        "        grad_a = unbroadcast(grad / b, _shape(a)) if ctx.needs_input_grad[0] else None\n"
        "        grad_b = unbroadcast(-grad * a / (b * b), _shape(b)) if ctx.needs_input_grad[1] else None\n",
        "        grad_a = unbroadcast(grad / b, np.shape(a))\n"
        "        grad_b = unbroadcast(-grad * (a / b) / b, np.shape(b))\n",
    ),
    Mutant(
        "2.6", "max counts its ties, then casts the count",
        "        winners = a == out\n"
        "        share = winners / winners.sum(axis=ctx.axes, keepdims=True, dtype=a.dtype)\n"
        "        return (share * grad.reshape(out.shape),)\n",
        "        winners = a == out\n"
        "        count = winners.sum(axis=ctx.axes, keepdims=True).astype(a.dtype)\n"
        "        return (np.where(winners, grad.reshape(out.shape) / count, 0).astype(a.dtype),)\n",
    ),
    Mutant(
        "2.9", "getitem scatters into zeros_like",
        "        grad_a = np.zeros(ctx.shape, dtype=grad.dtype)\n",
        "        grad_a = np.zeros_like(grad, shape=ctx.shape)\n",
    ),
    Mutant(
        "2.10", "receive_grad returns early for intermediates",
        "        if self.grad_fn is None:\n"
        "            self.grad = grad.copy() if self.grad is None else self.grad + grad\n",
        "        if self.grad_fn is not None:\n            return\n"
        "        if self.grad is None:\n            self.grad = np.array(grad, copy=True)\n"
        "        else:\n            self.grad = self.grad + grad\n",
    ),
    Mutant(
        "2.10", "release in one assignment",
        "        self.grad_fn = _freed\n        self.parents = ()\n",
        "        self.grad_fn, self.parents = _freed, ()\n",
    ),
    Mutant(
        "2.11", "cumsum's rule as the total minus what came before",
        "        reversed_grad = np.flip(grad, ctx.axis)\n"
        "        return (np.flip(np.cumsum(reversed_grad, axis=ctx.axis), ctx.axis),)\n",
        "        before = np.cumsum(grad, axis=ctx.axis) - grad\n"
        "        return (np.sum(grad, axis=ctx.axis, keepdims=True) - before,)\n",
    ),
    Mutant(
        "2.12", "logsumexp with the softmax saved",
        WHOLE_REGION,
        "m = np.max(a, axis=axis, keepdims=True)\n"
        "e = np.exp(a - m)\n"
        "total = np.sum(e, axis=axis, keepdims=True)\n"
        "ctx.softmax, ctx.axis, ctx.keepdims = e / total, axis, keepdims\n"
        "out = m + np.log(total)\n"
        "return out if keepdims else out.squeeze(axis)\n",
        within="LogSumExp.forward",
    ),
    Mutant(
        "2.12", "logsumexp's rule from the saved softmax",
        WHOLE_REGION,
        "g = grad if ctx.keepdims else np.expand_dims(grad, ctx.axis)\n"
        "return (g * ctx.softmax,)\n",
        within="LogSumExp.backward",
    ),
]
