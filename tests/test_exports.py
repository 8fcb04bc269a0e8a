"""Each package's public face is exactly what is meant, and other packages use nothing else."""

from __future__ import annotations

import ast
import importlib

import pytest

from tests.test_layers import ROOT, modules, package

EXPORTS = {
    "autotune": {"__version__", "recommended"},
    "autotune.probe": {"ProbeDone", "apply_config", "main", "script_config"},
    "autotune.runner": {
        "BaseRunner",
        "LiveRun",
        "LiveRunner",
        "SubprocessRunner",
        "Target",
        "WindowCallback",
        "free_port",
        "kill_group",
        "merge_rank_results",
        "rank_env",
    },
    "autotune.tuner": {
        "LIVE_ROLES",
        "LiveOthers",
        "REOPENED",
        "Adapted",
        "Bottleneck",
        "Diagnosis",
        "NullReporter",
        "Opened",
        "Outcome",
        "Reporter",
        "SearchSpace",
        "Seed",
        "StudyError",
        "StudyKey",
        "Tuner",
        "TunerOptions",
        "adapt",
        "as_given",
        "check_hardware",
        "counted",
        "diagnose",
        "load_options",
        "load_study",
        "open_study",
        "open_study_for_rerun",
        "recommended_trial",
        "save_options",
        "seed_workers",
        "stay_tuned",
        "summarize",
        "trial_config",
        "trial_result",
        "usable",
        "work",
    },
    "autotune.store": {
        "DEFAULT_STORAGE",
        "STORAGE_ENV",
        "NotFoundError",
        "StorageError",
        "best",
        "current_revision",
        "delete_optuna_study",
        "delete_study",
        "engine_for",
        "get_study",
        "get_trial",
        "head_revision",
        "health",
        "list_studies",
        "list_trials",
        "lookup",
        "newer_schema",
        "open_storage",
        "parse_url",
        "safe_url",
        "set_note",
        "storage_url",
        "sync_all",
        "sync_study",
        "sync_study_strict",
        "upgrade",
    },
    "autotune.state": {
        "Ceiling",
        "Confirmation",
        "Contender",
        "Identity",
        "Readings",
        "Role",
        "SeedRecord",
        "Shape",
        "SharedOptions",
        "StoredShape",
        "StudyState",
        "TrialRecord",
        "add_probe_seconds",
        "attrs_of",
        "baseline_of",
        "compared_windows",
        "cap_workers",
        "counted",
        "enqueue",
        "identify",
        "load",
        "mark_duplicate",
        "heartbeat_thread",
        "mark_seeded",
        "measured",
        "new_identity",
        "new_trial",
        "optuna_study_id",
        "optuna_trial_id",
        "queued_params",
        "rate_of",
        "record_of",
        "role",
        "save_ceiling",
        "save_confirmation",
        "save_options",
        "save_others",
        "save_script_batches",
        "save_seed",
        "save_shape",
        "save_stop",
        "save_verdict",
        "set_script_sha256",
        "stored_shapes",
        "usable",
        "windows_of",
        "write",
    },
    "autotune.cli": {"STACKS_ENV", "app", "main"},
}


@pytest.mark.parametrize("package", sorted(EXPORTS))
def test_public_face_is_exactly_what_is_meant(package: str) -> None:
    module = importlib.import_module(package)
    assert set(module.__all__) == EXPORTS[package]
    for name in module.__all__:
        assert getattr(module, name) is not None, f"{package}.{name} does not resolve"


def test_other_packages_use_only_the_public_face() -> None:
    """`from autotune.X import name` outside X names only what X exports."""
    wrong = []
    for module, path in modules(ROOT):
        here = package(module)
        for node in ast.walk(ast.parse(path.read_text(encoding="utf-8"))):
            if not isinstance(node, ast.ImportFrom) or node.level or node.module not in EXPORTS:
                continue
            if package(node.module) == here:
                continue
            for alias in node.names:
                # `from autotune import store` names a package, not a member.
                subpackage = f"{node.module}.{alias.name}" in EXPORTS
                if alias.name not in EXPORTS[node.module] and not subpackage:
                    wrong.append(f"{path.relative_to(ROOT)}: {node.module}.{alias.name}")
    assert not wrong, "not in the package's __all__:\n" + "\n".join(wrong)
