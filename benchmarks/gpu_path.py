"""GPU path benchmark: stream prefetch, GPU utilisation, CPU vs GPU choice.

Needs an NVIDIA GPU; on a machine without CUDA it says so and exits 2 without measuring.

1. Transfer-heavy (examples/gpu_transfer.py, large uint8 batches normalised on the GPU):
   one probe per num_streams k = 0..4 (pinned, fixed workers) reporting samples/s, the share
   of H2D copy time hidden behind compute, and GPU utilisation; then the script as written
   (baseline) against the best k (recommended).
2. Tiny model (examples/tiny_model.py): probes on device=cuda and device=cpu say which is
   faster; a short `autotune probe` study says which one autotune recommends; they should match.
3. Copy-bound (examples/gpu_copy_bound.py, 201 MB batches already in host memory, a light
   model): the script as written, then pinned or not x k = 0..4 streams at its own 0 workers,
   and 4 workers pinned with k = 2; every config measured ``--repeats`` times, the rounds
   interleaved, so each figure has a spread.

    python benchmarks/gpu_path.py [--json out.json] [--trials 12] [--parts copy --repeats 2]

With k = 0 the script copies on the compute stream itself, so nothing of the copy is hidden
by construction; the probe does not time the script's own copies, so that row shows "-".
"""

from __future__ import annotations

import argparse
import json
import os
import statistics
import subprocess
import sys
import tempfile
from pathlib import Path
from typing import Any

import torch

from autotune.contract import LoaderConfig, ProbeResult, ProbeSettings, TrialConfig
from autotune.runner import SubprocessRunner, Target

ROOT = Path(__file__).resolve().parent.parent
EXAMPLES = ROOT / "examples"
SETTINGS = ProbeSettings(warmup_s=2.0, window_s=1.5, windows=5)
TRANSFER_ARGS = ("--size", "224", "--batch-size", "256", "--depth", "2")
BATCH_BYTES = 256 * 3 * 224 * 224
TINY_ARGS = ("--batch-size", "64", "--epochs", "100000")  # outlasts every probe
COPY_ARGS = ("--size", "512", "--batch-size", "256", "--pool", "512")
COPY_SETTINGS = ProbeSettings(warmup_s=1.0, window_s=0.75, windows=3)
_RUNNER = SubprocessRunner()  # one zygote for every probe: torch is imported once


def _probe(
    script: str,
    args: tuple[str, ...],
    loader: LoaderConfig,
    settings: ProbeSettings = SETTINGS,
) -> ProbeResult:
    target = Target(str(EXAMPLES / script), args)
    config = TrialConfig(loader=loader, settings=settings)
    return _RUNNER.run(target, config, timeout_s=180)


def _row(label: str, res: ProbeResult, batch_bytes: int = BATCH_BYTES) -> dict[str, Any]:
    gpu = res.gpu.to_dict() if res.gpu else {}
    return {
        "config": label,
        "status": res.status if res.ok else f"{res.status}: {res.reason}",
        "samples_per_s": res.samples_per_s,
        "h2d_hidden_fraction": gpu.get("h2d_hidden_fraction"),
        "h2d_copy_ms_per_batch": (
            1000 * gpu["h2d_copy_s"] / gpu["h2d_batches"] if gpu.get("h2d_batches") else None
        ),
        # Bytes of one batch of uint8 images over its copy time: the link's achieved rate.
        "h2d_gbps": (
            batch_bytes * gpu["h2d_batches"] / gpu["h2d_copy_s"] / 1e9
            if gpu.get("h2d_batches") and gpu.get("h2d_copy_s")
            else None
        ),
        "gpu_util_mean_pct": gpu.get("util_mean_pct"),
        "max_memory_allocated_mib": (
            gpu["max_memory_allocated_bytes"] / 2**20
            if gpu.get("max_memory_allocated_bytes")
            else None
        ),
    }


def transfer(workers: int) -> dict[str, Any]:
    rows = []
    baseline = _probe("gpu_transfer.py", TRANSFER_ARGS, LoaderConfig())
    rows.append(_row("as written", baseline))
    for k in range(5):
        loader = LoaderConfig(num_workers=workers, pin_memory=True, num_streams=k)
        res = _probe("gpu_transfer.py", TRANSFER_ARGS, loader)
        rows.append(_row(f"workers={workers} pin k={k}", res))
        print(json.dumps(rows[-1]), file=sys.stderr, flush=True)
    streamed = [r for r in rows[2:] if r["samples_per_s"]]
    best = max(streamed, key=lambda r: r["samples_per_s"]) if streamed else None
    best_hidden = max((r["h2d_hidden_fraction"] or 0.0) for r in rows[2:])
    return {
        "rows": rows,
        "best_hidden_fraction": best_hidden,
        "target_met": best_hidden >= 0.9,
        "baseline_util_pct": rows[0]["gpu_util_mean_pct"],
        "recommended": best,
    }


def _spread(values: list[float]) -> dict[str, Any]:
    if not values:
        return {"median": None, "min": None, "max": None, "spread": None}
    med = statistics.median(values)
    return {
        "median": med,
        "min": min(values),
        "max": max(values),
        "spread": (max(values) - min(values)) / med if med else None,
    }


def copy_bound(repeats: int) -> dict[str, Any]:
    """Pinning and k against the script as written, each config ``repeats`` times, the rounds
    interleaved so that drift over the session falls on every config alike."""
    configs: list[tuple[str, LoaderConfig]] = [("as written", LoaderConfig())]
    configs += [
        (f"unpinned k={k}", LoaderConfig(pin_memory=False, num_streams=k)) for k in (1, 2, 3, 4)
    ]
    configs += [(f"pinned k={k}", LoaderConfig(pin_memory=True, num_streams=k)) for k in range(5)]
    configs.append(
        ("4 workers pinned k=2", LoaderConfig(num_workers=4, pin_memory=True, num_streams=2))
    )
    batch_bytes = 256 * 3 * 512 * 512
    runs: dict[str, list[dict[str, Any]]] = {label: [] for label, _ in configs}
    for _ in range(repeats):
        for label, loader in configs:
            row = _row(
                label, _probe("gpu_copy_bound.py", COPY_ARGS, loader, COPY_SETTINGS), batch_bytes
            )
            runs[label].append(row)
            print(json.dumps(row), file=sys.stderr, flush=True)
    table: list[dict[str, Any]] = []
    for label, rows in runs.items():

        def figure(key: str, rows: list[dict[str, Any]] = rows) -> dict[str, Any]:
            return _spread([r[key] for r in rows if r.get(key) is not None])

        table.append(
            {
                "config": label,
                "statuses": [r["status"] for r in rows],
                "samples_per_s": figure("samples_per_s"),
                "h2d_hidden_fraction": figure("h2d_hidden_fraction"),
                "h2d_gbps": figure("h2d_gbps"),
                "gpu_util_mean_pct": figure("gpu_util_mean_pct"),
                "max_memory_allocated_mib": figure("max_memory_allocated_mib"),
            }
        )
    rated = [r for r in table if r["samples_per_s"]["median"]]
    best = max(rated, key=lambda r: r["samples_per_s"]["median"]) if rated else None
    return {"args": list(COPY_ARGS), "repeats": repeats, "table": table, "best": best, "runs": runs}


def tiny(trials: int) -> dict[str, Any]:
    on_gpu = _probe("tiny_model.py", TINY_ARGS, LoaderConfig(device="cuda"))
    on_cpu = _probe("tiny_model.py", TINY_ARGS, LoaderConfig(device="cpu"))
    faster = "cuda" if (on_gpu.samples_per_s or 0) >= (on_cpu.samples_per_s or 0) else "cpu"
    with tempfile.TemporaryDirectory() as tmp:
        cmd = [
            sys.executable,
            "-m",
            "autotune.cli",
            "probe",
            str(EXAMPLES / "tiny_model.py"),
            "--storage",
            f"sqlite:///{tmp}/bench.db",
            "--trials",
            str(trials),
            "--json",
            "--warmup",
            "1",
            "--window",
            "1",
            "--windows",
            "3",
            "--",
            *TINY_ARGS,
        ]
        out = subprocess.run(cmd, capture_output=True, text=True, cwd=ROOT, check=False)
    chosen = None
    try:
        summary = json.loads(out.stdout)
        chosen = ((summary.get("recommended") or {}).get("config") or {}).get("device")
    except json.JSONDecodeError:
        print(out.stderr[-2000:], file=sys.stderr)
    return {
        "cuda_status": on_gpu.status if on_gpu.ok else f"{on_gpu.status}: {on_gpu.reason}",
        "cpu_status": on_cpu.status if on_cpu.ok else f"{on_cpu.status}: {on_cpu.reason}",
        "cuda_samples_per_s": on_gpu.samples_per_s,
        "cpu_samples_per_s": on_cpu.samples_per_s,
        "faster": faster,
        "recommended_device": chosen,
        "matched": chosen == faster,
    }


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--json", default="", help="also write the results here")
    parser.add_argument("--workers", type=int, default=min(8, os.cpu_count() or 1))
    parser.add_argument("--trials", type=int, default=12)
    parser.add_argument(
        "--parts",
        default="transfer,tiny",
        help="which parts (transfer, tiny, copy), comma-separated",
    )
    parser.add_argument("--repeats", type=int, default=2, help="rounds of the copy-bound grid")
    args = parser.parse_args()
    if not torch.cuda.is_available():
        print(
            "gpu_path: no CUDA device here (torch.cuda.is_available() is False); nothing measured",
            file=sys.stderr,
        )
        return 2
    results: dict[str, Any] = {
        "gpu": torch.cuda.get_device_name(0),
        "torch": torch.__version__,
        "cuda": torch.version.cuda,
    }
    parts = args.parts.split(",")
    results |= {
        **({"transfer": transfer(args.workers)} if "transfer" in parts else {}),
        **({"tiny": tiny(args.trials)} if "tiny" in parts else {}),
        **({"copy": copy_bound(args.repeats)} if "copy" in parts else {}),
    }
    text = json.dumps(results, indent=2)
    print(text)
    if args.json:
        Path(args.json).write_text(text)
    return 0


if __name__ == "__main__":
    sys.exit(main())
