"""How much of PyTorch's public surface the framework has, from PyTorch's own lists of names.

`pytorch_names.json` holds the public names (no leading underscore) of `torch`,
`torch.Tensor`, `torch.nn`, `torch.nn.functional` and `torch.utils.data` of one installed
PyTorch, so the tables regenerate without PyTorch. Each name is:

- supported: the framework has it (`framework`, `framework.Tensor`, `framework.nn`,
  `framework.nn.functional`, `framework.utils.data`);
- loud: the framework has it only to raise an error that names the difference and what to do
  (LOUD, and the framework's own table of refusals, `provided/loud.py`'s REFUSED);
- not yet: the framework lacks it (our AttributeError: no such name, not supported yet).

The second table counts them by family (FAMILIES): the names of `torch` and `torch.Tensor`
whose name, or whose name less the in-place `_` (`sin_`), is one of a family's base names;
the container modules by name; the module forms, derived: each `torch.nn` name whose
lowercased letters (without a final "loss") are those of a `torch.nn.functional` name
(`Softplus` for `softplus`, `MSELoss` for `mse_loss`).

    python -m checks.external.coverage                    # the table, for the reference
    python -m checks.external.coverage --impl PATH        # for another copy (an older commit's)
    python -m checks.external.coverage --save-names       # re-read the lists (needs PyTorch)
    python -m checks.external.coverage --readme           # write the tables into README.md
"""

from __future__ import annotations

import argparse
import importlib
import json
import re
import sys
from pathlib import Path

from checks.loader import load_framework

NAMES_FILE = Path(__file__).resolve().parent / "pytorch_names.json"
TENSOR_NAMES_FILE = Path(__file__).resolve().parents[2] / "solutions/framework/provided/tensor_names.py"
README = Path(__file__).resolve().parent.parent.parent / "README.md"
NAMESPACES = {"torch": "", "torch.Tensor": "Tensor", "torch.nn": "nn", "torch.nn.functional": "nn.functional",
              "torch.utils.data": "utils.data"}
#: Names the framework defines only to refuse them, each with an error naming the difference
#: (with those of the framework's own table, `framework.provided.loud.REFUSED`).
LOUD = {"torch.Tensor": {"cuda", "cumsum", "cumsum_", "cumprod", "cumprod_", "logcumsumexp", "logsumexp"},
        "torch": {"set_default_dtype", "cumsum", "cumprod", "logcumsumexp", "logsumexp", "initial_seed"},
        "torch.nn.functional": {"smooth_l1_loss", "huber_loss", "softplus", "logsigmoid", "mish",
                                "soft_margin_loss"},
        "torch.nn": {"HuberLoss", "SmoothL1Loss", "Softplus", "LogSigmoid", "Mish", "SoftMarginLoss"}}
BEGIN = "<!-- coverage: begin (python -m checks.external.coverage --readme) -->"
END = "<!-- coverage: end -->"
FAMILY_BEGIN = "<!-- coverage by family: begin (python -m checks.external.coverage --readme) -->"
FAMILY_END = "<!-- coverage by family: end -->"

#: family → the base names of `torch`/`torch.Tensor` that belong to it (PyTorch's documentation
#: groups them so: pointwise ops, comparison ops, reduction ops, indexing/joining ops, random
#: sampling); a base name also claims its in-place form (`sin_`). Names PyTorch lacks are
#: dropped when counting (test_coverage_tables.py keeps the lists free of them).
FAMILIES = {
    "elementwise math": (
        "abs absolute acos arccos acosh arccosh add addcdiv addcmul angle asin arcsin asinh "
        "arcsinh atan arctan atanh arctanh atan2 arctan2 ceil clamp clip clamp_min clamp_max "
        "conj copysign cos cosh deg2rad digamma div divide erf erfc erfinv exp exp2 expm1 fix "
        "float_power floor floor_divide fmax fmin fmod frac frexp gcd heaviside hypot i0 igamma "
        "igammac imag lcm ldexp lerp lgamma log log10 log1p log2 logaddexp logaddexp2 logit "
        "maximum minimum mul multiply mvlgamma nan_to_num neg negative nextafter polygamma "
        "positive pow rad2deg real reciprocal relu remainder round rsqrt rsub sigmoid sign sgn "
        "sin sinc sinh sqrt square sub subtract tan tanh true_divide trunc xlogy").split(),
    "comparison and logical": (
        "all allclose any bitwise_and bitwise_left_shift bitwise_not bitwise_or "
        "bitwise_right_shift bitwise_xor eq equal ge greater greater_equal gt isclose isfinite "
        "isin isinf isnan isneginf isposinf isreal le less less_equal logical_and logical_not "
        "logical_or logical_xor lt ne not_equal signbit").split(),
    "reductions and scans": (
        "amax amin aminmax argmax argmin count_nonzero cummax cummin cumprod cumsum diff dist "
        "logcumsumexp logsumexp max mean min nanmean nansum norm prod std std_mean sum var "
        "var_mean").split(),
    "sorting and selection": (
        "argsort bucketize kthvalue median mode msort nanmedian nanquantile quantile "
        "searchsorted sort topk unique unique_consecutive").split(),
    "joining and splitting": (
        "atleast_1d atleast_2d atleast_3d cat chunk column_stack concat concatenate dsplit "
        "dstack hsplit hstack row_stack split stack tensor_split unbind vsplit vstack").split(),
    "indexing and scattering": (
        "argwhere gather index_add index_copy index_fill index_put index_reduce index_select "
        "masked_fill masked_scatter masked_select narrow nonzero put scatter scatter_add "
        "scatter_reduce select take take_along_dim where").split(),
    "sampling": (
        "bernoulli cauchy exponential geometric initial_seed log_normal manual_seed multinomial "
        "normal poisson rand rand_like randint randint_like randn randn_like random randperm "
        "seed uniform").split(),
}
CONTAINERS = ["Module", "ModuleDict", "ModuleList", "ParameterDict", "ParameterList", "Sequential"]


def save_names() -> None:
    import torch
    import torch.nn.functional
    import torch.utils.data

    owners = {"torch": torch, "torch.Tensor": torch.Tensor, "torch.nn": torch.nn,
              "torch.nn.functional": torch.nn.functional, "torch.utils.data": torch.utils.data}
    names = {key: sorted(n for n in dir(owner) if not n.startswith("_")) for key, owner in owners.items()}
    NAMES_FILE.write_text(json.dumps({"torch_version": torch.__version__, **names}, indent=0) + "\n")
    TENSOR_NAMES_FILE.write_text(tensor_names_module(torch.__version__, names["torch.Tensor"]))


def tensor_names_module(version: str, names: list[str]) -> str:
    """The text of the framework's `provided/tensor_names.py`: `torch.Tensor`'s public names."""
    lines, line = [], "   "
    for name in names:
        if len(line) + len(name) + 4 > 99:
            lines.append(line.rstrip())
            line = "   "
        line += f" {name!r},"
    lines.append(line.rstrip())
    body = "\n".join(lines)
    return (f'"""The public names of PyTorch {version}\'s `torch.Tensor`, written by\n'
            '`python -m checks.external.coverage --save-names`: each one that `Tensor` lacks is an '
            'error of\nours that says so (`loud.py`)."""\n\n'
            f"TENSOR_NAMES = (\n{body}\n)\n")


def framework_owner(namespace: str, impl: str):
    framework = load_framework(impl)
    path = NAMESPACES[namespace]
    if path == "Tensor":
        return framework.Tensor
    return importlib.import_module(f"framework.{path}") if path else framework


def refused(impl: str, namespace: str) -> set[str]:
    """The names the framework defines only to refuse them: LOUD's and its own table's."""
    load_framework(impl)
    try:
        loud = importlib.import_module("framework.provided.loud")
        own = {*loud.REFUSED, *loud.IN_PLACE_REFUSED}
    except (ImportError, AttributeError):  # an older copy, without a table of refusals
        own = set()
    return LOUD.get(namespace, set()) | (own if namespace in ("torch", "torch.Tensor") else set())


def classify(impl: str = "solutions") -> dict[str, dict[str, list[str]]]:
    """namespace -> {"supported": [...], "loud": [...], "not yet": [...]}."""
    names = json.loads(NAMES_FILE.read_text())
    table = {}
    for namespace in NAMESPACES:
        owner, loud = framework_owner(namespace, impl), refused(impl, namespace)
        kinds = {"supported": [], "loud": [], "not yet": []}
        for name in names[namespace]:
            if not hasattr(owner, name):
                kinds["not yet"].append(name)
            else:
                kinds["loud" if name in loud else "supported"].append(name)
        table[namespace] = kinds
    return table


def module_forms(names: dict) -> list[str]:
    """The `torch.nn` names that are the module form of a `torch.nn.functional` name."""
    def letters(name: str) -> str:
        return name.lower().replace("_", "").removesuffix("loss")

    functional = {letters(n) for n in names["torch.nn.functional"]}
    return [n for n in names["torch.nn"] if n[:1].isupper() and letters(n) in functional]


def family_members(names: dict) -> dict[str, list[tuple[str, str]]]:
    """family -> its (namespace, name) pairs among PyTorch's names."""
    members = {}
    for family, bases in FAMILIES.items():
        members[family] = [(ns, n) for ns in ("torch", "torch.Tensor") for n in names[ns]
                           if n in bases or (n.endswith("_") and n[:-1] in bases)]
    members["container modules"] = [("torch.nn", n) for n in CONTAINERS if n in names["torch.nn"]]
    members["module forms of functionals"] = [("torch.nn", n) for n in module_forms(names)]
    return members


def by_family(table: dict) -> dict[str, dict[str, int]]:
    """family -> {"public names": n, "supported": n, "loud": n, "not yet": n}."""
    kind_of = {(ns, n): kind for ns, kinds in table.items() for kind, ns_names in kinds.items()
               for n in ns_names}
    counts = {}
    for family, pairs in family_members(json.loads(NAMES_FILE.read_text())).items():
        kinds = [kind_of[pair] for pair in pairs]
        counts[family] = {"public names": len(kinds),
                          **{k: kinds.count(k) for k in ("supported", "loud", "not yet")}}
    return counts


def markdown(table: dict, version: str) -> str:
    rows = ["| PyTorch " + version + " names | public names | supported | loud | not yet |",
            "| --- | ---: | ---: | ---: | ---: |"]
    totals = [0, 0, 0, 0]
    for namespace, kinds in table.items():
        counts = [sum(map(len, kinds.values())), *(len(kinds[k]) for k in ("supported", "loud", "not yet"))]
        totals = [a + b for a, b in zip(totals, counts)]
        rows.append(f"| `{namespace}` | " + " | ".join(map(str, counts)) + " |")
    rows.append("| all | " + " | ".join(map(str, totals)) + " |")
    return "\n".join(rows)


def family_markdown(table: dict) -> str:
    rows = ["| family (`torch`, `torch.Tensor`, `torch.nn`) | public names | supported | loud | "
            "not yet |", "| --- | ---: | ---: | ---: | ---: |"]
    for family, counts in by_family(table).items():
        rows.append(f"| {family} | " + " | ".join(str(c) for c in counts.values()) + " |")
    return "\n".join(rows)


def write_section(readme: str, begin: str, end: str, text: str) -> str:
    pattern = re.compile(re.escape(begin) + ".*?" + re.escape(end), re.S)
    if not pattern.search(readme):
        raise SystemExit(f"README.md has no {begin!r} … {end!r} section to write the table into")
    return pattern.sub(lambda _: f"{begin}\n{text}\n{end}", readme)


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--impl", default="solutions")
    parser.add_argument("--save-names", action="store_true")
    parser.add_argument("--readme", action="store_true")
    parser.add_argument("--list", choices=["supported", "loud", "not yet"])
    args = parser.parse_args(argv)
    if args.save_names:
        save_names()
    table = classify(args.impl)
    text = markdown(table, json.loads(NAMES_FILE.read_text())["torch_version"])
    families = family_markdown(table)
    print(text, families, sep="\n\n")
    if args.list:
        for namespace, kinds in table.items():
            print(f"{namespace}: {', '.join(kinds[args.list])}")
    if args.readme:
        readme = write_section(README.read_text(), BEGIN, END, text)
        README.write_text(write_section(readme, FAMILY_BEGIN, FAMILY_END, families))
    return 0


if __name__ == "__main__":
    sys.exit(main())
