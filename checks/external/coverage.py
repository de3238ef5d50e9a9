"""How much of PyTorch's public surface the framework has, from PyTorch's own lists of names.

`pytorch_names.json` holds the public names (no leading underscore) of `torch`,
`torch.Tensor`, `torch.nn` and `torch.nn.functional` of one installed PyTorch, so the table
regenerates without PyTorch. Each name is:

- supported: the framework has it (`framework`, `framework.Tensor`, `framework.nn`,
  `framework.nn.functional`);
- loud: the framework has it only to raise an error that names the difference (LOUD);
- not yet: the framework lacks it (Python's own AttributeError).

    python -m checks.external.coverage                    # the table, for the reference
    python -m checks.external.coverage --impl PATH        # for another copy (an older commit's)
    python -m checks.external.coverage --save-names       # re-read the lists (needs PyTorch)
    python -m checks.external.coverage --readme           # write the table into README.md
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
README = Path(__file__).resolve().parent.parent.parent / "README.md"
NAMESPACES = {"torch": "", "torch.Tensor": "Tensor", "torch.nn": "nn", "torch.nn.functional": "nn.functional"}
#: Names the framework defines only to refuse them, each with an error naming the difference.
LOUD = {"torch.Tensor": {"cuda", "cumsum"}, "torch": {"set_default_dtype", "cumsum"},
        "torch.nn.functional": {"smooth_l1_loss"}}
BEGIN = "<!-- coverage: begin (python -m checks.external.coverage --readme) -->"
END = "<!-- coverage: end -->"


def save_names() -> None:
    import torch
    import torch.nn.functional

    owners = {"torch": torch, "torch.Tensor": torch.Tensor, "torch.nn": torch.nn,
              "torch.nn.functional": torch.nn.functional}
    names = {key: sorted(n for n in dir(owner) if not n.startswith("_")) for key, owner in owners.items()}
    NAMES_FILE.write_text(json.dumps({"torch_version": torch.__version__, **names}, indent=0) + "\n")


def framework_owner(namespace: str, impl: str):
    framework = load_framework(impl)
    path = NAMESPACES[namespace]
    if path == "Tensor":
        return framework.Tensor
    return importlib.import_module(f"framework.{path}") if path else framework


def classify(impl: str = "solutions") -> dict[str, dict[str, list[str]]]:
    """namespace -> {"supported": [...], "loud": [...], "not yet": [...]}."""
    names = json.loads(NAMES_FILE.read_text())
    table = {}
    for namespace in NAMESPACES:
        owner = framework_owner(namespace, impl)
        kinds = {"supported": [], "loud": [], "not yet": []}
        for name in names[namespace]:
            if not hasattr(owner, name):
                kinds["not yet"].append(name)
            else:
                kinds["loud" if name in LOUD.get(namespace, ()) else "supported"].append(name)
        table[namespace] = kinds
    return table


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
    print(text)
    if args.list:
        for namespace, kinds in table.items():
            print(f"{namespace}: {', '.join(kinds[args.list])}")
    if args.readme:
        readme = README.read_text()
        pattern = re.compile(re.escape(BEGIN) + ".*?" + re.escape(END), re.S)
        if not pattern.search(readme):
            raise SystemExit(f"README.md has no {BEGIN!r} … {END!r} section to write the table into")
        README.write_text(pattern.sub(lambda _: f"{BEGIN}\n{text}\n{END}", readme))
    return 0


if __name__ == "__main__":
    sys.exit(main())
