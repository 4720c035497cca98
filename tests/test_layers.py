"""Every module of the explorer lies in a named layer of the import contracts (pyproject.toml, checked by
`lint-imports` in `make lint`): a module added without a place in the layers fails here, so no sibling leans on
another unseen."""

from __future__ import annotations

import pkgutil
import tomllib
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]


def layer_contracts() -> list[dict]:
    config = tomllib.loads((ROOT / "pyproject.toml").read_text())["tool"]["importlinter"]["contracts"]
    return [c for c in config if c["type"] == "layers"]


def named(layers: list[str]) -> set[str]:
    return {name.strip() for layer in layers for part in layer.split("|") for name in part.split(":")}


def children(package: str) -> set[str]:
    module = __import__(package, fromlist=["_"])
    return {info.name for info in pkgutil.iter_modules(module.__path__)}


def test_every_module_of_the_explorer_is_in_a_layer_of_its_package():
    contracts = layer_contracts()
    top = next(c for c in contracts if "containers" not in c and "explorer.cli" in named(c["layers"]))
    assert {f"explorer.{name}" for name in children("explorer")} <= named(top["layers"])
    containers = [c for c in contracts if "containers" in c]
    assert {c["containers"][0] for c in containers} >= {
        "explorer.cli", "explorer.tui", "explorer.walks", "explorer.walks.telemetry", "explorer.walks.evaluation",
        "explorer.corpora", "explorer.navigators", "explorer.navigators.llm"}
    for contract in containers:
        (package,) = contract["containers"]
        missing = children(package) - named(contract["layers"])
        assert not missing, f"{package}: {sorted(missing)} in no layer of {contract['name']!r}"

