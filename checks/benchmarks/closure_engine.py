"""The design W1 compares against: rules as closures over their own result.

Each result's backward closure refers to the result itself, so every node sits in
a reference cycle and a step's graph waits for Python's cycle collector. Same
math as `Value`, same model; only the design differs. Not course code.
"""

from __future__ import annotations

import math


class ClosureValue:
    def __init__(self, data, children=()):
        self.data, self.grad = data, 0.0
        self._prev = set(children)
        self._backward = lambda: None

    def __add__(self, other):
        other = other if isinstance(other, ClosureValue) else ClosureValue(other)
        out = ClosureValue(self.data + other.data, (self, other))

        def backward():
            self.grad += out.grad
            other.grad += out.grad

        out._backward = backward
        return out

    def __mul__(self, other):
        other = other if isinstance(other, ClosureValue) else ClosureValue(other)
        out = ClosureValue(self.data * other.data, (self, other))

        def backward():
            self.grad += other.data * out.grad
            other.grad += self.data * out.grad

        out._backward = backward
        return out

    __radd__ = __add__
    __rmul__ = __mul__

    def __rsub__(self, other):
        return self * -1.0 + other

    def __truediv__(self, other):
        return self * (1.0 / other)

    def tanh(self):
        t = math.tanh(self.data)
        out = ClosureValue(t, (self,))

        def backward():
            self.grad += (1 - t * t) * out.grad

        out._backward = backward
        return out

    def relu(self):
        out = ClosureValue(max(self.data, 0.0), (self,))

        def backward():
            self.grad += (out.data > 0) * out.grad

        out._backward = backward
        return out

    def backward(self):
        order, seen = [], set()

        def build(node):
            if node not in seen:
                seen.add(node)
                for child in node._prev:
                    build(child)
                order.append(node)

        build(self)
        self.grad = 1.0
        for node in reversed(order):
            node._backward()
