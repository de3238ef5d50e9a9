"""Chapter 3 grader: modules, layers, losses, initialisers, and a first trained network.

Every function, loss and layer is gradient-checked through its `grad_fn` with the
graders' own walk and a random cotangent, against float64 central differences;
forward values are compared with NumPy formulas written here; softmax and the losses
are run at logits of ±1e4. The module checks (3.1) use modules defined here, and
3.3–3.6 call the functions directly, so each exercise is graded on its own; 3.7
builds on the learner's Module, Linear and cross-entropy, as a network does.
"""

# The parts register their checks as they are imported: in the order of the exercises.
# isort: off
from checks.chapter3_primitives import (  # noqa: F401
    module_and_linear,
    losses,
    init_and_sequential,
    bonus,
)
# isort: on
