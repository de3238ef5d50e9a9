"""Chapter 4, written a second way: different, textbook-style code that must score 100.

SGD assigning into the parameter, momentum and Adam that rebind their state arrays instead
of updating them in place (the first step starting from 0), AdamW's decay as a subtraction,
the global norm as (Σ |g|ᵖ)^(1/p) with a factor always applied, the schedule tested from
the end.
"""

import textwrap

from checks.mutants import WHOLE_REGION, Mutant

OPTIM = "optim.py"


def code(text: str, indent: int = 8) -> str:
    """A block of source, dedented, then indented to a method body's depth."""
    return textwrap.indent(textwrap.dedent(text).lstrip("\n"), " " * indent)


ALTERNATIVES = [
    Mutant("4.1", "SGD's step assigned into the parameter", code("""
        weight_decay = group["weight_decay"]
        if weight_decay != 0:
            grad = grad + weight_decay * param
        if group["momentum"] != 0:
            grad = self.momentum_direction(grad, state, group)
        param -= group["lr"] * grad
        """), code("""
        direction = grad + group["weight_decay"] * param if group["weight_decay"] else grad
        if group["momentum"]:
            direction = self.momentum_direction(direction, state, group)
        param[...] = param - group["lr"] * direction
        """)),
    Mutant("4.2", "momentum buffer rebound to a new array each step", code("""
        momentum = group["momentum"]
        buffer = state.get("momentum_buffer")
        if buffer is None:
            # np.array copies, and keeps a 0-d gradient an array (g + λθ of 0-d arrays is a scalar)
            buffer = state["momentum_buffer"] = np.array(grad, copy=True)
        else:
            buffer *= momentum
            buffer += (1.0 - group["dampening"]) * grad
        if group["nesterov"]:
            return grad + momentum * buffer
        return buffer
        """), code("""
        mu, tau = group["momentum"], group["dampening"]
        if "momentum_buffer" in state:
            state["momentum_buffer"] = mu * state["momentum_buffer"] + (1 - tau) * grad
        else:
            state["momentum_buffer"] = np.copy(grad)
        velocity = state["momentum_buffer"]
        return grad + mu * velocity if group["nesterov"] else velocity
        """)),
    Mutant("4.3", "Adam's moments rebound, from 0 at the first step", code("""
        beta1, beta2 = group["betas"]
        if not state:
            state["step"] = 0
            state["exp_avg"] = np.zeros_like(param)
            state["exp_avg_sq"] = np.zeros_like(param)
        state["step"] += 1
        t = state["step"]
        m, v = state["exp_avg"], state["exp_avg_sq"]
        m *= beta1
        m += (1.0 - beta1) * grad
        v *= beta2
        v += (1.0 - beta2) * np.square(grad)
        m_hat = m / (1.0 - beta1**t)
        v_hat = v / (1.0 - beta2**t)
        param -= group["lr"] * m_hat / (np.sqrt(v_hat) + group["eps"])
        """), code("""
        beta1, beta2 = group["betas"]
        t = state.get("step", 0) + 1
        m = beta1 * state.get("exp_avg", 0.0) + (1 - beta1) * grad
        v = beta2 * state.get("exp_avg_sq", 0.0) + (1 - beta2) * grad * grad
        state["step"], state["exp_avg"], state["exp_avg_sq"] = t, m, v
        denom = np.sqrt(v) / math.sqrt(1 - beta2**t) + group["eps"]  # PyTorch's order
        param -= group["lr"] / (1 - beta1**t) * m / denom
        """)),
    Mutant("4.4", "AdamW's decay subtracted, Adam's step called on the class", code("""
        decay = group["lr"] * group["weight_decay"]
        if decay != 0:
            param *= 1.0 - decay
        self.adam_step(param, grad, state, group)
        """), code("""
        param -= group["lr"] * group["weight_decay"] * param
        Adam.adam_step(param, grad, state, group)
        """)),
    Mutant("4.5", "the global norm as (Σ |g|ᵖ)^(1/p), the factor always applied", code("""
        norms = [np.linalg.norm(g.ravel(), norm_type) for g in grads]
        total = float(np.linalg.norm(np.array(norms, dtype=np.float64), norm_type))
        scale = max_norm / (total + 1e-6)
        if scale < 1.0:
            for g in grads:
                g *= scale
        return total
        """, 4), code("""
        if norm_type == math.inf:
            total = max(float(np.abs(g).max()) for g in grads)
        else:
            total = sum(float((np.abs(g) ** norm_type).sum()) for g in grads) ** (1.0 / norm_type)
        factor = min(1.0, max_norm / (total + 1e-6))
        for g in grads:
            g *= factor
        return total
        """, 4)),
    Mutant("4.6", "the schedule tested from the end, the cosine factor named", code("""
        if step < self.warmup_steps:
            return base_lr * step / self.warmup_steps
        if step >= self.total_steps:
            return self.min_lr
        progress = (step - self.warmup_steps) / (self.total_steps - self.warmup_steps)
        return self.min_lr + (base_lr - self.min_lr) * 0.5 * (1.0 + math.cos(math.pi * progress))
        """), code("""
        warmup, total = self.warmup_steps, self.total_steps
        if step >= total:
            return self.min_lr
        if step < warmup:
            return base_lr * (step / warmup)
        cosine = (1 + math.cos(math.pi * (step - warmup) / (total - warmup))) / 2
        return self.min_lr + (base_lr - self.min_lr) * cosine
        """)),
    Mutant(
        "4.7", "RMSprop with the average rebuilt and stored each step",
        WHOLE_REGION,
        "g = grad + group[\"weight_decay\"] * param\n"
        "state[\"step\"] = state.get(\"step\", 0) + 1\n"
        "previous = state.get(\"square_avg\", np.zeros_like(param))\n"
        "state[\"square_avg\"] = group[\"alpha\"] * previous + (1.0 - group[\"alpha\"]) * g * g\n"
        "param -= group[\"lr\"] / (np.sqrt(state[\"square_avg\"]) + group[\"eps\"]) * g\n",
    ),
    Mutant(
        "4.8", "Lion with np.where for the sign and the decay as a subtraction",
        WHOLE_REGION,
        "beta1, beta2 = group[\"betas\"]\n"
        "m = state.setdefault(\"exp_avg\", np.zeros_like(param))\n"
        "c = beta1 * m + (1.0 - beta1) * grad\n"
        "step = np.where(c > 0, 1.0, np.where(c < 0, -1.0, 0.0))\n"
        "param -= group[\"lr\"] * (step + group[\"weight_decay\"] * param)\n"
        "state[\"exp_avg\"] = beta2 * m + (1.0 - beta2) * grad\n",
    ),
    Mutant(
        "4.9", "an oracle test: the formula written out, compared at every step",
        WHOLE_REGION,
        "@given(st.data())\n"
        "def against_the_formula(data):\n"
        "    warmup = data.draw(st.integers(0, 6))\n"
        "    total = warmup + data.draw(st.integers(1, 12))\n"
        "    base = data.draw(st.floats(0.05, 2.0))\n"
        "    min_lr = data.draw(st.sampled_from([0.0, 0.1, 0.5])) * base\n"
        "    for t in range(total + 2):\n"
        "        if t < warmup:\n"
        "            want = base * t / warmup\n"
        "        elif t >= total:\n"
        "            want = min_lr\n"
        "        else:\n"
        "            p = (t - warmup) / (total - warmup)\n"
        "            want = min_lr + (base - min_lr) * (1 + math.cos(math.pi * p)) / 2\n"
        "        got = lr_at(base, t, warmup, total, min_lr)\n"
        "        assert abs(got - want) <= 1e-9 * max(1.0, abs(want)), (t, got, want)\n\n"
        "against_the_formula()\n",
    ),
]
