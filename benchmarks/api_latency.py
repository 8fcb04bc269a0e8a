"""Latency of /best and the lookup under concurrent load, against a database of 10,000+ trials.

    python benchmarks/api_latency.py [--studies 200 --trials 50 --rate 200 --seconds 20 --runs 3]

Fills an SQLite file (our tables as sync_study writes them, from Optuna studies built in
memory), starts `autotune serve` on 127.0.0.1 in a subprocess, and drives open-loop load at
--rate requests/s from a second process: each request is sent on schedule, whatever the
previous ones did, so a slow server shows as latency rather than as a lower offered rate.
"""

from __future__ import annotations

import argparse
import http.client
import json
import multiprocessing
import os
import random
import socket
import statistics
import subprocess
import sys
import tempfile
import threading
import time
import urllib.parse
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
sys.path.insert(0, str(ROOT))


def fill(url: str, n_studies: int, n_trials: int) -> list[tuple[str, str, str]]:
    """(study, script, host) for every study written."""
    import optuna

    from autotune.store._engine import engine_for
    from autotune.store._migrate import upgrade
    from autotune.store._sync import _sync
    from autotune.tuner import summarize
    from tests.store.factory import make_study

    optuna.logging.set_verbosity(optuna.logging.WARNING)
    upgrade(url)
    from tests.store.factory import hardware

    hosts = [hardware(cpu_count=c) for c in (2, 4, 8, 16, 32)]
    keys = []
    for i in range(n_studies):
        hw = hosts[i % len(hosts)]
        script = f"/home/me/project{i // len(hosts)}/train.py"
        study = make_study(
            optuna.storages.InMemoryStorage(),
            f"study-{i:04d}",
            script=script,
            hw=hw,
            trials=n_trials - 2,
            failures=1,
            seed=i,
        )
        with engine_for(url).begin() as conn:
            _sync(conn, study, url, summarize(study, url))
        keys.append((study.study_name, script, hw["id"]))
    return keys


def _client(
    port: int,
    paths: list[str],
    rate: float,
    seconds: float,
    start: float,
    queue: multiprocessing.Queue,
) -> None:  # type: ignore[type-arg]
    """One load process: a pool of keep-alive connections, requests sent on a fixed schedule."""
    n = int(rate * seconds)
    lock = threading.Lock()
    next_i = [0]
    results: list[tuple[str, float, int, float]] = []

    def worker() -> None:
        conn = http.client.HTTPConnection("127.0.0.1", port, timeout=10)
        while True:
            with lock:
                i = next_i[0]
                next_i[0] += 1
            if i >= n:
                break
            due = start + i / rate
            delay = due - time.perf_counter()
            if delay > 0:
                time.sleep(delay)
            path = paths[i % len(paths)]
            t0 = time.perf_counter()
            conn.request("GET", path)
            resp = conn.getresponse()
            resp.read()
            done = time.perf_counter()
            # From when the request was due: a late send (client or server behind) counts.
            label = path.split("?")[0].rsplit("/", 1)[-1]
            results.append((label, done - min(t0, due), resp.status, done - start))
        conn.close()

    threads = [threading.Thread(target=worker) for _ in range(32)]
    for t in threads:
        t.start()
    for t in threads:
        t.join()
    queue.put(results)


def run_load(port: int, keys: list[tuple[str, str, str]], rate: float, seconds: float) -> dict:
    rng = random.Random(0)
    paths = []
    for _ in range(2000):
        name, script, host = rng.choice(keys)
        if rng.random() < 0.5:
            paths.append(f"/api/v1/studies/{name}/best")
        else:
            q = urllib.parse.urlencode({"script": script, "host": host})
            paths.append(f"/api/v1/recommendations?{q}")
    queue: multiprocessing.Queue = multiprocessing.Queue()  # type: ignore[type-arg]
    start = time.perf_counter() + 0.5
    proc = multiprocessing.Process(target=_client, args=(port, paths, rate, seconds, start, queue))
    proc.start()
    results = queue.get(timeout=seconds + 120)
    proc.join()
    wall = max(r[3] for r in results)
    out: dict[str, dict[str, float]] = {}
    for label in ("best", "recommendations", "all"):
        lat = sorted(r[1] for r in results if label == "all" or r[0] == label)
        q = statistics.quantiles(lat, n=100)
        out[label] = {
            "n": len(lat),
            "p50_ms": q[49] * 1000,
            "p99_ms": q[98] * 1000,
            "rps": len(lat) / wall,
        }
    out["all"]["errors"] = sum(1 for r in results if r[2] != 200)
    return out


def _free_port() -> int:
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        return int(s.getsockname()[1])


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--studies", type=int, default=200)
    parser.add_argument("--trials", type=int, default=50)
    parser.add_argument("--rate", type=float, default=200)
    parser.add_argument("--seconds", type=float, default=20)
    parser.add_argument("--runs", type=int, default=3)
    parser.add_argument("--db", default=None, help="SQLite file to (re)use.")
    args = parser.parse_args()
    path = Path(args.db or Path(tempfile.mkdtemp()) / "bench.db")
    url = f"sqlite:///{path}"
    t0 = time.perf_counter()
    keys = fill(url, args.studies, args.trials) if not path.exists() or args.db is None else None
    if keys is None:
        sys.exit("pass a new --db path; reusing a filled one is not supported")
    print(
        f"filled {args.studies * args.trials} trials in {time.perf_counter() - t0:.0f}s",
        file=sys.stderr,
    )
    port = _free_port()
    server = subprocess.Popen(
        [sys.executable, "-m", "autotune.cli", "serve", "--port", str(port), "--storage", url],
        cwd=ROOT,
        env=os.environ | {"AUTOTUNE_API_TOKEN": ""},
    )
    try:
        deadline = time.monotonic() + 30
        while time.monotonic() < deadline:
            try:
                with socket.create_connection(("127.0.0.1", port), timeout=0.2):
                    break
            except OSError:
                time.sleep(0.1)
        run_load(port, keys, args.rate, 2)  # warm-up
        runs = [run_load(port, keys, args.rate, args.seconds) for _ in range(args.runs)]
    finally:
        server.terminate()
        server.wait(timeout=10)
    report = {
        label: {k: statistics.median(r[label][k] for r in runs) for k in runs[0][label]}
        for label in ("best", "recommendations", "all")
    }
    print(
        json.dumps(
            {
                "trials": args.studies * args.trials,
                "rate": args.rate,
                "seconds": args.seconds,
                "runs": runs,
                "median": report,
            },
            indent=1,
        )
    )


if __name__ == "__main__":
    main()
