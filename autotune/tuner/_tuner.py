"""The search: baseline, seeded guesses, then Optuna; one probe at a time."""

from __future__ import annotations

import time
from dataclasses import dataclass, field
from typing import Protocol

import optuna
from optuna.trial import TrialState

from autotune.contract import LoaderConfig, ProbeResult, ProbeSettings, TrialConfig
from autotune.runner import BaseRunner, Target
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

_MAX_DUPLICATES_IN_A_ROW = 4


class Reporter(Protocol):
    def trial_started(self, number: int, done: int, total: int, role: str,
                      config: LoaderConfig) -> None: ...

    def trial_finished(self, number: int, result: ProbeResult, best: float | None,
                       baseline: float | None) -> None: ...

    def note(self, text: str) -> None: ...


class NullReporter:
    def trial_started(self, number: int, done: int, total: int, role: str,
                      config: LoaderConfig) -> None:
        pass

    def trial_finished(self, number: int, result: ProbeResult, best: float | None,
                       baseline: float | None) -> None:
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


@dataclass
class Outcome:
    stop_reason: str
    interrupted: bool = False


def _counted(trials: list[optuna.trial.FrozenTrial]) -> int:
    """Trials that used the budget: finished ones, not duplicates skipped without a probe."""
    return sum(
        1 for t in trials
        if t.state != TrialState.RUNNING and not t.user_attrs.get("duplicate_of") is not None
        and t.state != TrialState.WAITING
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
    ) -> None:
        self.study = study
        self.target = target
        self.runner = runner
        self.options = options
        self.cpu_count = cpu_count
        self.cuda = cuda
        self.reporter: Reporter = reporter or NullReporter()
        self._started = time.monotonic()

    # --- helpers ----------------------------------------------------------------------------
    def _trials(self) -> list[optuna.trial.FrozenTrial]:
        return self.study.get_trials(deepcopy=False)

    def baseline_trial(self) -> optuna.trial.FrozenTrial | None:
        for t in self._trials():
            if role(t) == "baseline":
                return t
        return None

    def _best_value(self) -> float | None:
        values = [t.value for t in self._trials() if usable(t) and t.value is not None]
        return max(values) if values else None

    def _space(self, script: LoaderConfig | None) -> SearchSpace:
        return SearchSpace.for_machine(
            self.cpu_count,
            cuda=self.cuda,
            script=script,
            tune_batch_size=self.options.tune_batch_size,
            max_workers=self.options.max_workers,
        )

    def _probe(self, config: LoaderConfig, number: int, on_window=None) -> ProbeResult:  # type: ignore[no-untyped-def]
        return self.runner.run(
            self.target,
            TrialConfig(loader=config, settings=self.options.settings),
            timeout_s=self.options.trial_timeout_s,
            on_window=on_window,
        )

    def _time_left(self) -> bool:
        return time.monotonic() - self._started < self.options.timeout_s

    # --- phases -----------------------------------------------------------------------------
    def _run_baseline(self) -> optuna.trial.FrozenTrial:
        number = len(self._trials())
        self.reporter.trial_started(number, 0, self.options.trials, "baseline", LoaderConfig())
        result = self._probe(LoaderConfig(), number)
        space = self._space(result.script_config if result.ok else None)
        params = space.params(result.script_config) if result.script_config.num_workers is not None else {}
        frozen = frozen_from_result(result, "baseline", params, space.distributions(params))
        self.study.add_trial(frozen)
        self.reporter.trial_finished(number, result, self._best_value(), result.samples_per_s)
        return self.baseline_trial() or frozen

    def _enqueue_seeds(self, baseline: optuna.trial.FrozenTrial, space: SearchSpace) -> None:
        if self.study.user_attrs.get("seeded"):
            return
        self.study.set_user_attr("seeded", True)
        result = trial_result(baseline)
        if result is None or not result.ok:
            return
        script = result.script_config
        workers = predict_workers(result, max_workers=space.max_workers, cpu_count=self.cpu_count)
        seeds: list[LoaderConfig] = []
        if workers is not None and workers != script.num_workers:
            seeds.append(LoaderConfig(num_workers=workers, prefetch_factor=2,
                                      persistent_workers=True, device="cuda" if self.cuda else None,
                                      pin_memory=True if self.cuda else None))
        for config in seeds:
            self.study.enqueue_trial(space.params(config), user_attrs={"role": "seeded"})

    def run(self) -> Outcome:
        """Probe until the budget is spent; Ctrl-C stops cleanly with every finished trial kept."""
        try:
            return self._run()
        except KeyboardInterrupt:
            return Outcome("interrupted by Ctrl-C", interrupted=True)

    def _run(self) -> Outcome:
        baseline = self.baseline_trial()
        if baseline is None:
            baseline = self._run_baseline()
        script = LoaderConfig.from_dict(baseline.user_attrs.get("script_config"))
        space = self._space(script if script.num_workers is not None else None)
        if baseline.state == TrialState.FAIL:
            status = baseline.user_attrs.get("status")
            if status in ("no_dataloader", "crashed", "hung"):
                return Outcome(f"the script as written failed ({status}): "
                               f"{baseline.user_attrs.get('reason', '')}")
        self._enqueue_seeds(baseline, space)
        duplicates = 0
        while True:
            done = _counted(self._trials())
            if done >= self.options.trials:
                return Outcome(f"reached --trials {self.options.trials}")
            if not self._time_left():
                return Outcome(f"reached --timeout {self.options.timeout_s:.0f}s")
            trial = self.study.ask()
            seeded = trial.user_attrs.get("role") == "seeded"
            config = space.suggest(trial)
            dup = self._duplicate_of(config)
            if dup is not None and not seeded:
                trial.set_user_attr("duplicate_of", dup)
                self.study.tell(trial, state=TrialState.PRUNED)
                duplicates += 1
                if duplicates >= _MAX_DUPLICATES_IN_A_ROW:
                    return Outcome("the search space is exhausted: the sampler keeps proposing "
                                   "settings already measured")
                continue
            duplicates = 0
            self._run_trial(trial, config, "seeded" if seeded else "search", done)

    def _duplicate_of(self, config: LoaderConfig) -> int | None:
        for t in self._trials():
            if t.state in (TrialState.COMPLETE, TrialState.FAIL) and role(t) != "baseline":
                if LoaderConfig.from_dict(t.params) == config:
                    return t.number
        return None

    def _run_trial(self, trial: optuna.Trial, config: LoaderConfig, trial_role: str,
                   done: int) -> None:
        self.reporter.trial_started(trial.number, done, self.options.trials, trial_role, config)

        def on_window(index: int, value: float) -> bool:
            trial.report(value, index)
            return trial.should_prune()

        try:
            result = self._probe(config, trial.number, on_window)
        except KeyboardInterrupt:
            interrupted = ProbeResult(status="interrupted", reason="interrupted by Ctrl-C")
            for key, value in result_attrs(interrupted, trial_role).items():
                trial.set_user_attr(key, value)
            self.study.tell(trial, state=TrialState.FAIL)
            raise
        for key, value in result_attrs(result, trial_role).items():
            trial.set_user_attr(key, value)
        state = trial_state(result)
        baseline = self.baseline_trial()
        self.study.tell(trial, result.samples_per_s if state == TrialState.COMPLETE else None,
                        state=state)
        self.reporter.trial_finished(
            trial.number, result, self._best_value(),
            baseline.value if baseline is not None else None,
        )


def best_config(study: optuna.Study) -> tuple[optuna.trial.FrozenTrial, LoaderConfig] | None:
    """The fastest fully measured trial (issue-2 rule; confirmation refines it)."""
    candidates = [t for t in study.get_trials(deepcopy=False) if usable(t)]
    if not candidates:
        return None
    best = max(candidates, key=lambda t: t.value or 0.0)
    return best, trial_config(best)
