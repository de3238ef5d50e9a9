"""Chapter 8's bug zoo for exercise 8.7, activation checkpointing: the mistakes of a replay."""

from checks.mutants import Mutant

MUTANTS = [
    Mutant(
        "8.7", "a checkpoint that drops the random state of dropout (the rerun draws new masks)",
        """        if ctx.rng_state is not None:
            generator.state = ctx.rng_state
""",
        "",
    ),
    Mutant(
        "8.7", "the generator left where the rerun ends, not put back where it was",
        "            generator.state = now  # the rest of the program draws as if nothing had rerun",
        "            pass",
    ),
    Mutant(
        "8.7", "the forward records its graph (no no_grad): the activations are kept after all",
        """    with no_grad():
        out = function(*args, **kwargs)""",
        """    out = function(*args, **kwargs)""",
    ),
    Mutant(
        "8.7", "the inputs not detached: the rerun's backward walks on into the outer graph",
        "inputs = [a.detach().requires_grad_(a.requires_grad) if isinstance(a, Tensor) else a",
        "inputs = [a if isinstance(a, Tensor) else a",
    ),
    Mutant(
        "8.7", "the copies do not require grad: the inputs receive no gradient",
        "inputs = [a.detach().requires_grad_(a.requires_grad) if isinstance(a, Tensor) else a",
        "inputs = [a.detach() if isinstance(a, Tensor) else a",
    ),
    Mutant(
        "8.7", "the rerun inside no_grad: nothing to back-propagate through",
        """            with enable_grad():
                out = ctx.function(*inputs, **ctx.kwargs)""",
        """            with no_grad():
                out = ctx.function(*inputs, **ctx.kwargs)""",
    ),
]
