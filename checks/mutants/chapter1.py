"""Chapter 1's bug zoo: the mistakes learners make in the engine and the scalar ops."""

from checks.mutants import Mutant

MUTANTS = [
    Mutant(
        "1.1", "one-sided difference",
        "return (f(x + eps) - f(x - eps)) / (2 * eps)",
        "return (f(x + eps) - f(x)) / eps",
    ),
    Mutant(
        "1.1", "central difference divided by eps, not 2 eps",
        "return (f(x + eps) - f(x - eps)) / (2 * eps)",
        "return (f(x + eps) - f(x - eps)) / eps",
    ),
    Mutant(
        "1.2", "mul's gradients swapped",
        "lambda g: (g * b, g * a), \"*\"",
        "lambda g: (g * a, g * b), \"*\"",
    ),
    Mutant(
        "1.2", "add's rule captures its result (a reference cycle)",
        "return Value(self.data + other.data, (self, other), lambda g: (g, g), \"+\")",
        "out = Value(self.data + other.data, (self, other), None, \"+\")\n"
        "        out.grad_fn = lambda g: (g, g) if out else (g, g)\n"
        "        return out",
    ),
    Mutant(
        "1.2", "add's rule gives the second operand nothing",
        "lambda g: (g, g), \"+\"",
        "lambda g: (g, 0.0), \"+\"",
    ),
    Mutant(
        "1.3", "pow's derivative uses n instead of n - 1",
        "(g * n * a ** (n - 1),)",
        "(g * n * a**n,)",
    ),
    Mutant(
        "1.3", "division upside down",
        "return self * other**-1",
        "return other * self**-1",
    ),
    Mutant(
        "1.4", "log's derivative as 1/x²",
        "(g / a,), \"log\"",
        "(g / a**2,), \"log\"",
    ),
    Mutant(
        "1.4", "exp's gradient forgets the incoming gradient",
        "(g * c,), \"exp\"",
        "(c,), \"exp\"",
    ),
    Mutant(
        "1.5", "tanh's derivative as 1 - tanh",
        "(g * (1.0 - c * c),)",
        "(g * (1.0 - c),)",
    ),
    Mutant(
        "1.5", "relu passes the gradient at negatives",
        "(g if positive else 0.0,)",
        "(g,)",
    ),
    Mutant(
        "1.5", "naive sigmoid overflows for large negative inputs",
        "        if a >= 0:\n            c = 1.0 / (1.0 + math.exp(-a))\n"
        "        else:\n            z = math.exp(a)\n            c = z / (1.0 + z)\n",
        "        c = 1.0 / (1.0 + math.exp(-a))\n",
    ),
    Mutant(
        "1.6", "no visited set: a shared node is visited twice",
        "            if parent not in visited:\n",
        "            if True:\n",
    ),
    Mutant(
        "1.6", "a recursive walk that dies on deep graphs",
        "    order = []\n    visited = {root}\n"
        "    path = [root]  # the nodes being expanded, deepest last\n"
        "    pending = [iter(root.parents)]  # for each of them, the parents not looked at yet\n"
        "    while pending:\n        for parent in pending[-1]:\n"
        "            if parent not in visited:\n                visited.add(parent)\n"
        "                path.append(parent)\n                pending.append(iter(parent.parents))\n"
        "                break\n        else:  # every parent is placed: the node can follow them\n"
        "            pending.pop()\n            order.append(path.pop())\n    return order\n",
        "    order, visited = [], set()\n\n    def visit(node):\n        if node in visited:\n"
        "            return\n        visited.add(node)\n        for parent in node.parents:\n"
        "            visit(parent)\n        order.append(node)\n\n    visit(root)\n    return order\n",
    ),
    Mutant(
        "1.7", "contributions to one node overwrite each other",
        "grads[parent] = share if parent not in grads else grads[parent] + share",
        "grads[parent] = share",
    ),
    Mutant(
        "1.7", "walk in topological, not reverse, order",
        "for node in reversed(topological_order(root)):",
        "for node in topological_order(root):",
    ),
    Mutant(
        "1.7", "the root's gradient ignored: the walk starts from 1",
        "grads = {root: gradient}",
        "grads = {root: 1.0}",
    ),
    Mutant(
        "1.7", "a share of None is added like a number",
        "            if share is not None:\n"
        "                grads[parent] = share if parent not in grads else grads[parent] + share\n",
        "            grads[parent] = share if parent not in grads else grads[parent] + share\n",
    ),
    Mutant(
        "1.7", "retain_graph ignored: every node is released",
        "        if not retain_graph:\n            node.release()\n",
        "        node.release()\n",
    ),
    Mutant(
        "1.7", "the graph is never released",
        "        if not retain_graph:\n            node.release()\n",
        "",
    ),
    Mutant(
        "1.7", "a node is released before its rule runs",
        "        node.receive_grad(grad)\n",
        "        node.receive_grad(grad)\n        if not retain_graph and node.grad_fn is not None:\n"
        "            node.release()\n",
    ),
    Mutant(
        "1.7", "the walk keeps the last graph in a module global",
        "    for node in reversed(topological_order(root)):\n",
        "    global _last_walk\n    _last_walk = topological_order(root)\n"
        "    for node in reversed(_last_walk):\n",
    ),
    Mutant(
        "1.7", "leaf gradients overwritten instead of accumulated",
        "            self.grad += grad\n",
        "            self.grad = grad\n",
    ),
    Mutant(
        "1.7", "intermediate gradients accumulate across calls",
        "        else:\n            self.grad = grad\n",
        "        else:\n            self.grad += grad\n",
    ),
    Mutant(
        "1.7", "the walk reads a node's parents after releasing it",
        "        for parent, share in zip(node.parents, node.grad_fn(grad)):\n"
        "            if share is not None:\n"
        "                grads[parent] = share if parent not in grads else grads[parent] + share\n"
        "        if not retain_graph:\n            node.release()\n",
        "        shares = node.grad_fn(grad)\n"
        "        if not retain_graph:\n            node.release()\n"
        "        for parent, share in zip(node.parents, shares):\n"
        "            if share is not None:\n"
        "                grads[parent] = share if parent not in grads else grads[parent] + share\n",
    ),
    Mutant(
        "1.7", "shares summed in place into an array another node holds",
        "                grads[parent] = share if parent not in grads else grads[parent] + share\n",
        "                if parent in grads:\n                    grads[parent] += share\n"
        "                else:\n                    grads[parent] = share\n",
    ),
    # -- 1.8 (bonus) abs and softplus
    Mutant(
        "1.8", "abs passes the gradient through unchanged",
        "lambda g, sign=sign: (g * sign,)",
        "lambda g, sign=sign: (g,)",
    ),
    Mutant(
        "1.8", "abs's gradient at 0 is g",
        "sign = (a.data > 0) - (a.data < 0)",
        "sign = 1 if a.data >= 0 else -1",
    ),
    Mutant(
        "1.8", "softplus as ln(1 + eᵃ), overflowing",
        "c = max(x, 0.0) + math.log1p(math.exp(-abs(x)))",
        "c = math.log(1.0 + math.exp(x))",
    ),
    Mutant(
        "1.8", "softplus's derivative taken as tanh",
        "lambda g, s=s: (g * s,)",
        "lambda g, s=s: (g * math.tanh(x),)",
    ),
    # -- 1.9 (bonus) gradient descent
    Mutant(
        "1.9", "steps uphill",
        "path.append(path[-1] - lr * x.grad)",
        "path.append(path[-1] + lr * x.grad)",
    ),
    Mutant(
        "1.9", "one Value for every step: its grad accumulates",
        "    for _ in range(steps):\n        x = Value(path[-1])\n",
        "    x = Value(path[-1])\n    for _ in range(steps):\n        x.data = path[-1]\n",
    ),
    Mutant(
        "1.9", "the start left out of the path",
        "    return path\n",
        "    return path[1:]\n",
    ),
]
