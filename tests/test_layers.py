"""The house rules, read from the code's own imports: layers point down, and no package
reaches into another's private modules."""

from __future__ import annotations

import ast
from collections.abc import Iterator
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent

# Lower layers never import higher ones. A package may import its own layer's modules only
# where named in SAME_LAYER (the CLI serves the API).
LAYERS = {
    "autotune.contract": 0,
    "autotune.hardware": 0,
    "autotune.probe": 1,
    "autotune.runner": 1,
    "autotune.tuner": 2,
    "autotune.store": 3,
    "autotune._recommended": 4,  # what a training script calls: reads the store or the API
    "autotune": 0,  # the version, and `recommended` loaded lazily
    "api": 4,
    "autotune.cli": 4,
}
SAME_LAYER = {("autotune.cli", "api")}


def _package(module: str) -> str:
    """The layer entry a module belongs to: the longest prefix in LAYERS."""
    if module.startswith("autotune.migrations"):
        return "autotune.store"  # the store's own Alembic scripts, shipped beside it
    parts = module.split(".")
    for i in range(len(parts), 0, -1):
        name = ".".join(parts[:i])
        if name in LAYERS:
            return name
    raise AssertionError(f"{module} is in no layer; add it to LAYERS")


def _modules() -> Iterator[tuple[str, Path]]:
    for top in ("autotune", "api"):
        for path in sorted((ROOT / top).rglob("*.py")):
            parts = list(path.relative_to(ROOT).with_suffix("").parts)
            if parts[-1] == "__init__":
                parts = parts[:-1]
            yield ".".join(parts), path
    for path in sorted((ROOT / "migrations").rglob("*.py")):
        rel = path.relative_to(ROOT / "migrations").with_suffix("").parts
        yield ".".join(("autotune", "migrations", *rel)).removesuffix(".__init__"), path


def _imports(path: Path) -> Iterator[tuple[str, int]]:
    for node in ast.walk(ast.parse(path.read_text(encoding="utf-8"))):
        if isinstance(node, ast.Import):
            for alias in node.names:
                yield alias.name, node.lineno
        elif isinstance(node, ast.ImportFrom) and node.module and node.level == 0:
            yield node.module, node.lineno
            for alias in node.names:  # `from autotune.store import _queries`
                yield f"{node.module}.{alias.name}", node.lineno


def _ours(name: str) -> bool:
    return name == "autotune" or name.startswith(("autotune.", "api.")) or name == "api"


def test_every_module_is_in_a_layer() -> None:
    for module, _ in _modules():
        _package(module)


def test_layers_point_down() -> None:
    wrong = []
    for module, path in _modules():
        here = _package(module)
        for name, line in _imports(path):
            if not _ours(name) or name.startswith(here + ".") or name == here:
                continue
            there = _package(name)
            if there == here or (here, there) in SAME_LAYER:
                continue
            if LAYERS[there] >= LAYERS[here]:
                wrong.append(f"{path.relative_to(ROOT)}:{line} {module} -> {name}")
    assert not wrong, "imports that point up or sideways:\n" + "\n".join(wrong)


def test_no_package_imports_another_packages_private_modules() -> None:
    wrong = []
    for module, path in _modules():
        here = _package(module)
        for name, line in _imports(path):
            if not _ours(name):
                continue
            there = _package(name)
            rest = name[len(there) :].lstrip(".").split(".") if name != there else []
            private = any(p.startswith("_") and not p.endswith("__") for p in rest)
            if private and there != here:
                wrong.append(f"{path.relative_to(ROOT)}:{line} {module} -> {name}")
    assert not wrong, "use the package's public face instead:\n" + "\n".join(wrong)


def test_the_rule_finds_what_it_looks_for(tmp_path: Path) -> None:
    bad = tmp_path / "bad.py"
    bad.write_text(
        "from autotune.store._queries import lookup\nimport autotune.cli\nimport os\n",
        encoding="utf-8",
    )
    found = list(_imports(bad))
    assert ("autotune.store._queries", 1) in found
    assert ("autotune.cli", 2) in found
    assert _package("autotune.store._queries") == "autotune.store"
    assert LAYERS[_package("autotune.cli._app")] > LAYERS[_package("autotune.tuner._tuner")]
