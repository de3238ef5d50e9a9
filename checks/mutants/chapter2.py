"""Chapter 2's bug zoo: the shape, broadcasting and walk mistakes learners make with tensors."""

from checks.mutants import Mutant

MUTANTS = [
    # -- 2.1 numerical gradient
    Mutant(
        "2.1", "one-sided difference",
        "grad[index] = (plus - minus) / (2 * eps)",
        "grad[index] = (plus - f(x)) / eps",
    ),
    Mutant(
        "2.1", "central difference divided by eps, not 2 eps",
        "grad[index] = (plus - minus) / (2 * eps)",
        "grad[index] = (plus - minus) / eps",
    ),
    Mutant(
        "2.1", "perturbs the caller's array in place (no copy)",
        "    x = np.array(x, dtype=np.float64)\n    grad = np.zeros_like(x)\n",
        "    x = np.asarray(x, dtype=np.float64)\n    grad = np.zeros_like(x)\n",
    ),
    Mutant(
        "2.1", "differences a float32 input in float32",
        "    x = np.array(x, dtype=np.float64)\n    grad = np.zeros_like(x)\n",
        "    x = np.array(x)\n    grad = np.zeros_like(x, dtype=np.float64)\n",
    ),
    Mutant(
        "2.1", "an element is not put back after its difference",
        "        minus = f(x)\n        x[index] = original\n",
        "        minus = f(x)\n",
    ),
    # -- 2.2 unbroadcast
    Mutant(
        "2.2", "unbroadcast forgets the size-1 axes",
        "    if stretched:\n        grad = grad.sum(axis=stretched, keepdims=True)\n",
        "",
    ),
    Mutant(
        "2.2", "unbroadcast forgets the leading axes",
        "    if leading:\n        grad = grad.sum(axis=tuple(range(leading)))\n",
        "",
    ),
    Mutant(
        "2.2", "size-1 axes summed away instead of kept",
        "grad = grad.sum(axis=stretched, keepdims=True)",
        "grad = np.expand_dims(grad.sum(axis=stretched), 0)",
    ),
    Mutant(
        "2.2", "leading axes counted from the end",
        "grad = grad.sum(axis=tuple(range(leading)))",
        "grad = grad.sum(axis=tuple(range(-leading, 0)))",
    ),
    # -- 2.3 binary elementwise backward
    Mutant(
        "2.3", "add returns b's gradient without summing it back",
        "return unbroadcast(grad, a_shape), unbroadcast(grad, b_shape)",
        "return unbroadcast(grad, a_shape), grad",
    ),
    Mutant(
        "2.3", "mul's gradients swapped",
        "grad_a = unbroadcast(grad * b, _shape(a)) if ctx.needs_input_grad[0] else None",
        "grad_a = unbroadcast(grad * a, _shape(a)) if ctx.needs_input_grad[0] else None",
    ),
    Mutant(
        "2.3", "div's b-gradient has the wrong sign",
        "unbroadcast(-grad * a / (b * b), _shape(b))",
        "unbroadcast(grad * a / (b * b), _shape(b))",
    ),
    Mutant(
        "2.3", "div's b-gradient as -a/b instead of -a/b²",
        "unbroadcast(-grad * a / (b * b), _shape(b))",
        "unbroadcast(-grad * a / b, _shape(b))",
    ),
    Mutant(
        "2.3", "pow's base gradient as b·aᵇ",
        "unbroadcast(grad * b * a ** (b - 1), _shape(a))",
        "unbroadcast(grad * b * a**b, _shape(a))",
    ),
    Mutant(
        "2.3", "pow's exponent gradient forgets ln a",
        "unbroadcast(grad * out * np.log(a), _shape(b))",
        "unbroadcast(grad * out, _shape(b))",
    ),
    # -- 2.4 unary elementwise backward
    Mutant(
        "2.4", "exp's gradient forgets the incoming gradient",
        "        return (grad * out,)\n",
        "        return (out,)\n",
    ),
    Mutant(
        "2.4", "log's derivative as 1/a²",
        "return (grad / a,)",
        "return (grad / (a * a),)",
    ),
    Mutant(
        "2.4", "tanh's derivative as 1 - tanh",
        "return (grad * (1 - out * out),)",
        "return (grad * (1 - out),)",
    ),
    Mutant(
        "2.4", "tanh's backward modifies its incoming gradient",
        "return (grad * (1 - out * out),)",
        "grad *= 1 - out * out\n        return (grad,)",
    ),
    Mutant(
        "2.4", "relu passes the gradient where a < 0",
        "passed = np.greater(out, 0, out=np.empty_like(grad))",
        "passed = np.greater_equal(out, 0, out=np.empty_like(grad))",
    ),
    Mutant(
        "2.4", "sigmoid's derivative as s instead of s(1 - s)",
        "return (grad * out * (1 - out),)",
        "return (grad * out,)",
    ),
    # -- 2.5 sum and mean backward
    Mutant(
        "2.5", "sum backward does not re-expand a reduced axis",
        "        grad = expand_reduced(grad, ctx.shape, ctx.axes, ctx.keepdims)\n"
        "        return (np.broadcast_to(grad, ctx.shape),)\n",
        "        return (np.broadcast_to(grad, ctx.shape),)\n",
    ),
    Mutant(
        "2.5", "mean divided by the whole size, not the reduced count",
        "count = int(np.prod([ctx.shape[a] for a in ctx.axes]))",
        "count = int(np.prod(ctx.shape))",
    ),
    Mutant(
        "2.5", "mean divided by the number of reduced axes",
        "count = int(np.prod([ctx.shape[a] for a in ctx.axes]))",
        "count = max(len(ctx.axes), 1)",
    ),
    # -- 2.6 max backward
    Mutant(
        "2.6", "max sends the gradient to every element",
        "winners = a == out",
        "winners = np.ones_like(a, dtype=bool)",
    ),
    Mutant(
        "2.6", "max gives every tie the full gradient",
        "share = winners / winners.sum(axis=ctx.axes, keepdims=True, dtype=a.dtype)",
        "share = winners.astype(a.dtype)",
    ),
    Mutant(
        "2.6", "max's gradient not put back on the kept axes",
        "return (share * grad.reshape(out.shape),)",
        "return (share * grad,)",
    ),
    Mutant(
        "2.6", "max's tie share promotes float32 to float64",
        "share = winners / winners.sum(axis=ctx.axes, keepdims=True, dtype=a.dtype)",
        "share = winners / winners.sum(axis=ctx.axes, keepdims=True)",
    ),
    # -- 2.7 reshape and permute backward
    Mutant(
        "2.7", "permute backward applies the order again, not its inverse",
        "return (np.transpose(grad, np.argsort(ctx.axes)),)",
        "return (np.transpose(grad, ctx.axes),)",
    ),
    Mutant(
        "2.7", "permute backward reverses the axes",
        "return (np.transpose(grad, np.argsort(ctx.axes)),)",
        "return (np.transpose(grad),)",
    ),
    Mutant(
        "2.7", "reshape backward transposes before reshaping",
        "return (grad.reshape(ctx.shape),)",
        "return (grad.T.reshape(ctx.shape),)",
    ),
    # -- 2.8 matmul backward
    Mutant(
        "2.8", "matmul's A-gradient with the product order swapped",
        "grad_a = unbroadcast(grad @ np.swapaxes(b2, -1, -2), a2.shape)",
        "grad_a = unbroadcast(np.swapaxes(b2, -1, -2) @ grad, a2.shape)",
    ),
    Mutant(
        "2.8", "matmul's B-gradient uses A, not Aᵀ",
        "grad_b = unbroadcast(np.swapaxes(a2, -1, -2) @ grad, b2.shape)",
        "grad_b = unbroadcast(np.swapaxes(a2 @ grad, -1, -2), b2.shape)",
    ),
    Mutant(
        "2.8", "batched A with a 2-D B: batch axes averaged, not summed",
        "grad_b = unbroadcast(np.swapaxes(a2, -1, -2) @ grad, b2.shape)",
        "grad_b = (np.swapaxes(a2, -1, -2) @ grad).mean(axis=tuple(range(grad.ndim - b2.ndim)))",
    ),
    Mutant(
        "2.8", "matmul with a 1-D A: the gradient is not made a row",
        "        if a.ndim == 1:\n            grad = np.expand_dims(grad, -2)\n",
        "        if a.ndim == 1:\n            grad = np.expand_dims(grad, -1)\n",
    ),
    # -- 2.9 getitem backward
    Mutant(
        "2.9", "getitem backward overwrites repeated indices",
        "np.add.at(grad_a, ctx.index, grad)",
        "grad_a[ctx.index] = grad",
    ),
    Mutant(
        "2.9", "getitem backward builds a float64 gradient",
        "grad_a = np.zeros(ctx.shape, dtype=grad.dtype)",
        "grad_a = np.zeros(ctx.shape)",
    ),
    Mutant(
        "2.9", "getitem backward starts from ones",
        "grad_a = np.zeros(ctx.shape, dtype=grad.dtype)",
        "grad_a = np.ones(ctx.shape, dtype=grad.dtype)",
    ),
    # -- 2.10 the tensor's hooks
    Mutant(
        "2.10", "a leaf's grad overwritten instead of accumulated",
        "self.grad = grad.copy() if self.grad is None else self.grad + grad",
        "self.grad = grad.copy()",
    ),
    Mutant(
        "2.10", "a leaf's first grad is the incoming array, not a copy",
        "self.grad = grad.copy() if self.grad is None else self.grad + grad",
        "self.grad = grad if self.grad is None else self.grad + grad",
    ),
    Mutant(
        "2.10", "intermediate results keep a grad too",
        "        if self.grad_fn is None:\n"
        "            self.grad = grad.copy() if self.grad is None else self.grad + grad\n",
        "        self.grad = grad.copy() if self.grad is None else self.grad + grad\n",
    ),
    Mutant(
        "2.10", "release drops the rule but keeps the parents",
        "        self.grad_fn = _freed\n        self.parents = ()\n",
        "        self.grad_fn = _freed\n",
    ),
    Mutant(
        "2.10", "release drops the parents but keeps the rule",
        "        self.grad_fn = _freed\n        self.parents = ()\n",
        "        self.parents = ()\n",
    ),
    # -- 2.11 (bonus) cumsum
    Mutant(
        "2.11", "backward as a forward cumsum of g",
        "        reversed_grad = np.flip(grad, ctx.axis)\n"
        "        return (np.flip(np.cumsum(reversed_grad, axis=ctx.axis), ctx.axis),)\n",
        "        return (np.cumsum(grad, axis=ctx.axis),)\n",
    ),
    Mutant(
        "2.11", "backward passes g through",
        "        return (np.flip(np.cumsum(reversed_grad, axis=ctx.axis), ctx.axis),)\n",
        "        return (grad,)\n",
    ),
    Mutant(
        "2.11", "backward flipped but never flipped back",
        "return (np.flip(np.cumsum(reversed_grad, axis=ctx.axis), ctx.axis),)",
        "return (np.cumsum(reversed_grad, axis=ctx.axis),)",
    ),
    # -- 2.12 (bonus) logsumexp
    Mutant(
        "2.12", "no shift by the max: overflows near 1000",
        "        kept = shift + np.log(np.sum(np.exp(a - shift), axis=axis, keepdims=True))\n",
        "        kept = np.log(np.sum(np.exp(a), axis=axis, keepdims=True))\n",
    ),
    Mutant(
        "2.12", "gradient e^a, not the softmax",
        "return (grad * np.exp(a - kept),)",
        "return (grad * np.exp(a),)",
    ),
    Mutant(
        "2.12", "keepdim ignored in the forward",
        "return kept if keepdims else np.squeeze(kept, axis=axis)",
        "return np.squeeze(kept, axis=axis)",
    ),
]
