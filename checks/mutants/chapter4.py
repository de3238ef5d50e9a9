"""Chapter 4's bug zoo: the update-rule, state, clipping and schedule mistakes learners make."""

from checks.mutants import WHOLE_REGION, Mutant

SGD_REGION = (
    "        if weight_decay != 0:\n"
    "            grad = grad + weight_decay * param\n"
    "        if group[\"momentum\"] != 0:\n"
    "            grad = self.momentum_direction(grad, state, group)\n"
    "        param -= group[\"lr\"] * grad\n"
)

ADAM_END = (
    "        m_hat = m / (1.0 - beta1**t)\n"
    "        v_hat = v / (1.0 - beta2**t)\n"
    "        param -= group[\"lr\"] * m_hat / (np.sqrt(v_hat) + group[\"eps\"])\n"
)

ADAMW_REGION = (
    "        if decay != 0:\n"
    "            param *= 1.0 - decay\n"
    "        self.adam_step(param, grad, state, group)\n"
)

# exactly the body of 4.6's region (a selftest keeps them equal): 4.9's grader applies the 4.6
# mutants to it, so the schedule and its bugs stay where the zoo is
SCHEDULE_REGION = (
    "        if step < self.warmup_steps:\n"
    "            return base_lr * step / self.warmup_steps\n"
    "        if step >= self.total_steps:\n"
    "            return self.min_lr\n"
    "        progress = (step - self.warmup_steps) / (self.total_steps - self.warmup_steps)\n"
    "        return self.min_lr + (base_lr - self.min_lr) * 0.5 * (1.0 + math.cos(math.pi * progress))\n"
)

MUTANTS = [
    # -- 4.1 SGD with weight decay
    Mutant(
        "4.1", "weight decay applied after the update", SGD_REGION,
        "        if group[\"momentum\"] != 0:\n"
        "            grad = self.momentum_direction(grad, state, group)\n"
        "        param -= group[\"lr\"] * grad\n"
        "        param -= group[\"lr\"] * weight_decay * param\n",
    ),
    Mutant(
        "4.1", "weight decay subtracted from the gradient",
        "grad = grad + weight_decay * param",
        "grad = grad - weight_decay * param",
    ),
    Mutant(
        "4.1", "weight decay added into .grad in place",
        "grad = grad + weight_decay * param",
        "grad += weight_decay * param",
    ),
    Mutant(
        "4.1", "steps uphill",
        "param -= group[\"lr\"] * grad",
        "param += group[\"lr\"] * grad",
    ),
    # -- 4.2 momentum and Nesterov
    Mutant(
        "4.2", "momentum buffer not kept between steps",
        "buffer = state[\"momentum_buffer\"] = np.array(grad, copy=True)",
        "buffer = np.array(grad, copy=True)",
    ),
    Mutant(
        "4.2", "Nesterov as plain momentum",
        "return grad + momentum * buffer",
        "return buffer",
    ),
    Mutant(
        "4.2", "the buffer is the gradient array itself (no copy)",
        "buffer = state[\"momentum_buffer\"] = np.array(grad, copy=True)",
        "buffer = state[\"momentum_buffer\"] = grad",
    ),
    Mutant(
        "4.2", "dampening applied at the first step too",
        "buffer = state[\"momentum_buffer\"] = np.array(grad, copy=True)",
        "buffer = state[\"momentum_buffer\"] = (1.0 - group[\"dampening\"]) * grad",
    ),
    Mutant(
        "4.2", "dampening ignored",
        "buffer += (1.0 - group[\"dampening\"]) * grad",
        "buffer += grad",
    ),
    Mutant(
        "4.2", "Nesterov looks ahead with the old buffer",
        "        else:\n            buffer *= momentum\n",
        "        else:\n            previous = buffer.copy()\n            buffer *= momentum\n"
        "            if group[\"nesterov\"]:\n"
        "                buffer += (1.0 - group[\"dampening\"]) * grad\n"
        "                return grad + momentum * previous\n",
    ),
    # -- 4.3 Adam with bias correction
    Mutant(
        "4.3", "no bias correction", ADAM_END,
        "        param -= group[\"lr\"] * m / (np.sqrt(v) + group[\"eps\"])\n",
    ),
    Mutant(
        "4.3", "eps inside the square root",
        "np.sqrt(v_hat) + group[\"eps\"]",
        "np.sqrt(v_hat + group[\"eps\"])",
    ),
    Mutant(
        "4.3", "bias correction of the first moment only",
        "v_hat = v / (1.0 - beta2**t)",
        "v_hat = v",
    ),
    Mutant(
        "4.3", "step count never advances past 1",
        "state[\"step\"] += 1",
        "state[\"step\"] = 1",
    ),
    Mutant(
        "4.3", "second moment of |g| instead of g²",
        "v += (1.0 - beta2) * np.square(grad)",
        "v += (1.0 - beta2) * np.abs(grad)",
    ),
    Mutant(
        "4.3", "betas swapped",
        "beta1, beta2 = group[\"betas\"]",
        "beta2, beta1 = group[\"betas\"]",
    ),
    # -- 4.4 AdamW
    Mutant(
        "4.4", "AdamW's decay coupled into the gradient", ADAMW_REGION,
        "        if decay != 0:\n"
        "            grad = grad + group[\"weight_decay\"] * param\n"
        "        self.adam_step(param, grad, state, group)\n",
    ),
    Mutant(
        "4.4", "decay applied after the Adam step", ADAMW_REGION,
        "        self.adam_step(param, grad, state, group)\n"
        "        if decay != 0:\n"
        "            param *= 1.0 - decay\n",
    ),
    Mutant(
        "4.4", "decay not scaled by the learning rate",
        "decay = group[\"lr\"] * group[\"weight_decay\"]",
        "decay = group[\"weight_decay\"]",
    ),
    # -- 4.5 clip_grad_norm_
    Mutant(
        "4.5", "clipping per tensor instead of globally",
        "            g *= scale\n",
        "            g *= min(1.0, max_norm / (float(np.linalg.norm(g.ravel(), norm_type)) + 1e-6))\n",
    ),
    Mutant(
        "4.5", "returns the norm after clipping",
        "    return total\n",
        "    return min(total, max_norm)\n",
    ),
    Mutant(
        "4.5", "scales small gradients up to max_norm",
        "    if scale < 1.0:\n",
        "    if True:\n",
    ),
    Mutant(
        "4.5", "the largest tensor norm instead of the global one",
        "total = float(np.linalg.norm(np.array(norms, dtype=np.float64), norm_type))",
        "total = float(max(norms))",
    ),
    Mutant(
        "4.5", "always the 2-norm, whatever norm_type",
        "norms = [np.linalg.norm(g.ravel(), norm_type) for g in grads]\n"
        "    total = float(np.linalg.norm(np.array(norms, dtype=np.float64), norm_type))",
        "norms = [np.linalg.norm(g.ravel()) for g in grads]\n"
        "    total = float(np.linalg.norm(np.array(norms, dtype=np.float64)))",
    ),
    # -- 4.6 warm-up + cosine
    Mutant(
        "4.6", "warm-up off by one (step + 1)",
        "return base_lr * step / self.warmup_steps",
        "return base_lr * (step + 1) / self.warmup_steps",
    ),
    Mutant(
        "4.6", "cosine off by one",
        "progress = (step - self.warmup_steps) / (self.total_steps - self.warmup_steps)",
        "progress = (step - self.warmup_steps + 1) / (self.total_steps - self.warmup_steps)",
    ),
    Mutant(
        "4.6", "cosine decays to 0, ignoring min_lr",
        "return self.min_lr + (base_lr - self.min_lr) * 0.5 * (1.0 + math.cos(math.pi * progress))",
        "return base_lr * 0.5 * (1.0 + math.cos(math.pi * progress))",
    ),
    Mutant(
        "4.6", "cosine spread over total_steps, warm-up included",
        "progress = (step - self.warmup_steps) / (self.total_steps - self.warmup_steps)",
        "progress = (step - self.warmup_steps) / self.total_steps",
    ),
    Mutant(
        "4.6", "lr frozen at base after total_steps",
        "        if step >= self.total_steps:\n            return self.min_lr\n",
        "        if step >= self.total_steps:\n            return base_lr\n",
    ),
    Mutant(
        "4.6", "a linear decay instead of the cosine",
        "return self.min_lr + (base_lr - self.min_lr) * 0.5 * (1.0 + math.cos(math.pi * progress))",
        "return self.min_lr + (base_lr - self.min_lr) * (1.0 - progress)",
    ),
    Mutant(
        "4.6", "the cosine's full circle (cos 2πp): back up at the end",
        "return self.min_lr + (base_lr - self.min_lr) * 0.5 * (1.0 + math.cos(math.pi * progress))",
        "return self.min_lr + (base_lr - self.min_lr) * 0.5 * (1.0 + math.cos(2 * math.pi * progress))",
    ),
    Mutant(
        "4.6", "min_lr added on top of the whole cosine (it starts above base_lr)",
        "return self.min_lr + (base_lr - self.min_lr) * 0.5 * (1.0 + math.cos(math.pi * progress))",
        "return self.min_lr + base_lr * 0.5 * (1.0 + math.cos(math.pi * progress))",
    ),
    # -- 4.7 (bonus) RMSprop
    Mutant(
        "4.7", "eps inside the square root of the average",
        "param -= group[\"lr\"] * grad / (np.sqrt(v) + group[\"eps\"])",
        "param -= group[\"lr\"] * grad / np.sqrt(v + group[\"eps\"])",
    ),
    Mutant(
        "4.7", "the average not kept between steps",
        "        v = state[\"square_avg\"]\n",
        "        v = state[\"square_avg\"].copy()\n",
    ),
    Mutant(
        "4.7", "weights (1 - alpha) and alpha swapped",
        "        v *= group[\"alpha\"]\n        v += (1.0 - group[\"alpha\"]) * np.square(grad)\n",
        "        v *= 1.0 - group[\"alpha\"]\n        v += group[\"alpha\"] * np.square(grad)\n",
    ),
    Mutant(
        "4.7", "weight decay ignored",
        "            grad = grad + group[\"weight_decay\"] * param\n",
        "            pass\n",
    ),
    # -- 4.8 (bonus) Lion
    Mutant(
        "4.8", "the momentum updated before the direction is taken",
        "        direction = np.sign(beta1 * m + (1.0 - beta1) * grad)\n"
        "        param *= 1.0 - group[\"lr\"] * group[\"weight_decay\"]\n"
        "        param -= group[\"lr\"] * direction\n"
        "        m *= beta2\n        m += (1.0 - beta2) * grad\n",
        "        m *= beta2\n        m += (1.0 - beta2) * grad\n"
        "        direction = np.sign(beta1 * m + (1.0 - beta1) * grad)\n"
        "        param *= 1.0 - group[\"lr\"] * group[\"weight_decay\"]\n"
        "        param -= group[\"lr\"] * direction\n",
    ),
    Mutant(
        "4.8", "no sign: a plain momentum step",
        "direction = np.sign(beta1 * m + (1.0 - beta1) * grad)",
        "direction = beta1 * m + (1.0 - beta1) * grad",
    ),
    Mutant(
        "4.8", "beta1 used for the momentum too",
        "        m *= beta2\n        m += (1.0 - beta2) * grad\n",
        "        m *= beta1\n        m += (1.0 - beta1) * grad\n",
    ),
    Mutant(
        "4.8", "decay added to the direction before the sign",
        "        param *= 1.0 - group[\"lr\"] * group[\"weight_decay\"]\n"
        "        param -= group[\"lr\"] * direction\n",
        "        param -= group[\"lr\"] * np.sign(direction + group[\"weight_decay\"] * param)\n",
    ),
    # -- 4.9 (bonus) the learner's property test
    Mutant(
        "4.9", "a test that asserts nothing",
        WHOLE_REGION,
        "@given(warmup=st.integers(0, 10), length=st.integers(1, 20), base=st.floats(0.01, 1.0))\n"
        "def schedule_properties(warmup, length, base):\n"
        "    [lr_at(base, t, warmup, warmup + length, 0.0) for t in range(warmup + length + 3)]\n\n"
        "schedule_properties()\n",
    ),
    Mutant(
        "4.9", "only checks that the lr stays within [min_lr, base]",
        WHOLE_REGION,
        "@given(warmup=st.integers(0, 10), length=st.integers(1, 20), base=st.floats(0.01, 1.0),\n"
        "       share=st.floats(0.0, 0.9))\n"
        "def schedule_properties(warmup, length, base, share):\n"
        "    total, min_lr = warmup + length, share * base\n"
        "    for t in range(warmup, total + 3):\n"
        "        assert min_lr - 1e-12 <= lr_at(base, t, warmup, total, min_lr) <= base + 1e-12\n\n"
        "schedule_properties()\n",
    ),
    Mutant(
        "4.9", "too strict: the lr must fall at every step after warm-up",
        "assert all(later <= earlier + 1e-12 for",
        "assert all(later < earlier for",
    ),
    Mutant(
        "4.9", "floats compared exactly",
        "assert math.isclose(lrs[warmup + k] + lrs[total - k], base + min_lr, abs_tol=1e-9)",
        "assert lrs[warmup + k] + lrs[total - k] == base + min_lr",
    ),
]
