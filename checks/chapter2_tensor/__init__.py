"""Chapter 2 grader: the tensor engine, with NumPy broadcasting.

Op exercises (2.3–2.9) are graded through each result's `grad_fn` with the graders'
own walk and a random cotangent, against float64 central differences, so they do not
depend on the learner's walk (1.7) or hook (2.10). Each op check also compares the
forward value, the result's dtype (float32 in, float32 out) and the gradients' shapes and
dtypes with NumPy. `Tensor.backward` (Chapter 1's walk with the tensor's hook
`receive_grad`, 2.10) is graded on graphs of Functions written here, so it does not
depend on the op exercises.
"""

# The parts register their checks as they are imported: in the order of the exercises.
# isort: off
from checks.chapter2_tensor import (  # noqa: F401
    gradients,
    elementwise,
    sums_and_max,
    shapes_and_products,
    tensor_backward,
    bonus,
)
# isort: on

# strategies the selftests draw from, as names of the chapter's grader
from checks.chapter2_tensor.sums_and_max import reductions  # noqa: F401
