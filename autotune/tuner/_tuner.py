"""The search: baseline, ceiling, seeded guesses, Optuna, confirmation; one probe at a time."""

from __future__ import annotations

import time
from collections.abc import Callable
from dataclasses import dataclass, field, replace
from typing import Any, Protocol

import optuna
from optuna.trial import FrozenTrial, TrialState

from autotune.contract import LoaderConfig, ProbeResult, ProbeSettings, TrialConfig
from autotune.runner import BaseRunner, Target, WindowCallback
from autotune.tuner._confirm import Candidate, confirm, pick
from autotune.tuner._diagnosis import diagnose
from autotune.tuner._heartbeat import fail_stale_trials, heartbeat
from autotune.tuner._noise import median
from autotune.tuner._records import (
    frozen_from_result,
    result_attrs,
    role,
    trial_config,
    trial_result,
    trial_state,
    usable,
)
from autotune.tuner._seed import predict_workers
from autotune.tuner._space import SearchSpace
from autotune.tuner._stop import ceiling_suspect, stop_reason

_MAX_DUPLICATES_IN_A_ROW = 4
EXHAUSTED = "the search space is exhausted: the sampler keeps proposing settings already measured"


class Reporter(Protocol):
    def trial_started(
        self, number: int, done: int, total: int, role: str, config: LoaderConfig
    ) -> None: ...

    def trial_finished(
        self, number: int, result: ProbeResult, best: float | None, baseline: float | None
    ) -> None: ...

    def note(self, text: str) -> None: ...


class NullReporter:
    def trial_started(
        self, number: int, done: int, total: int, role: str, config: LoaderConfig
    ) -> None:
        pass

    def trial_finished(
        self, number: int, result: ProbeResult, best: float | None, baseline: float | None
    ) -> None:
        pass

    def note(self, text: str) -> None:
        pass


@dataclass
class TunerOptions:
    trials: int = 20
    timeout_s: float = 1800.0
    trial_timeout_s: float = 120.0
    settings: ProbeSettings = field(default_factory=ProbeSettings)
    tune_batch_size: bool = False
    max_workers: int | None = None
    patience: int = 4
    confirm_top: int = 2
    ceiling: bool = True
    max_gpu_mem_bytes: int | None = None
    # False: baseline, ceiling and seeds only; `autotune worker` processes do the search.
    search: bool = True


@dataclass
class Outcome:
    stop_reason: str
    interrupted: bool = False


def measured(trial: FrozenTrial) -> bool:
    """A probe finished and its result was recorded: not a trial whose process was killed
    (failed by its stale heartbeat and retried as a new trial)."""
    return trial.user_attrs.get("status") is not None


def counted(trials: list[FrozenTrial]) -> int:
    """Trials that used the budget: finished ones, not duplicates skipped without a probe,
    not killed ones (their retry counts instead)."""
    return sum(
        1
        for t in trials
        if t.state in (TrialState.COMPLETE, TrialState.FAIL, TrialState.PRUNED)
        and t.user_attrs.get("duplicate_of") is None
        and measured(t)
    )


class Tuner:
    """Facade over the search; the runner is the only thing that touches processes."""

    def __init__(
        self,
        study: optuna.Study,
        target: Target,
        runner: BaseRunner,
        options: TunerOptions,
        *,
        cpu_count: int,
        cuda: bool,
        reporter: Reporter | None = None,
        after_trial: Callable[[optuna.Study], None] | None = None,
    ) -> None:
        self.study = study
        self.target = target
        self.runner = runner
        self.options = options
        self.cpu_count = cpu_count
        self.cuda = cuda
        self.reporter: Reporter = reporter or NullReporter()
        self._after_trial = after_trial or (lambda study: None)
        self._started = time.monotonic()
        self._last_space: SearchSpace | None = None

    # --- helpers ----------------------------------------------------------------------------
    def _trials(self) -> list[FrozenTrial]:
        return self.study.get_trials(deepcopy=False)

    def baseline_trial(self) -> FrozenTrial | None:
        return next((t for t in self._trials() if role(t) == "baseline"), None)

    def _best_value(self) -> float | None:
        values = [t.value for t in self._trials() if usable(t) and t.value is not None]
        return max(values) if values else None

    def _space(self, script: LoaderConfig | None, max_workers: int | None = None) -> SearchSpace:
        return SearchSpace.for_machine(
            self.cpu_count,
            cuda=self.cuda,
            script=script,
            tune_batch_size=self.options.tune_batch_size,
            max_workers=self.options.max_workers if max_workers is None else max_workers,
        )

    def _probe(
        self,
        config: LoaderConfig,
        *,
        mode: str = "measure",
        on_window: WindowCallback | None = None,
    ) -> ProbeResult:
        return self.runner.run(
            self.target,
            TrialConfig(loader=config, settings=self.options.settings, mode=mode),  # type: ignore[arg-type]
            timeout_s=self.options.trial_timeout_s,
            on_window=on_window,
        )

    def _ceiling(self) -> float | None:
        value = self.study.user_attrs.get("ceiling", {}).get("samples_per_s")
        return float(value) if value else None

    def _time_left(self) -> bool:
        return time.monotonic() - self._started < self.options.timeout_s

    def _add_probe_seconds(self, seconds: float) -> None:
        spent = float(self.study.user_attrs.get("extra_probe_seconds", 0.0))
        self.study.set_user_attr("extra_probe_seconds", spent + seconds)

    def _over_gpu_budget(self, result: ProbeResult) -> float:
        limit = self.options.max_gpu_mem_bytes
        peak = (result.gpu or {}).get("max_memory_allocated_bytes")
        return float(peak - limit) if limit and peak else 0.0

    def _over_host_budget(self, result: ProbeResult) -> float:
        limit = self.options.settings.max_host_mem_bytes
        if result.status == "over_memory":
            return float(max(1, (result.peak_rss_bytes or 0) - (limit or 0)))
        if limit and result.peak_rss_bytes:
            return float(result.peak_rss_bytes - limit)
        return 0.0

    # --- phases -----------------------------------------------------------------------------
    def _run_baseline(self) -> FrozenTrial:
        number = len(self._trials())
        self.reporter.trial_started(number, 0, self.options.trials, "baseline", LoaderConfig())
        result = self._probe(LoaderConfig())
        space = self._space(result.script_config)
        params = (
            space.params(result.script_config)
            if result.script_config.num_workers is not None
            else {}
        )
        self.study.add_trial(
            frozen_from_result(result, "baseline", params, space.distributions(params))
        )
        self.reporter.trial_finished(number, result, self._best_value(), result.samples_per_s)
        self._after_trial(self.study)
        return self.baseline_trial()  # type: ignore[return-value]

    def _run_ceiling(self) -> None:
        if not self.options.ceiling or "ceiling" in self.study.user_attrs:
            return
        self.reporter.note("  measuring the compute ceiling (cached batches, no data cost)")
        result = self._probe(LoaderConfig(), mode="ceiling")
        self._add_probe_seconds(result.wall_s or 0.0)
        ceiling: dict[str, Any] = {"samples_per_s": None, "windows": [], "status": result.status}
        if result.ok and result.samples_per_s:
            ceiling.update(samples_per_s=result.samples_per_s, windows=result.windows)
            self.reporter.note(f"  compute ceiling: {result.samples_per_s:,.0f} samples/s")
        else:
            self.reporter.note(f"  no ceiling: {result.status} {result.reason}")
        self.study.set_user_attr("ceiling", ceiling)

    def _diagnose(self) -> None:
        base = self.baseline_trial()
        result = trial_result(base) if base is not None else None
        if result is None:
            return
        best = max(
            (t for t in self._trials() if usable(t)), key=lambda t: t.value or 0.0, default=None
        )
        best_result = trial_result(best) if best is not None else None
        ceiling = self._ceiling()
        # The baseline shows the bottleneck as written; the best run shows what remains.
        subject = result
        if (
            best_result is not None
            and best is not None
            and best.number != (base.number if base else -1)
        ) and (
            best_result.data_wait_fraction is not None
            and (best_result.data_wait_fraction or 0) >= 0.1
        ):
            subject = best_result
        diagnosis = diagnose(
            subject,
            cpu_count=self.cpu_count,
            ceiling=ceiling,
            best=best.value if best is not None else None,
        )
        if subject is not result:
            first = diagnose(result, cpu_count=self.cpu_count)
            if first.bottleneck != diagnosis.bottleneck:
                diagnosis = diagnose(
                    result,
                    cpu_count=self.cpu_count,
                    ceiling=ceiling,
                    best=best.value if best is not None else None,
                )
        self.study.set_user_attr("diagnosis", diagnosis.to_dict())

    def _narrowed_space(self, baseline: FrozenTrial, script: LoaderConfig) -> SearchSpace:
        """The worker range follows the diagnosis: cores for CPU-bound loaders, tens for
        latency-bound ones, a few for a model-bound step."""
        result = trial_result(baseline)
        wide = self._space(script)
        if result is None or not result.ok or self.options.max_workers is not None:
            return wide
        bottleneck = diagnose(result, cpu_count=self.cpu_count).bottleneck
        top = wide.max_workers
        if bottleneck == "input-cpu":
            top = max(2, 2 * self.cpu_count)
        elif bottleneck == "model":
            top = max(2, self.cpu_count)
        elif bottleneck == "input-latency":
            predicted = (
                predict_workers(
                    result,
                    max_workers=4 * wide.max_workers,
                    cpu_count=self.cpu_count,
                    ceiling=self._ceiling(),
                )
                or 0
            )
            top = max(top, 2 * predicted)
        return self._space(script, max_workers=max(top, script.num_workers or 0))

    def _enqueue_seeds(self, baseline: FrozenTrial, space: SearchSpace) -> None:
        if self.study.user_attrs.get("seeded"):
            return
        self.study.set_user_attr("seeded", True)
        result = trial_result(baseline)
        if result is None or not result.ok:
            return
        script = result.script_config
        workers = predict_workers(
            result, max_workers=space.max_workers, cpu_count=self.cpu_count, ceiling=self._ceiling()
        )
        self.study.set_user_attr("predicted_workers", workers)
        if workers is None:
            workers = script.num_workers or 0
        seed = LoaderConfig(num_workers=workers, prefetch_factor=2, persistent_workers=True)
        if self.cuda:
            seed = replace(seed, device="cuda", pin_memory=True, num_streams=1)
        seeds = [seed]
        if self.cuda and workers == (script.num_workers or 0):
            seeds.append(LoaderConfig(num_workers=workers, device="cpu"))
        for config in seeds:
            if config.merged_over(script) != script:
                self.study.enqueue_trial(space.params(config), user_attrs={"role": "seeded"})
        if seeds:
            self.reporter.note(f"  seeded: {workers} workers predicted to hide loading")

    def run(self) -> Outcome:
        """Probe until a stop rule fires; Ctrl-C stops cleanly with every finished trial kept."""
        try:
            outcome = self._run()
        except KeyboardInterrupt:
            outcome = Outcome("interrupted by Ctrl-C", interrupted=True)
        try:
            self._diagnose()
            self.study.set_user_attr("stop_reason", outcome.stop_reason)
            self._after_trial(self.study)
        except KeyboardInterrupt:
            outcome = Outcome("interrupted by Ctrl-C", interrupted=True)
        return outcome

    def _run(self) -> Outcome:
        baseline = self.baseline_trial() or self._run_baseline()
        if baseline.state == TrialState.FAIL:
            status = baseline.user_attrs.get("status")
            return Outcome(
                f"the script as written failed ({status}): {baseline.user_attrs.get('reason', '')}"
            )
        script = LoaderConfig.from_dict(baseline.user_attrs.get("script_config"))
        self._run_ceiling()
        self._check_ceiling()
        space = self._narrowed_space(baseline, script)
        self._enqueue_seeds(baseline, space)
        if not self.options.search:
            return Outcome("created for `autotune worker`: baseline measured, seeds enqueued")
        reason = self._search(space)
        if self.study.user_attrs.get("confirmation") is None:
            self._confirm()
        return Outcome(reason)

    def _check_ceiling(self) -> None:
        """An upper bound that a measured run disproves was mismeasured (a noisy machine):
        measure it once more and keep the higher; if it is still disproved, drop it."""
        ceiling = self.study.user_attrs.get("ceiling") or {}
        windows = ceiling.get("windows") or []
        why = ceiling_suspect(self._trials(), windows)
        if why is None:
            return
        if not ceiling.get("remeasured"):
            self.reporter.note(f"  the compute ceiling looks wrong ({why}): measuring it again")
            result = self._probe(LoaderConfig(), mode="ceiling")
            self._add_probe_seconds(result.wall_s or 0.0)
            ceiling["remeasured"] = True
            if result.ok and result.windows and median(result.windows) > median(windows):
                ceiling.update(samples_per_s=result.samples_per_s, windows=result.windows)
            why = ceiling_suspect(self._trials(), ceiling.get("windows") or [])
        if why is not None:
            ceiling.update(samples_per_s=None, windows=[], status=f"unreliable: {why}")
        self.study.set_user_attr("ceiling", ceiling)

    def _back_off(self, trial_number: int, config: LoaderConfig, result: ProbeResult) -> None:
        """A trial that crashed, hung or ran out of memory with more workers than any that
        worked caps the worker range below it, and the midpoint is tried next. Worker
        counts fail for reasons that grow with the count (open files, memory, processes)."""
        workers = config.num_workers or 0
        if result.status not in ("crashed", "hung", "oom", "over_memory") or workers <= 1:
            return
        working = [(trial_config(t).num_workers or 0) for t in self._trials() if usable(t)]
        floor = max(working, default=0)
        if workers <= floor:
            return
        cap = min(int(self.study.user_attrs.get("worker_cap", workers)), workers - 1)
        self.study.set_user_attr("worker_cap", cap)
        retry = max(floor + 1, (floor + workers) // 2)
        if retry >= workers or self._last_space is None:
            return
        params = self._last_space.params(replace(config, num_workers=retry))
        self.study.enqueue_trial(params, user_attrs={"role": "seeded"}, skip_if_exists=True)
        self.reporter.note(
            f"  #{trial_number} failed with {workers} workers: capping at {cap}, trying {retry}"
        )

    def _stop(self) -> str | None:
        self._check_ceiling()
        trials = self._trials()
        if counted(trials) >= self.options.trials:
            return f"reached --trials {self.options.trials}"
        if not self._time_left():
            return f"reached --timeout {self.options.timeout_s:.0f}s"
        ceiling = self.study.user_attrs.get("ceiling", {}).get("windows")
        return stop_reason(trials, ceiling, self.options.patience)

    def _search(self, space: SearchSpace) -> str:
        duplicates = 0
        while (reason := self._stop()) is None:
            if self.next_trial(space):
                duplicates = 0
                continue
            duplicates += 1
            if duplicates >= _MAX_DUPLICATES_IN_A_ROW:
                return EXHAUSTED
        return reason

    def next_trial(self, space: SearchSpace) -> bool:
        """Ask for a trial and probe it; False where it repeated settings already measured."""
        # A killed process's RUNNING trial is failed here and its settings queued again.
        fail_stale_trials(self.study)
        cap = self.study.user_attrs.get("worker_cap")
        if cap is not None and cap < space.max_workers:
            space = replace(space, max_workers=max(0, int(cap)))
        self._last_space = space
        trial = self.study.ask()
        seeded = trial.user_attrs.get("role") == "seeded"
        config = space.suggest(trial)
        dup = self._duplicate_of(config)
        if dup is not None and not seeded:
            trial.set_user_attr("duplicate_of", dup)
            self.study.tell(trial, state=TrialState.PRUNED)
            return False
        self._run_trial(trial, config, "seeded" if seeded else "search")
        return True

    def _duplicate_of(self, config: LoaderConfig) -> int | None:
        for t in self._trials():
            finished = t.state in (TrialState.COMPLETE, TrialState.FAIL) and measured(t)
            if finished and role(t) != "baseline" and LoaderConfig.from_dict(t.params) == config:
                return t.number
        return None

    def _run_trial(self, trial: optuna.Trial, config: LoaderConfig, trial_role: str) -> None:
        done = counted(self._trials())
        self.reporter.trial_started(trial.number, done, self.options.trials, trial_role, config)

        def on_window(index: int, value: float) -> bool:
            trial.report(value, index)
            return trial.should_prune()

        try:
            with heartbeat(self.study, trial):
                result = self._probe(config, on_window=on_window)
        except KeyboardInterrupt:
            interrupted = ProbeResult(status="interrupted", reason="interrupted by Ctrl-C")
            for key, value in result_attrs(interrupted, trial_role).items():
                trial.set_user_attr(key, value)
            self.study.tell(trial, state=TrialState.FAIL)
            raise
        if result.applied_config == LoaderConfig():
            # Killed before it reported (pruned, hung): record what it was asked to run.
            result.applied_config = config
        for key, value in result_attrs(result, trial_role).items():
            trial.set_user_attr(key, value)
        # Infeasible (over a memory budget) trials are never recommended; TPE learns the
        # region from the constraint.
        host, gpu = self._over_host_budget(result), self._over_gpu_budget(result)
        trial.set_constraint("host_memory", host)
        trial.set_constraint("gpu_memory", gpu)
        state = trial_state(result)
        if state == TrialState.COMPLETE and (host > 0 or gpu > 0):
            trial.set_user_attr("status", "over_memory")
            trial.set_user_attr("reason", "over the memory budget (--max-host-mem/--max-gpu-mem)")
            state = TrialState.FAIL
        baseline = self.baseline_trial()
        self.study.tell(
            trial, result.samples_per_s if state == TrialState.COMPLETE else None, state=state
        )
        self.reporter.trial_finished(
            trial.number,
            result,
            self._best_value(),
            baseline.value if baseline is not None else None,
        )
        if state == TrialState.FAIL:
            self._back_off(trial.number, config, result)
        self._after_trial(self.study)

    def _confirm(self) -> None:
        trials = self._trials()
        pool = [
            Candidate(
                t.number,
                trial_config(t),
                [v for _, v in sorted(t.intermediate_values.items())],
                peak_rss=(trial_result(t) or ProbeResult()).peak_rss_bytes or 0,
            )
            for t in trials
            if usable(t)
        ]
        if not pool:
            return
        chosen = pick(pool, self.options.confirm_top)
        base_trial = self.baseline_trial()
        base = next(
            (c for c in pool if base_trial is not None and c.trial == base_trial.number), None
        )
        if base is not None and base in chosen:
            base = None  # already re-measured as a candidate
        names = ", ".join(f"#{c.trial}" for c in chosen)
        self.reporter.note(f"  confirming {names} (re-measured interleaved with the baseline)")

        def probe(cand: Candidate) -> ProbeResult:
            # The baseline is re-run exactly as written, not as our reading of it.
            return self._probe(LoaderConfig() if cand is base else cand.config)

        result = confirm(chosen, base, probe)
        self._add_probe_seconds(result["probe_seconds"])
        self.study.set_user_attr("confirmation", result)
