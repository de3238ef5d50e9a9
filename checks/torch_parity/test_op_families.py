"""The families' ops (issue 38: provided/elementwise.py, selection.py, indexing.py,
functions.py, nn/functional_activation.py, nn/functional_loss_extra.py) against PyTorch's:
the same values and the same gradients through a random cotangent, in float64 (needs the
`compare` extra).

    pip install -e '.[compare]' && python -m pytest checks/torch_parity

Not part of `make test`: PyTorch is optional, and a suite that skips is no proof.
"""

import numpy as np
import pytest
import torch
import torch.nn.functional as tF

from checks.loader import load_framework

fw = load_framework("solutions")
from framework.nn import functional as F  # noqa: E402  (the package chosen above)
from framework.provided import elementwise  # noqa: E402

DOMAINS = {"asin": (-0.9, 0.9), "acos": (-0.9, 0.9), "atanh": (-0.9, 0.9), "acosh": (1.1, 3.0),
           "log2": (0.2, 3.0), "log10": (0.2, 3.0), "reciprocal": (0.2, 3.0),
           "logit": (0.05, 0.95), "fmod": (0.5, 2.0), "remainder": (0.5, 2.0), "xlogy": (0.2, 3.0)}
RNG = np.random.default_rng(0)
X, Y = RNG.uniform(-2, 2, (3, 5)), RNG.uniform(-2, 2, (3, 5))
INDEX = np.array([[0, 2], [1, 1], [4, 0]])
SIGNS = np.sign(Y[:, 0])


def unary(name):
    low, high = DOMAINS.get(name, (-2.0, 2.0))
    return (lambda a: getattr(a, name)(), lambda a: getattr(torch, name)(a),
            [RNG.uniform(low, high, (3, 4))])


def binary(name):
    low, high = DOMAINS.get(name, (-2.0, 2.0))
    return (lambda a, b: getattr(a, name)(b), lambda a, b: getattr(torch, name)(a, b),
            [RNG.uniform(-2, 2, (3, 4)), RNG.uniform(low, high, (4,))])


def same(name, **kwargs):
    """`x.name(**kwargs)` on both."""
    return lambda a: getattr(a, name)(**kwargs)


def index(values):
    return torch.tensor(values) if isinstance(values, np.ndarray) else values


# name → (ours, PyTorch's, float64 inputs); both are called with tensors of their own kind
CASES = {
    **{name: unary(name) for name in elementwise.UNARY},
    **{name: binary(name) for name in elementwise.BINARY},
    "round(decimals=1)": (same("round", decimals=1), same("round", decimals=1), [X]),
    "lerp": (lambda a, b: a.lerp(b, 0.3), lambda a, b: a.lerp(b, 0.3), [X, Y]),
    "addcdiv": (lambda a, b: a.addcdiv(b, b * 2 + 5, value=0.5),
                lambda a, b: a.addcdiv(b, b * 2 + 5, value=0.5), [X, Y]),
    "nansum": (same("nansum", dim=1), same("nansum", dim=1), [X]),
    "nanmean": (same("nanmean", dim=0), same("nanmean", dim=0), [X]),
    "diff": (same("diff", n=2, dim=1), same("diff", n=2, dim=1), [X]),
    "dist": (lambda a, b: a.dist(b, 1), lambda a, b: a.dist(b, 1), [X, Y]),
    "cummax": (lambda a: a.cummax(1).values, lambda a: a.cummax(1).values, [X]),
    "kthvalue": (lambda a: a.kthvalue(2, 1).values, lambda a: a.kthvalue(2, 1).values, [X]),
    "median(dim=1)": (lambda a: a.median(1).values, lambda a: a.median(1).values, [X]),
    "median of an even count": (same("median"), same("median"), [X[:, :4]]),
    "quantile": (lambda a: a.quantile(np.array([0.2, 0.7]), dim=1, keepdim=True),
                 lambda a: a.quantile(torch.tensor([0.2, 0.7], dtype=torch.float64), dim=1,
                                      keepdim=True), [X]),
    "tensor_split": (lambda a: a.tensor_split(3, dim=1)[1], lambda a: a.tensor_split(3, dim=1)[1], [X]),
    "take_along_dim": (lambda a: a.take_along_dim(INDEX, 1),
                       lambda a: a.take_along_dim(index(INDEX), 1), [X]),
    "scatter": (lambda a, b: a.scatter(1, INDEX, b[:, :2]),
                lambda a, b: a.scatter(1, index(INDEX), b[:, :2]), [X, Y]),
    "scatter_add": (lambda a, b: a.scatter_add(1, INDEX, b[:, :2]),
                    lambda a, b: a.scatter_add(1, index(INDEX), b[:, :2]), [X, Y]),
    "index_add": (lambda a, b: a.index_add(0, np.array([2, 2, 0]), b, alpha=2),
                  lambda a, b: a.index_add(0, torch.tensor([2, 2, 0]), b, alpha=2), [X, Y]),
    "index_put, accumulate": (
        lambda a, b: a.index_put((np.array([0, 2]), np.array([1, 1])), b[0, :2], accumulate=True),
        lambda a, b: a.index_put((torch.tensor([0, 2]), torch.tensor([1, 1])), b[0, :2],
                                 accumulate=True), [X, Y]),
    "masked_scatter": (lambda a, b: a.masked_scatter(X > 0, b),
                       lambda a, b: a.masked_scatter(torch.tensor(X > 0), b), [X, Y]),
    "hstack": (lambda a, b: fw.hstack([a, b]), lambda a, b: torch.hstack([a, b]), [X, Y]),
    "dstack": (lambda a, b: fw.dstack([a, b]), lambda a, b: torch.dstack([a, b]), [X, Y]),
    "std_mean": (lambda a: fw.std_mean(a, 1)[0] * fw.std_mean(a, 1)[1],
                 lambda a: torch.std_mean(a, 1)[0] * torch.std_mean(a, 1)[1], [X]),
    **{f"F.{name}": (getattr(F, name), getattr(tF, name), [X[:, :4]])
       for name in ("elu", "selu", "celu", "hardtanh", "relu6", "hardsigmoid", "hardswish",
                    "softsign", "tanhshrink", "softshrink", "hardshrink", "glu", "normalize")},
    "F.softmin": (lambda a: F.softmin(a, 1), lambda a: tF.softmin(a, 1), [X]),
    "F.threshold": (lambda a: F.threshold(a, 0.1, 20.0), lambda a: tF.threshold(a, 0.1, 20.0), [X]),
    "F.cosine_similarity": (F.cosine_similarity, tF.cosine_similarity, [X, Y]),
    "F.pairwise_distance": (F.pairwise_distance, tF.pairwise_distance, [X, Y]),
    "F.kl_div, batchmean": (lambda a: F.kl_div(a, np.abs(Y) / 3, reduction="batchmean"),
                            lambda a: tF.kl_div(a, torch.tensor(np.abs(Y) / 3), reduction="batchmean"),
                            [X]),
    "F.margin_ranking_loss": (lambda a, b: F.margin_ranking_loss(a[:, 0], b[:, 0], SIGNS, 0.2),
                              lambda a, b: tF.margin_ranking_loss(a[:, 0], b[:, 0],
                                                                  torch.tensor(SIGNS), 0.2), [X, Y]),
    "F.hinge_embedding_loss": (lambda a: F.hinge_embedding_loss(a[:, 0], SIGNS),
                               lambda a: tF.hinge_embedding_loss(a[:, 0], torch.tensor(SIGNS)), [X]),
    "F.cosine_embedding_loss": (lambda a, b: F.cosine_embedding_loss(a, b, SIGNS, 0.1),
                                lambda a, b: tF.cosine_embedding_loss(a, b, torch.tensor(SIGNS), 0.1),
                                [X, Y]),
    "F.poisson_nll_loss, full": (lambda a: F.poisson_nll_loss(a, np.abs(Y) * 3, full=True),
                                 lambda a: tF.poisson_nll_loss(a, torch.tensor(np.abs(Y) * 3), full=True),
                                 [X]),
    "F.gaussian_nll_loss, full": (
        lambda a: F.gaussian_nll_loss(a, Y, np.abs(Y) + 0.1, full=True),
        lambda a: tF.gaussian_nll_loss(a, torch.tensor(Y), torch.tensor(np.abs(Y) + 0.1), full=True),
        [X]),
    "F.triplet_margin_loss, swap": (lambda a, b: F.triplet_margin_loss(a, b, a * 0.5, swap=True),
                                    lambda a, b: tF.triplet_margin_loss(a, b, a * 0.5, swap=True),
                                    [X, Y]),
}


@pytest.mark.parametrize("name", sorted(CASES))
def test_the_family_op_gives_pytorchs_values_and_gradients(name):
    ours, theirs, inputs = CASES[name]
    mine = [fw.Tensor(x.copy(), requires_grad=True) for x in inputs]
    pytorchs = [torch.tensor(x.copy(), requires_grad=True) for x in inputs]
    got, expected = ours(*mine), theirs(*pytorchs)
    np.testing.assert_allclose(got.data, expected.detach().numpy(), rtol=1e-6, atol=1e-9)
    cotangent = np.random.default_rng(len(name)).standard_normal(got.shape)
    got.backward(cotangent)
    expected.backward(torch.tensor(cotangent))
    for i, (a, b) in enumerate(zip(mine, pytorchs)):
        ours_grad = np.zeros_like(inputs[i]) if a.grad is None else a.grad
        theirs_grad = np.zeros_like(inputs[i]) if b.grad is None else b.grad.numpy(force=True)
        np.testing.assert_allclose(ours_grad, theirs_grad, rtol=1e-6, atol=1e-9, err_msg=f"input {i}")
