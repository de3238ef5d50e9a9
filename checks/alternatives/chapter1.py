"""Chapter 1 written other correct ways: rules as nested functions or with their floats bound
as default arguments (Python keeps the defaults in one tuple instead of a cell per captured
float), other shapes of the walk."""

from checks.mutants import WHOLE_REGION, Mutant

ALTERNATIVES = [
    Mutant(
        "1.1", "the step halved, then divided by",
        "    return (f(x + eps) - f(x - eps)) / (2 * eps)\n",
        "    h = eps\n    return (f(x + h) - f(x - h)) / h / 2\n",
    ),
    Mutant(
        "1.2", "add's rule as a nested function",
        "        return Value(self.data + other.data, (self, other), lambda g: (g, g), \"+\")\n",
        "        def add_backward(g):\n            return g, g\n\n"
        "        return Value(self.data + other.data, (self, other), add_backward, \"+\")\n",
    ),
    Mutant(
        "1.2", "mul's floats bound as default arguments",
        "return Value(a * b, (self, other), lambda g: (g * b, g * a), \"*\")",
        "return Value(a * b, (self, other), lambda g, a=a, b=b: (g * b, g * a), \"*\")",
    ),
    Mutant(
        "1.3", "pow with a nested function",
        "        a = self.data\n"
        "        return Value(a**n, (self,), lambda g: (g * n * a ** (n - 1),), f\"**{n:g}\")\n",
        "        a = self.data\n\n"
        "        def pow_backward(g):\n            return (g * n * a ** (n - 1),)\n\n"
        "        return Value(a**n, (self,), pow_backward, f\"**{n:g}\")\n",
    ),
    Mutant(
        "1.3", "sub as a + (-b)",
        "        return self + other * -1.0\n",
        "        return self + (-other)\n",
    ),
    Mutant(
        "1.4", "exp's result bound as a default argument",
        "return Value(c, (self,), lambda g: (g * c,), \"exp\")",
        "return Value(c, (self,), lambda g, c=c: (g * c,), \"exp\")",
    ),
    Mutant(
        "1.4", "log's rule as a product",
        "return Value(math.log(a), (self,), lambda g: (g / a,), \"log\")",
        "return Value(math.log(a), (self,), lambda g: (g * (1.0 / a),), \"log\")",
    ),
    Mutant(
        "1.5", "relu by max, its slope as a factor",
        "        positive = self.data > 0\n        c = self.data if positive else 0.0\n"
        "        return Value(c, (self,), lambda g: (g if positive else 0.0,), \"relu\")\n",
        "        slope = 1.0 if self.data > 0 else 0.0\n"
        "        return Value(max(self.data, 0.0), (self,), lambda g: (g * slope,), \"relu\")\n",
    ),
    Mutant(
        "1.5", "sigmoid through tanh, stable everywhere",
        "        if a >= 0:\n            c = 1.0 / (1.0 + math.exp(-a))\n"
        "        else:\n            z = math.exp(a)\n            c = z / (1.0 + z)\n",
        "        c = 0.5 * (1.0 + math.tanh(a / 2))\n",
    ),
    Mutant(
        "1.6", "a stack of (node, parents placed) pairs",
        "    order = []\n    visited = {root}\n"
        "    path = [root]  # the nodes being expanded, deepest last\n"
        "    pending = [iter(root.parents)]  # for each of them, the parents not looked at yet\n"
        "    while pending:\n        for parent in pending[-1]:\n"
        "            if parent not in visited:\n                visited.add(parent)\n"
        "                path.append(parent)\n                pending.append(iter(parent.parents))\n"
        "                break\n        else:  # every parent is placed: the node can follow them\n"
        "            pending.pop()\n            order.append(path.pop())\n    return order\n",
        "    order, visited, stack = [], set(), [(root, False)]\n    while stack:\n"
        "        node, parents_placed = stack.pop()\n        if parents_placed:\n"
        "            order.append(node)\n        elif node not in visited:\n"
        "            visited.add(node)\n            stack.append((node, True))\n"
        "            stack.extend((parent, False) for parent in node.parents)\n    return order\n",
    ),
    Mutant(
        "1.7", "the walk with get, an if per share and a reversed copy", WHOLE_REGION,
        "    grads = {root: gradient}\n    for node in topological_order(root)[::-1]:\n"
        "        grad = grads.get(node)\n        if grad is None:\n            continue\n"
        "        del grads[node]\n        node.receive_grad(grad)\n"
        "        if node.grad_fn is not None:\n            shares = node.grad_fn(grad)\n"
        "            for parent, share in zip(node.parents, shares):\n"
        "                if share is None:\n                    continue\n"
        "                if parent in grads:\n                    grads[parent] = grads[parent] + share\n"
        "                else:\n                    grads[parent] = share\n"
        "            if not retain_graph:\n                node.release()\n",
        within="backpropagate",
    ),
    Mutant(
        "1.7", "receive_grad in one expression",
        "        if self.grad_fn is None:\n            self.grad += grad\n"
        "        else:\n            self.grad = grad\n",
        "        self.grad = (self.grad if self.grad_fn is None else 0.0) + grad\n",
    ),
    Mutant(
        "1.8", "abs from two relus",
        "    sign = (a.data > 0) - (a.data < 0)\n"
        "    return Value(abs(a.data), (a,), lambda g, sign=sign: (g * sign,), \"abs\")\n",
        "    return a.relu() + (a * -1.0).relu()\n",
    ),
    Mutant(
        "1.8", "softplus in two branches, σ by tanh",
        WHOLE_REGION,
        "x = a.data\n"
        "if x > 0:\n    c = x + math.log1p(math.exp(-x))\nelse:\n    c = math.log1p(math.exp(x))\n"
        "s = 0.5 * (1.0 + math.tanh(x / 2))\n"
        "return Value(c, (a,), lambda g: (g * s,), \"softplus\")\n",
        within="softplus",
    ),
    Mutant(
        "1.9", "a while loop on a running x",
        WHOLE_REGION,
        "x, path = float(x0), [float(x0)]\n"
        "while len(path) <= steps:\n"
        "    node = Value(x)\n    loss = f(node)\n    loss.backward()\n"
        "    x -= lr * node.grad\n    path.append(x)\n"
        "return path\n",
    ),
]
