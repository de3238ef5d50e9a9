"""THE exercise table: the one place that says which exercises exist.

The stub generator, the grade table, the hints, the bug zoo and `use-reference`
all read it. Each chapter's points total 100; its bonus exercises (`bonus=True`, 0 points)
are graded apart ("100/100, bonus 2/3") and nothing provided calls them, so a learner who
skips them loses nothing. `files` are relative to the
`framework/` package; `heading` is the notebook heading that introduces the
exercise (the learner is sent there by the stub's message). `uses` lists the earlier
exercises whose code an exercise's checks also run: when one of them fails in the same
grading run, the grader says to fix that one first instead of giving the later hint.
"""

from __future__ import annotations

from dataclasses import dataclass


@dataclass(frozen=True)
class Chapter:
    number: int
    title: str
    notebook: str
    grader: str
    # its checks run in the judge, the learner's code in a worker process (checks.remote)
    worker: bool = False

    @property
    def exercises(self) -> list[Exercise]:
        return [ex for ex in EXERCISES if ex.chapter == self.number]

    @property
    def in_course(self) -> bool:
        return bool(self.exercises)

    @property
    def bonus(self) -> list[Exercise]:
        """The chapter's bonus track: optional, graded apart from the 100 points."""
        return [ex for ex in self.exercises if ex.bonus]


@dataclass(frozen=True)
class Exercise:
    id: str
    title: str
    points: int
    files: tuple[str, ...]
    heading: str
    hint: str
    time_limit: float = 60.0
    uses: tuple[str, ...] = ()
    bonus: bool = False

    @property
    def chapter(self) -> int:
        return int(self.id.split(".")[0])

    @property
    def notebook(self) -> str:
        return CHAPTERS[self.chapter].notebook

    def stub_message(self) -> str:
        track = " (bonus)" if self.bonus else ""
        return (
            f"Exercise {self.id}: {self.title}{track} — see chapters/{self.notebook}, "
            f"'{self.heading}'"
        )


CHAPTERS = {
    1: Chapter(1, "Autodiff", "01_autodiff.ipynb", "checks.chapter1_autodiff", worker=True),
    2: Chapter(2, "Tensor", "02_tensor.ipynb", "checks.chapter2_tensor"),
    3: Chapter(3, "Primitives", "03_primitives.ipynb", "checks.chapter3_primitives"),
    4: Chapter(4, "Optimizers", "04_optimizers.ipynb", "checks.chapter4_optimizers"),
    5: Chapter(5, "Tiny Transformer", "05_transformer.ipynb", "checks.chapter5_transformer"),
    6: Chapter(6, "Convolution", "06_convolution.ipynb", "checks.chapter6_convolution"),
    7: Chapter(7, "GPT", "07_gpt.ipynb", "checks.chapter7_gpt"),
    8: Chapter(8, "Kernels", "08_kernels.ipynb", "checks.chapter8_kernels"),
}

EXERCISES = [
    Exercise(
        "1.1", "Numerical derivative", 10, ("autodiff.py",),
        "1.1 Derivatives as slopes",
        "The central difference, with exactly the eps given: the checks compare with that "
        "formula's own value (3x² + eps² for x³), so another difference (forward f(x + eps) - "
        "f(x), or a five-point stencil) scores less. The section's folded hints go from the idea "
        "to the formula.",
    ),
    Exercise(
        "1.2", "Add and multiply", 15, ("autodiff.py",),
        "1.2 The first two ops: add and multiply",
        "Check the contract: a new Value whose parents are (self, other), in that order, and "
        "whose rule returns one share per parent in the same order (for a · b, g times the OTHER "
        "operand); the rule captures the operands' floats, never its own node. The section's "
        "folded hints go from the idea to the code.",
    ),
    Exercise(
        "1.3", "Power, subtraction and division", 15, ("autodiff.py",),
        "1.3 Power, and ops for free",
        "** is one node whose only parent is self, with the rule g · n · aⁿ⁻¹ (a and n captured "
        "as floats); a - b and a / b need no rule of their own: build them from +, * and **. The "
        "section's folded hints go from the idea to the code.",
        uses=("1.2",),
    ),
    Exercise(
        "1.4", "Exp and log", 10, ("autodiff.py",),
        "1.4 Exp and log",
        "Each rule is g times the local derivative, eᵃ (the result itself) and 1/a, from floats "
        "computed in the forward pass, never the node. The section's folded hints give the "
        "formulas and the calls.",
    ),
    Exercise(
        "1.5", "Tanh, ReLU and sigmoid", 15, ("autodiff.py",),
        "1.5 Activations: tanh, ReLU, sigmoid",
        "tanh' = 1 - c², relu' = 1 where a > 0 else 0 (0 at the kink too), sigmoid' = c(1 - c); "
        "the sigmoid must never exponentiate a large positive number: for a < 0 use the form that "
        "only exponentiates a. The section's folded hints go from the idea to the calls.",
    ),
    Exercise(
        "1.6", "Topological order", 15, ("autodiff.py",),
        "1.6 Walking the graph in order",
        "Check the contract: every node once (a visited set of the nodes themselves), each after "
        "all its parents, root last; no recursion (a chain 100,000 deep) and linear time. The "
        "section's folded hints give the algorithm with a stack of your own.",
    ),
    Exercise(
        "1.7", "Backward: the one reverse walk", 20, ("autodiff.py",),
        "1.7 Backward: the reverse walk",
        "Check the contract: each node's shares are added, never assigned (a node used twice gets "
        "both), into a new value, never in place (an array share may be held by another node); "
        "None shares and unreached nodes are skipped. Read node.parents and call node.grad_fn "
        "BEFORE node.release(): release empties both. Value.receive_grad: a leaf adds, an "
        "intermediate node keeps this call's gradient. The section's folded hints go from the "
        "idea to the code.",
        uses=("1.6",),
    ),
    Exercise(
        "1.8", "Abs and softplus on Value", 0, ("bonus/chapter1_autodiff.py",),
        "1.8 Bonus: abs and softplus",
        "abs: the rule is g · sign(a), and sign(0) = 0. softplus: ln(1 + eᵃ) = max(a, 0) + "
        "ln(1 + e^(-|a|)) (math.log1p) never overflows; its derivative is σ(a), computed "
        "without exponentiating a large positive number.",
        bonus=True,
    ),
    Exercise(
        "1.9", "Gradient descent with backward()", 0, ("bonus/chapter1_autodiff.py",),
        "1.9 Bonus: gradient descent",
        "Each step: a fresh Value(x) (its grad starts at 0), f(x).backward(), then x - lr * "
        "x.grad as a float; keep every x, the start included (steps + 1 numbers).",
        uses=("1.2", "1.3", "1.4", "1.6", "1.7"), bonus=True,
    ),
    # -- chapter 2: the tensor engine --------------------------------------------------------
    Exercise(
        "2.1", "Numerical gradient for arrays", 5, ("gradcheck.py",),
        "2.1 Checking gradients of arrays",
        "Check the contract: a float64 result of x's shape; each element perturbed on a float64 "
        "COPY of x (the caller's array never changes, not even while f runs) and restored before "
        "the next; 0-d arrays too. The section's folded hints go from the idea to the NumPy "
        "calls.",
    ),
    Exercise(
        "2.2", "Unbroadcast", 15, ("function.py",),
        "2.2 The gradient of a broadcast is a sum",
        "The result has exactly `shape`: sum over the leading axes grad has and shape lacks, and "
        "over the axes where shape has 1 and grad does not (kept, with size 1); grad itself when "
        "the shapes agree. The section's folded hints show the shapes step by step.",
    ),
    Exercise(
        "2.3", "Binary elementwise backward", 15, ("ops.py",),
        "2.3 Backward of add, mul, div and pow",
        "Each gradient has its input's shape and dtype: the elementwise rule, then unbroadcast to "
        "that input's shape; None where ctx.needs_input_grad says no gradient is needed. The "
        "section's folded hints give the formulas.",
        uses=("2.2",),
    ),
    Exercise(
        "2.4", "Unary elementwise backward", 10, ("ops.py",),
        "2.4 Backward of exp, log, tanh, relu and sigmoid",
        "Multiply the incoming gradient by the local derivative, elementwise; reuse the saved "
        "output where the derivative is written in terms of it. The section's folded hints give "
        "the formulas.",
    ),
    Exercise(
        "2.5", "Sum and mean backward", 10, ("ops.py",),
        "2.5 Reductions: sum and mean",
        "Put the reduced axes back, with size 1, in their places (unless keepdims) before "
        "broadcasting to the input's shape: on a square input a gradient broadcast along the "
        "wrong axis has the right shape and the wrong values. The mean divides by the number of "
        "elements reduced. The section's folded hints go from the idea to the NumPy calls.",
    ),
    Exercise(
        "2.6", "Max backward", 10, ("ops.py",),
        "2.6 Max, and what to do with ties",
        "The gradient goes where a equals its group's maximum, divided by the count of ties in "
        "that group; count in the input's dtype (an integer count turns a float32 gradient into "
        "float64). The section's folded hints go from the idea to the NumPy calls.",
    ),
    Exercise(
        "2.7", "Reshape and permute backward", 5, ("shape_ops.py",),
        "2.7 Reshape and permute",
        "Undo the forward: reshape back to the input's shape; permute back with the INVERSE order "
        "(inverse[axes[i]] = i), which differs from axes once there are three axes. The section's "
        "folded hints go from the idea to the NumPy calls.",
    ),
    Exercise(
        "2.8", "Matmul backward", 15, ("ops.py",),
        "2.8 Matrix products",
        "dA = G Bᵀ and dB = Aᵀ G, transposing only the last two axes; view a 1-D operand as a row "
        "or a column, and unbroadcast batch axes. Put the axes the product removed back into G in "
        "order: B's (the last) first, then A's (the second-to-last); for vector @ vector the "
        "second-to-last axis does not exist until the last is back (AxisError). The section's "
        "folded hints go from the idea to the NumPy calls.",
        uses=("2.2",),
    ),
    Exercise(
        "2.9", "Getitem backward", 10, ("shape_ops.py",),
        "2.9 Indexing and scatter-add",
        "A repeated index must receive the SUM of its gradients: `grad[index] += g` keeps only "
        "one of them (NumPy buffers the write). The section's last folded hint names the "
        "unbuffered scatter-add.",
    ),
    Exercise(
        "2.10", "Tensor.receive_grad and release", 5, ("tensor.py",),
        "2.10 Backward for tensors",
        "receive_grad: only a leaf (grad_fn is None) keeps a gradient, the first time as an array "
        "of its own (a copy), then as a new sum. release: the rule becomes _freed and parents (). "
        "If leaves get no gradient, or `_freed` is called, while 2.10 looks right: the cause is "
        "autodiff.py's walk, backpropagate (1.7), reading node.parents or node.grad_fn after "
        "node.release(); read both first (make check-chapter1 tests this).",
    ),
    Exercise(
        "2.11", "Cumsum, forward and backward", 0, ("bonus/chapter2_tensor.py",),
        "2.11 Bonus: cumsum",
        "Output i sums inputs 0..i, so input j reaches outputs j..n-1: its gradient is the sum "
        "of g from j to the end, a cumulative sum of g taken from the end (flip, cumsum, flip "
        "back) along the same axis.",
        bonus=True,
    ),
    Exercise(
        "2.12", "Logsumexp, stable", 0, ("bonus/chapter2_tensor.py",),
        "2.12 Bonus: logsumexp",
        "Subtract the max along the axis (keepdims) before exp, add it back after the log. "
        "The gradient is g · softmax = g · exp(a - out): put the reduced axis back into g "
        "and into out when keepdim is False.",
        bonus=True,
    ),
    # -- chapter 3: neural network primitives (issue 5) ---------------------------------------
    Exercise(
        "3.1", "Module registration", 15, ("nn/modules.py",),
        "3.1 Modules: registering parameters",
        "A name lives in at most one of the two tables, and reassigning it (to anything, None "
        "included) removes what it held. The walk yields this module's own parameters before "
        "its children's, each child's with 'name.' in front, and each parameter object once "
        "(compared by identity: == on tensors is elementwise).",
    ),
    Exercise(
        "3.2", "The Linear layer", 15, ("nn/modules.py", "nn/functional.py"),
        "3.2 The Linear layer",
        "Weight (out_features, in_features) drawn before bias (out_features,), both U(±1/√in) "
        "from the shared generator, no bias with bias=False. Any batch shape (..., in) → (..., "
        "out); each gradient adds the shares of every batch position: ∂x = G W, ∂W = Gᵀ x, ∂b = "
        "Σ G.",
        uses=("3.1",),
    ),
    Exercise(
        "3.3", "Softmax and log-softmax", 20, ("nn/functional.py",),
        "3.3 Softmax and log-softmax",
        "Subtract the max along the axis before exponentiating; log-softmax comes from the "
        "shifted logits, never as the log of a softmax (which is 0 at logits of ±1e4). In "
        "backward the sums run along the axis and keep it: softmax s·(g - Σ g·s), log-softmax g "
        "- s·Σ g.",
    ),
    Exercise(
        "3.4", "Cross-entropy", 20, ("nn/functional.py",),
        "3.4 Cross-entropy",
        "loss_i = -log p[i, y_i] with the max shift (with smoothing: (1-ε)·that - ε·mean_c log "
        "p[i, c]); ignored rows lose 0 and get gradient 0, and 'mean' divides by the number of "
        "rows NOT ignored. Gradient: (softmax - q)·g_i, q = (1-ε)·onehot + ε/C.",
    ),
    Exercise(
        "3.5", "MSE and binary cross-entropy", 10, ("nn/functional.py",),
        "3.5 MSE and binary cross-entropy",
        "BCE with logits as max(x, 0) - x·y + log(1 + e^-|x|): its exponent is never positive, "
        "and log(1 + tiny) must keep the tiny part; its gradient is σ(x) - y. 'mean' divides "
        "each element's gradient by the number of elements.",
    ),
    Exercise(
        "3.6", "Initialisation", 10, ("nn/init.py",),
        "3.6 Initialisation",
        "The bound, not the std: U(-a, a) has variance a²/3. Xavier a = gain·√(6/(fan_in + "
        "fan_out)); Kaiming a = gain·√(3/fan), fan = fan_in unless mode='fan_out', the gain "
        "from nonlinearity and a. Fill the tensor's own array from the shared generator and "
        "return the tensor.",
    ),
    Exercise(
        "3.7", "Sequential, and a first trained network", 10, ("nn/modules.py",),
        "3.7 Sequential, and a first trained network",
        "Sequential's modules are registered children named '0', '1', … (through your 3.1 "
        "registration, so parameters() and state_dict() see them); forward calls them in order "
        "and returns x itself when there are none.",
        uses=("3.1", "3.2", "3.4"),
    ),
    Exercise(
        "3.8", "Softplus, a smooth ReLU", 0, ("bonus/chapter3_primitives.py",),
        "3.8 Bonus: softplus",
        "With z = βx: (max(z, 0) + log1p(exp(-|z|))) / β never overflows (log1p(exp(z)) is inf "
        "at z = 1e4). The derivative of ln(1 + e^z)/β with respect to x is σ(z): use the "
        "stable sigmoid, not 1/(1 + exp(-z)).",
        bonus=True,
    ),
    Exercise(
        "3.9", "The Huber loss", 0, ("bonus/chapter3_primitives.py",),
        "3.9 Bonus: the Huber loss",
        "d = x - y; where |d| <= delta the loss is d²/2, elsewhere delta·(|d| - delta/2) (the "
        "two meet with the same slope at ±delta). The gradient is d clipped to [-delta, delta], "
        "divided by the element count for 'mean'; the target's is its negative.",
        bonus=True,
    ),
    # -- chapter 4: optimizers (issue 6) ------------------------------------------------------
    Exercise(
        "4.1", "SGD with weight decay", 15, ("optim.py",),
        "4.1 Gradient descent, with weight decay",
        "The gradient belongs to the caller: the decayed g + λθ is a new array. The parameter "
        "is the opposite: its own array changes in place, θ ← θ - lr·(g + λθ); the momentum "
        "direction (4.2) replaces g + λθ only when momentum ≠ 0.",
    ),
    Exercise(
        "4.2", "Momentum and Nesterov", 20, ("optim.py",),
        "4.2 Momentum and Nesterov",
        "The first buffer is the optimizer's own copy of g, kept in state['momentum_buffer'] "
        "(the gradient array is refilled in place between steps); later b ← μb + (1 - τ)g, "
        "updated where it is. The direction is b, or g + μb with Nesterov.",
        uses=("4.1",),
    ),
    Exercise(
        "4.3", "Adam with bias correction", 20, ("optim.py",),
        "4.3 Adam, and why it needs bias correction",
        "t counts this parameter's steps and is 1 at its first; m and v are the state's own "
        "arrays, updated before use; the step divides m by 1 - β₁ᵗ and v by 1 - β₂ᵗ, and ε is "
        "added after the square root, not under it.",
    ),
    Exercise(
        "4.4", "AdamW's decoupled decay", 15, ("optim.py",),
        "4.4 AdamW: decay decoupled from the gradient",
        "Decoupled: θ shrinks by the factor 1 - lr·λ on its own, before Adam's step, and Adam "
        "sees the gradient exactly as given: λθ never enters m or v.",
        uses=("4.3",),
    ),
    Exercise(
        "4.5", "clip_grad_norm_ (global norm)", 15, ("optim.py",),
        "4.5 Clipping the global gradient norm",
        "One norm over all gradients together (the norm of the per-tensor norms), then one "
        "factor min(1, max_norm / (total + 1e-6)) for every gradient; return the norm before "
        "clipping.",
    ),
    Exercise(
        "4.6", "Warm-up + cosine schedule", 15, ("lr_scheduler.py",),
        "4.6 Warm-up, then cosine decay",
        "Steps count from 0: base * step / warmup_steps while step < warmup_steps, then "
        "min_lr + (base - min_lr) * (1 + cos(pi * p)) / 2 with p = (step - warmup) / "
        "(total - warmup), and min_lr from total_steps on.",
    ),
    Exercise(
        "4.7", "RMSprop", 0, ("bonus/chapter4_optimizers.py",),
        "4.7 Bonus: RMSprop",
        "Add the L2 decay to a new gradient first; keep v (state['square_avg'], zeros at the "
        "first step) per parameter and update it in place: v = alpha·v + (1 - alpha)·g²; then "
        "param -= lr · g / (sqrt(v) + eps). No bias correction: that is Adam's.",
        bonus=True,
    ),
    Exercise(
        "4.8", "Lion", 0, ("bonus/chapter4_optimizers.py",),
        "4.8 Bonus: Lion",
        "The ORDER matters: the direction sign(beta1·m + (1 - beta1)·g) uses the OLD m; then "
        "param *= 1 - lr·weight_decay and param -= lr·direction; only then m = beta2·m + "
        "(1 - beta2)·g (state['exp_avg'], zeros at first).",
        bonus=True,
    ),
    Exercise(
        "4.9", "A property test, graded by mutation", 0, ("bonus/chapter4_optimizers.py",),
        "4.9 Bonus: a property test of your own",
        "Draw warmup, total, base and min_lr with hypothesis (@given), compute the lr at every "
        "step up to a few past total, and assert properties with a tolerance (math.isclose): "
        "the straight line during warm-up, base at the end of warm-up, min_lr from total on, "
        "never rising after warm-up, the cosine's symmetry lr(W + k) + lr(T - k) = base + "
        "min_lr, and above the straight line from base to min_lr in the first half (a linear "
        "decay has every other property). Call the @given function at the end.",
        bonus=True,
    ),
    # -- chapter 5: the Tiny Transformer (issue 7) --------------------------------------------
    Exercise(
        "5.1", "Sinusoidal positions", 10, ("nn/transformer.py",),
        "5.1 Where am I? Sinusoidal positions",
        "Check entry by entry against PE[p, 2i] = sin(p·ω_i), PE[p, 2i+1] = cos(p·ω_i), ω_i = "
        "10000^(-2i/d_model): i counts column PAIRS, the sines fill the even columns and the "
        "cosines the odd ones, an odd width ends with a sine column; the table is float32, "
        "computed in float64. The section named below has folded hints, from the idea to the "
        "calls.",
    ),
    Exercise(
        "5.2", "LayerNorm", 15, ("nn/functional_transformer.py",),
        "5.2 LayerNorm",
        "Check each row of the last `size` elements on its own: the BIASED variance (divide by "
        "size), x̂ = (x - μ)/√(σ² + eps), then the gain and the shift when given. Backward, "
        "with ĝ = g·w: ∂x = (ĝ - mean ĝ - x̂·mean(ĝ·x̂))/σ per row, ∂w = Σ_rows g·x̂, ∂b = "
        "Σ_rows g, each in the shape ctx.shapes records. The section named below has folded "
        "hints, from the idea to the calls.",
    ),
    Exercise(
        "5.3", "Scaled dot-product attention", 20, ("nn/functional_transformer.py",),
        "5.3 Attention: a soft dictionary lookup",
        "Check the masks first: they act BEFORE the softmax (-∞ where attn_mask is False, True "
        "= may attend; with is_causal, where key j > query i), and a row with every key masked "
        "must give zeros, not NaN (its maximum and its sum need care). Backward: the softmax "
        "rule ∂S = P ⊙ (∂P - Σ_keys ∂P ⊙ P), times 1/√E, each gradient summed back to its "
        "input's shape. The section named below has folded hints, from the idea to the calls.",
        time_limit=90.0,
    ),
    Exercise(
        "5.4", "Multi-head attention", 15, ("nn/attention.py",),
        "5.4 Many heads",
        "Check that merge_heads exactly undoes split_heads (head h = features h·D to (h+1)·D - "
        "1 of every position: undo the two moves in the reverse order), and the masks: "
        "PyTorch's are True = BLOCKED, the op's True = MAY attend, and the padding mask (N, S) "
        "marks KEYS, never queries. The section named below has folded hints, from the idea to "
        "the calls.",
        uses=("5.3",),
    ),
    Exercise(
        "5.5", "The encoder layer", 10, ("nn/transformer.py",),
        "5.5 The encoder layer",
        "Check the pre-LN pattern: each branch reads a normalised copy of the stream and its "
        "result, through its dropout, is ADDED to the unnormalised stream; the padding mask "
        "goes to the self-attention as its key padding mask, src_mask as its attn_mask. The "
        "section named below has folded hints, from the idea to the calls.",
        uses=("5.2", "5.3", "5.4"),
    ),
    Exercise(
        "5.6", "The decoder layer", 10, ("nn/transformer.py",),
        "5.6 The decoder layer",
        "Check the three branches, each y + dropout_k(f(norm_k(y))): causal self-attention "
        "(tgt_is_causal, the target masks), then cross-attention whose QUERY is the normalised "
        "stream and whose keys and values are the encoder's memory (the memory masks), then the "
        "feed-forward. The section named below has folded hints, from the idea to the calls.",
        time_limit=90.0,
        uses=("5.2", "5.3", "5.4"),
    ),
    Exercise(
        "5.7", "The Transformer and greedy decoding", 10, ("nn/transformer.py",),
        "5.7 The whole Transformer, and greedy decoding",
        "Check generate: the encoder runs once; from a column of BOS, each step appends the "
        "argmax of the LAST position's logits, EOS for rows already done, and the loop stops "
        "once every row has produced EOS; return int64 tokens after BOS. Every step decodes "
        "with the source padding mask, as forward does: in encode and, as "
        "memory_key_padding_mask, in decode. The models here have "
        "odd widths too (d_model 1 or 3): an error raised inside an earlier exercise's code "
        "(positions, attention, a layer) is that exercise's to fix first. The section named "
        "below has folded hints, from the idea to the calls.",
        time_limit=120.0,
        uses=("5.2", "5.3", "5.4", "5.5", "5.6"),
    ),
    Exercise(
        "5.8", "The training step", 10, ("nn/transformer.py",),
        "5.8 Training: teacher forcing",
        "Check that the decoder reads BOS + tgt_out without its last column and predicts "
        "tgt_out itself, that padding is masked as a key (source and decoder input) and ignored "
        "as a target (ignore_index=pad_id), and that the mean runs over every real target "
        "position of the batch. The section named below has folded hints, from the idea to the "
        "calls.",
        time_limit=120.0,
        uses=("5.2", "5.3", "5.4", "5.5", "5.6", "5.7"),
    ),
    Exercise(
        "5.9", "One step of beam search", 0, ("bonus/chapter5_transformer.py",),
        "5.9 Bonus: one step of beam search",
        "Add each beam's score to its row of log-probabilities (broadcast (B, 1) + (B, V)), "
        "flatten to B·V candidates, sort by score descending with a STABLE sort of the negated "
        "scores (ties keep the lower flat index), keep beam_size; flat index i is beam i // V, "
        "token i % V.",
        bonus=True,
    ),
    Exercise(
        "5.10", "RMSNorm", 0, ("bonus/chapter5_transformer.py",),
        "5.10 Bonus: RMSNorm",
        "Per row (last axis): r = 1/√(mean(x²) + eps), x̂ = x·r, y = x̂·w, with no mean "
        "subtracted. Backward with ĝ = g·w: ∂x = r·(ĝ - x̂·mean(ĝ·x̂)) per row (LayerNorm's rule "
        "without the mean ĝ term); ∂w = g·x̂ summed over every axis but the last.",
        bonus=True,
    ),
    # -- chapter 6 (bonus): convolution and pooling (issue 17) ---------------------------------
    Exercise(
        "6.1", "Unfold: every window as a view", 15, ("nn/conv.py",),
        "6.1 Windows as a view: unfold",
        "Check one window against slicing the padded image: windows[n, c, i, j] = x_pad[n, c, "
        "i·sH : i·sH + kH, j·sW : j·sW + kW], zeros only where the padding is; and no copy "
        "beyond the padding (the windows share the image's memory). The section named below has "
        "folded hints, from the idea to the calls.",
    ),
    Exercise(
        "6.2", "Convolution forward", 15, ("nn/conv.py",),
        "6.2 Convolution as one matrix product",
        "Check the order of the axes: each row of the columns lists one window's C·kH·kW "
        "numbers in the order of the kernels it is multiplied with (and in which 6.3 reads "
        "them), and the product's rows come out as (n, i, j) and must become (N, C_out, OH, "
        "OW). The section named below has folded hints, from the idea to the calls.",
        uses=("6.1",),
    ),
    Exercise(
        "6.3", "Weight and bias gradients", 15, ("nn/conv.py",),
        "6.3 The weight and bias gradients",
        "Check the layout of G: its rows must be the forward's, (n, i, j), one column per "
        "output channel, before ∂W₂ = G₂ᵀ · columns, reshaped to (C_out, C_in, kH, kW). The "
        "bias is added at every position of every image: ∂b sums G over images AND positions. "
        "The section named below has folded hints, from the idea to the calls.",
        uses=("6.1", "6.2"),
    ),
    Exercise(
        "6.4", "Input gradient", 20, ("nn/conv.py",),
        "6.4 The input gradient: a transposed convolution",
        "Check the three steps: spread G by the stride (zeros between), the kernel FLIPPED in "
        "both axes with the channel axes swapped (the sum runs over C_out), and the result "
        "placed in the padded input's frame before cropping (pixels no window read get 0). "
        "Speed: contract through BLAS, tensordot (or einsum with optimize=True); plain "
        "einsum loops without BLAS (a learner's CNN trained in 69 s with it, 7.5 s with "
        "tensordot; the notebook allows 120 s). The section named below has folded hints, from "
        "the idea to the calls.",
        uses=("6.1", "6.2", "6.3"),
    ),
    Exercise(
        "6.5", "Max pooling", 15, ("nn/conv.py",),
        "6.5 Max pooling",
        "Check the winner: ONE per window, the first maximum in row-major order, and the whole "
        "gradient of that window goes to it; overlapping windows add their shares (the provided "
        "fold does). The section named below has folded hints, from the idea to the calls.",
        uses=("6.1",),
    ),
    Exercise(
        "6.6", "Average pooling", 10, ("nn/conv.py",),
        "6.6 Average pooling",
        "Check the share: every pixel of a window receives G / (kH·kW) of it, and a pixel in "
        "several windows the sum of their shares (the provided fold adds them up). The section "
        "named below has folded hints, from the idea to the calls.",
        uses=("6.1",),
    ),
    Exercise(
        "6.7", "The Conv2d layer", 10, ("nn/modules.py",),
        "6.7 The Conv2d layer",
        "Check the order of the draws: the weight (out, in, kH, kW) from your kaiming_uniform_ "
        "with a = √5 FIRST, then the bias (out,) from the shared generator, uniform in "
        "±1/√(in·kH·kW); no bias parameter when bias=False; forward uses the layer's stride and "
        "padding. The section named below has folded hints, from the idea to the calls.",
        uses=("6.1", "6.2", "6.5"),
    ),
    Exercise(
        "6.8", "Dilated convolution", 0, ("bonus/chapter6_convolution.py",),
        "6.8 Bonus: dilation",
        "dilate: zeros of shape (C_out, C_in, d·(kH - 1) + 1, d·(kW - 1) + 1) in the weight's "
        "dtype, the weight written at every d-th place ([:, :, ::d, ::d]); the backward reads "
        "the gradient at those same places. conv2d of the dilated kernel is the dilated "
        "convolution.",
        uses=("6.1", "6.2"), bonus=True,
    ),
    Exercise(
        "6.9", "Depthwise convolution", 0, ("bonus/chapter6_convolution.py",),
        "6.9 Bonus: depthwise convolution",
        "Channel by channel: conv2d(x[:, c:c+1], weight[c:c+1], bias[c:c+1] or None, stride, "
        "padding) for each c, then concatenate along axis 1. Slicing with c:c+1 keeps the axis; "
        "the ops it is built of give the gradient.",
        uses=("6.1", "6.2", "6.3", "6.4"), bonus=True,
    ),
    # -- chapter 7: a character-level GPT with a key-value cache (issue 22) ---------------------
    Exercise(
        "7.1", "Characters as ids", 5, ("nn/gpt.py",),
        "7.1 Characters as ids",
        "Check the ids: the sorted distinct characters, each character's id its place among "
        "them; encode gives int64 and raises ValueError naming every unknown character, and "
        "decode(encode(s)) == s. The section named below has folded hints, from the idea to the "
        "calls.",
    ),
    Exercise(
        "7.2", "Training windows", 10, ("nn/gpt.py",),
        "7.2 Training windows: get_batch",
        "Check the starts: uniform over 0 … len(data) - block_size - 1 (the last start still "
        "has a next id for its last position), drawn from the generator passed (the shared one "
        "otherwise); y is x one step further along the text, both int64 (B, T). The section "
        "named below has folded hints, from the idea to the calls.",
    ),
    Exercise(
        "7.3", "The bigram baseline", 10, ("nn/gpt.py",),
        "7.3 The bigram baseline",
        "Check the contract: one row of vocab_size logits per current id and nothing else read "
        "(no context, no position), V² parameters in all, every logit equal at the start (the "
        "loss is then ln V), and the loss the mean cross-entropy over all N·T positions. The "
        "section named below has folded hints, from the idea to the calls.",
    ),
    Exercise(
        "7.4", "Attention as an average of the past", 10, ("nn/gpt.py",),
        "7.4 Attention as an average of the past",
        "Check the triangle: row t of the weights covers keys 0 … t (itself included) and each "
        "row sums to 1; the product is weights @ x over the position axis, in x's dtype. For "
        "the softmax, set the scores above the diagonal to -inf BEFORE the softmax over the "
        "last axis (not 0, and not after it). The section named below has folded hints, from "
        "the idea to the calls.",
    ),
    Exercise(
        "7.5", "The decoder block", 15, ("nn/gpt.py",),
        "7.5 The decoder block: causal self-attention",
        "Check the mask for queries that are the LAST positions: with L queries of S keys, "
        "query i reads keys j ≤ S - L + i. With a cache, attend to the keys and values "
        "cache.update returns, not only the new ones. The block is pre-LN: each branch's result "
        "added to the stream. The section named below has folded hints, from the idea to the "
        "calls.",
    ),
    Exercise(
        "7.6", "The GPT and its loss", 15, ("nn/gpt.py",),
        "7.6 The GPT and its loss",
        "Check the constructor: wte, wpe, blocks, ln_f and no other parameter (the head is wte), "
        "weights N(0, 0.02) from default_generator(), out_proj and fc2 at 0.02/√(2·n_layer), "
        "biases 0, LayerNorms untouched. Check the positions (0 … T-1 without a cache, "
        "cache.positions(T) with one), that each "
        "block gets the cache and its layer number, and the tied head: ln_f(x) times the token "
        "embedding's weight transposed. The loss is the mean over all N·T positions, in nats; "
        "bits = nats / ln 2. The section named below has folded hints, from the idea to the "
        "calls.",
        uses=("7.5",),
    ),
    Exercise(
        "7.7", "Sampling", 10, ("nn/sampling.py",),
        "7.7 Sampling: temperature, top-k, top-p",
        "Check the order: temperature divides the logits BEFORE the softmax (0: a one-hot at "
        "the first largest), then top-k (ids tied with the k-th largest stay too), then top-p "
        "on that renormalised distribution, which keeps an id when the mass BEFORE it is < "
        "top_p (the crossing one stays); renormalise what is kept. Draws come from the "
        "generator passed, and an id of probability 0 is never drawn. The section named below "
        "has folded hints, from the idea to the calls.",
    ),
    Exercise(
        "7.8", "The key-value cache", 15, ("nn/gpt.py",),
        "7.8 The key-value cache",
        "Check exactness: the new keys and values join the cache BEFORE attending (a new query "
        "reads its own key), the new ids sit at positions length, length + 1, …, and generate "
        "feeds the whole prompt once, then only the id just drawn (without the cache, the last "
        "block_size ids every step). The section named below has folded hints, from the idea to "
        "the calls.",
        time_limit=120.0,
        uses=("7.5", "7.6", "7.7"),
    ),
    Exercise(
        "7.9", "The training loop", 10, ("nn/gpt.py",),
        "7.9 The training loop",
        "Check the order of a step: the loss, the gradients cleared before each backward "
        "(backward adds to .grad), clip, the optimiser's step, then the schedule's. Evaluate "
        "in eval mode under no_grad and put the modes back; record the validation loss every "
        "eval_every steps and after the last. The section named below has folded hints, from "
        "the idea to the calls.",
        uses=("7.2",),
    ),
    Exercise(
        "7.10", "Perplexity", 0, ("bonus/chapter7_gpt.py",),
        "7.10 Bonus: perplexity",
        "Flatten to rows (M, V) and ids (M,), drop the rows whose target is ignore_index, "
        "log-softmax each row with its max subtracted first, pick each row's target, and "
        "return exp of minus their mean as a float.",
        bonus=True,
    ),
    Exercise(
        "7.11", "Repetition penalty", 0, ("bonus/chapter7_gpt.py",),
        "7.11 Bonus: repetition penalty",
        "Mark the ids seen in each row once (a boolean (N, V) table filled along axis 1 from "
        "previous); where marked, logit / penalty if the logit is > 0 else logit * penalty; "
        "work on a copy, and keep the logits' dtype.",
        bonus=True,
    ),
    # -- chapter 8: the machine underneath (issue 35) --------------------------------------------
    Exercise(
        "8.1", "Positions: strides and offsets", 10, ("kernels.py",),
        "8.1 An array is a buffer, a shape and strides",
        "Check the order: row-major strides grow from the LAST axis (strides[-1] = 1, each one "
        "the next one's stride times the next axis's size); a position is offset + Σ index·"
        "strides; position_to_index peels the last axis first (ordinal % size, then ordinal // "
        "size) and writes into out_index. The section named below has folded hints, from the "
        "idea to the code.",
    ),
    Exercise(
        "8.2", "Views without copies", 15, ("kernels.py",),
        "8.2 Views: new strides over the same memory",
        "Check what moves: permute reorders shape AND strides; expand gives stride 0 to new "
        "leading axes and to size-1 axes that grow; a slice start:stop:step adds start·stride to "
        "the offset and multiplies the stride by the step (negative too; an empty slice moves "
        "nothing); an int adds index·stride and drops the axis. contiguous copies in row-major "
        "order, and returns the array itself when it is contiguous already. The section named "
        "below has folded hints, from the idea to the code.",
        uses=("8.1",),
    ),
    Exercise(
        "8.3", "Kernels on every core: map, zip, reduce", 20, ("kernels.py",),
        "8.3 Kernels on every core: map, zip, reduce",
        "Check the positions: the loop runs over out's ELEMENTS (the product of out_shape, not "
        "the storage's length), each ordinal turned into an index, and that one index read "
        "through EACH array's own strides and offset; reduce starts from `start` and walks "
        "length steps of a_strides[axis]. Use prange for the outer loop, and a fresh index array "
        "per element (threads share nothing). The section named below has folded hints, from "
        "the idea to the code.",
        uses=("8.1",), time_limit=120.0,
    ),
    Exercise(
        "8.4", "A tiled matrix product", 10, ("kernels.py",),
        "8.4 A tiled matrix product",
        "Check the edges and the start: out arrives holding anything, so each row tile sets its "
        "rows to 0 before adding; tiles at the right and bottom edges are shorter (min(start + "
        "TILE, size)); the k loop sits between i and j so that the innermost loop runs along a "
        "row of b and of out. The section named below has folded hints, from the idea to the "
        "code.",
        time_limit=120.0,
    ),
    Exercise(
        "8.5", "Fused kernels: LayerNorm, softmax, GELU", 20, ("kernels.py",),
        "8.5 Fusion: one pass per row",
        "Check each formula against chapter 5's: LayerNorm's variance is biased (divided by D) "
        "and r = 1/√(σ² + ε); ∂x = r·(ĝ - mean ĝ - x̂·mean(ĝ·x̂)) with ĝ = g·w; ∂w and ∂b sum "
        "over ROWS, never += into one total from several threads (a thread per column, or "
        "partial sums per block of rows); softmax subtracts the row's max before exp; GELU is "
        "the tanh form. The section named below has folded hints, from the idea to the code.",
        time_limit=120.0,
    ),
    Exercise(
        "8.6", "Kernels for a GPU", 15, ("kernels.py",),
        "8.6 A GPU kernel: grid, blocks, threads, shared memory",
        "Check the guard and the barriers: a thread past the end writes nothing (i < n); every "
        "thread loads its element into shared memory, then cuda.syncthreads() before anyone "
        "reads a neighbour's, and again before the next load overwrites the tile; the block sum "
        "halves with a barrier after each step and thread 0 writes the result. The section "
        "named below has folded hints, from the idea to the code.",
        time_limit=120.0,
    ),
    Exercise(
        "8.7", "Activation checkpointing", 10, ("utils/checkpoint.py",),
        "8.7 Memory: activation checkpointing",
        "Check the replay: the forward runs the function inside no_grad and keeps the inputs and "
        "the shared generator's state (default_generator().bit_generator.state); the backward "
        "restores that state, reruns the function inside enable_grad on detached copies of the "
        "inputs (requires_grad kept), calls backward(grad) on the new output, puts the "
        "generator back where it was, and returns each copy's .grad (None for a non-tensor). "
        "The section named below has folded hints, from the idea to the code.",
    ),
    Exercise(
        "8.8", "Lazy expressions fused into one kernel", 0, ("bonus/chapter8_kernels.py",),
        "8.8 Bonus: lazy fusion, tinygrad's idea",
        "Recursion over the expression: a leaf is a{k}[i] with k = positions[id(node.array)], "
        "a constant repr(node.value), an op TEMPLATES[op][1].format(...) of its inputs' texts "
        "in their order (sub and div are not symmetric).",
        bonus=True, time_limit=120.0,
    ),
    Exercise(
        "8.9", "Cross-entropy fused with its gradient", 0, ("bonus/chapter8_kernels.py",),
        "8.9 Bonus: cross-entropy and its gradient in one pass",
        "Per row, in a prange: the max, then exp(z - max) written into the gradient's row while "
        "summing, then that row divided by the sum (the softmax) and 1 taken off at the target; "
        "the loss is log(sum) + max - z[target], never log of an exp of a large logit.",
        bonus=True, time_limit=120.0,
    ),
]



def exercise(exercise_id: str) -> Exercise:
    for ex in EXERCISES:
        if ex.id == exercise_id:
            return ex
    known = ", ".join(ex.id for ex in EXERCISES)
    raise SystemExit(f"no exercise {exercise_id!r}; the exercises are {known}")


def chapter(number: int) -> Chapter:
    if number not in CHAPTERS:
        raise SystemExit(f"no chapter {number}; the chapters are 1 to {len(CHAPTERS)}")
    return CHAPTERS[number]
