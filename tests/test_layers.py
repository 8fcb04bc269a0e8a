"""The house rules, read from the code's own imports: layers point down, and no package
reaches into another's private modules."""

from __future__ import annotations

import ast
from collections.abc import Iterator
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent

# Lower layers never import higher ones. An entry covers its package and every module under
# it, except the entries in ONLY_ITSELF: each module directly under `autotune/` needs an entry
# of its own, so a new one cannot fall into layer 0 unnoticed.
LAYERS = {
    "autotune": 0,  # autotune/__init__.py: the version, and `recommended` loaded lazily
    "autotune._words": 0,  # an exception in one line, for every layer's error messages
    "autotune.contract": 0,
    "autotune.hardware": 0,
    "autotune.answer": 1,  # the study's answer, typed (standard library and the contract)
    # The probe's rooms, each above the ones it uses: readings of the machine, then
    # measurement, then the loader it finds and switches, then the session that runs them.
    "autotune.probe.machine": 1.0,
    "autotune.probe.measure": 1.1,
    "autotune.probe.loader": 1.2,
    "autotune.probe.session": 1.3,
    "autotune.probe": 1.4,
    "autotune.runner": 1,
    "autotune.state": 2,  # what a study remembers, typed, over Optuna's user attributes
    # One layer, so neither imports the other: the tuner computes the answer, the store
    # keeps and serves it.
    # The tuner's rooms: what the measurements show, then what to try and when to stop, then
    # the loop that runs the search.
    "autotune.tuner.evidence": 3.0,
    "autotune.tuner.policy": 3.1,
    "autotune.tuner.workers": 3.15,  # the worker count: range, seeds, climbs, cap
    "autotune.tuner.loop": 3.2,
    "autotune.tuner": 3.3,
    "autotune.store": 3,
    "autotune._recommended": 4,  # what a training script calls: reads the store or the API
    "autotune.api": 4,  # the HTTP service: top-level api/ of the checkout, shipped inside
    "autotune.cli": 4,
}
ONLY_ITSELF = frozenset({"autotune"})
# Imports allowed against the rule, each for a reason: the CLI serves the API; the package
# loads `recommended` only when it is asked for, so `import autotune` stays light.
ALLOWED = frozenset({("autotune.cli", "autotune.api"), ("autotune", "autotune._recommended")})


def package(module: str, layers: dict[str, float] = LAYERS) -> str | None:
    """The layer entry a module belongs to (the longest one that covers it), or None."""
    if module.startswith("autotune.migrations"):
        return "autotune.store"  # the store's own Alembic scripts, shipped beside it
    parts = module.split(".")
    for i in range(len(parts), 0, -1):
        name = ".".join(parts[:i])
        if name in layers and (i == len(parts) or name not in ONLY_ITSELF):
            return name
    return None


# Folders of the checkout and the package each ships as (pyproject.toml's package-dir).
SHIPPED_AS = {"autotune": "autotune", "api": "autotune.api", "migrations": "autotune.migrations"}


def modules(root: Path) -> Iterator[tuple[str, Path]]:
    """Every module of the checkout at ``root``, by the name it is imported as: autotune/,
    and api/ and migrations/ shipped inside it."""
    for top, name in SHIPPED_AS.items():
        for path in sorted((root / top).rglob("*.py")):
            parts = list(path.relative_to(root / top).with_suffix("").parts)
            if parts and parts[-1] == "__init__":
                parts = parts[:-1]
            yield ".".join((name, *parts)), path


def imports(path: Path, module: str = "") -> Iterator[tuple[str, int]]:
    """The names ``path`` imports, relative imports read from ``module``, its own name."""
    is_package = path.name == "__init__.py"
    for node in ast.walk(ast.parse(path.read_text(encoding="utf-8"))):
        if isinstance(node, ast.Import):
            for alias in node.names:
                yield alias.name, node.lineno
        elif isinstance(node, ast.ImportFrom):
            base = node.module or ""
            if node.level:
                parts = module.split(".")
                drop = node.level - 1 if is_package else node.level
                base = ".".join([*parts[: len(parts) - drop], *([base] if base else [])])
            if not base:
                continue
            if node.module:
                yield base, node.lineno
            for alias in node.names:  # `from autotune.store import _queries`
                yield f"{base}.{alias.name}", node.lineno


def _ours(name: str) -> bool:
    return name == "autotune" or name.startswith("autotune.")


def _module_named(name: str, known: set[str]) -> str:
    """The module an imported name is or lives in (`autotune.__version__` is in `autotune`)."""
    parts = name.split(".")
    for i in range(len(parts), 0, -1):
        if ".".join(parts[:i]) in known:
            return ".".join(parts[:i])
    return name


def _top(entry: str) -> str:
    return ".".join(entry.split(".")[:2])


def _below(there: str, here: str, layers: dict[str, float]) -> bool:
    """``there`` may be imported from ``here``: a lower whole layer, or a lower room of the
    same package (the tuner's policy uses its evidence, never the store beside it)."""
    if int(layers[there]) < int(layers[here]):
        return True
    return _top(there) == _top(here) and layers[there] < layers[here]


def unlisted(root: Path, layers: dict[str, float] = LAYERS) -> list[str]:
    return [module for module, _ in modules(root) if package(module, layers) is None]


def upward_imports(root: Path, layers: dict[str, float] = LAYERS) -> list[str]:
    """Imports of a module's own layer or a higher one, and of modules in no layer."""
    found = dict(modules(root))
    wrong: list[str] = []
    for module, path in found.items():
        here = package(module, layers)
        if here is None:
            continue  # unlisted() names it
        for name, line in imports(path, module):
            if not _ours(name):
                continue
            target = _module_named(name, set(found))
            there = package(target, layers)
            where = f"{path.relative_to(root)}:{line} {module} -> {target}"
            if there is None:
                where += " (in no layer)"
            elif there == here or (here, there) in ALLOWED or _below(there, here, layers):
                continue
            if where not in wrong:  # `from x._y import z` names x._y twice
                wrong.append(where)
    return wrong


def private_imports(root: Path, layers: dict[str, float] = LAYERS) -> list[str]:
    """Imports of another layer entry's private (`_name`) modules or names."""
    found = dict(modules(root))
    wrong = []
    for module, path in found.items():
        here = package(module, layers)
        for name, line in imports(path, module):
            if not _ours(name):
                continue
            there = package(_module_named(name, set(found)), layers)
            if there is None or not name.startswith(there):
                continue  # upward_imports() names the first; the store's own migrations
            rest = name[len(there) :].lstrip(".").split(".") if name != there else []
            private = any(p.startswith("_") and not p.endswith("__") for p in rest)
            if private and there != here:
                wrong.append(f"{path.relative_to(root)}:{line} {module} -> {name}")
    return wrong


def test_every_module_is_in_a_layer() -> None:
    assert not unlisted(ROOT), "add these to LAYERS"


def test_layers_point_down() -> None:
    wrong = upward_imports(ROOT)
    assert not wrong, "imports that point up or sideways:\n" + "\n".join(wrong)


def test_no_package_imports_another_packages_private_modules() -> None:
    wrong = private_imports(ROOT)
    assert not wrong, "use the package's public face instead:\n" + "\n".join(wrong)


def _tree(root: Path, files: dict[str, str]) -> Path:
    for name, text in files.items():
        path = root / name
        path.parent.mkdir(parents=True, exist_ok=True)
        path.write_text(text, encoding="utf-8")
    return root


def test_the_rules_find_what_they_look_for(tmp_path: Path) -> None:
    root = _tree(
        tmp_path,
        {
            "autotune/__init__.py": "__version__ = '0'\n",
            "autotune/contract.py": "import os\n",
            # A listed root module that reaches up: the old rule read every import of a
            # root module as the module's own package and let this through.
            "autotune/_words.py": "import os\nimport autotune.tuner\n",
            "autotune/_stray.py": "from autotune.contract import os\n",  # in no layer
            "autotune/tuner/__init__.py": "from autotune.tuner._loop import run\n",
            "autotune/tuner/_loop.py": "from autotune.store._queries import lookup\n",
            "autotune/store/__init__.py": "from autotune.tuner import run\n",
            "autotune/store/_queries.py": "from autotune import _stray\n",
            # Rooms of one package: policy uses evidence, evidence never uses policy.
            "autotune/tuner/policy/__init__.py": "from autotune.tuner.evidence import noise\n",
            "autotune/tuner/evidence/__init__.py": "from autotune.tuner.policy import climb\n",
        },
    )
    assert unlisted(root) == ["autotune._stray"]
    assert upward_imports(root) == [
        "autotune/_words.py:2 autotune._words -> autotune.tuner",
        # The store and the tuner share a layer: neither may import the other.
        "autotune/store/__init__.py:1 autotune.store -> autotune.tuner",
        "autotune/store/_queries.py:1 autotune.store._queries -> autotune._stray (in no layer)",
        "autotune/tuner/_loop.py:1 autotune.tuner._loop -> autotune.store._queries",
        "autotune/tuner/evidence/__init__.py:1 autotune.tuner.evidence -> autotune.tuner.policy",
    ]
    assert private_imports(root) == [
        "autotune/tuner/_loop.py:1 autotune.tuner._loop -> autotune.store._queries",
        "autotune/tuner/_loop.py:1 autotune.tuner._loop -> autotune.store._queries.lookup",
    ]
