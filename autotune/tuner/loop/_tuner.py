"""The search: baseline, ceiling, seeded guesses, Optuna, confirmation; one probe at a time."""

from __future__ import annotations

import warnings
from collections.abc import Callable
from dataclasses import replace

import optuna
from optuna.trial import FrozenTrial, TrialState

from autotune import state
from autotune.contract import LoaderConfig, Mode, ProbeResult, TrialConfig
from autotune.runner import BaseRunner, Target, WindowCallback
from autotune.state import baseline_of, counted, usable
from autotune.tuner.evidence import (
    UNCONFIRMED,
    baseline_failure,
    bound_windows,
    ceiling_windows,
    check_ceiling,
    comparable_baseline,
    confirm_study,
    duplicate_of,
    frozen_from_result,
    may_lead,
    measure_ceiling,
    record_from_baseline,
    short_script_verdict,
    trial_result,
    under_load,
)
from autotune.tuner.loop._budget import judged
from autotune.tuner.loop._clock import Clock, unsure
from autotune.tuner.loop._gate import Alone, Gate
from autotune.tuner.loop._heartbeat import fail_stale_trials, heartbeat
from autotune.tuner.loop._options import Outcome, TunerOptions
from autotune.tuner.loop._others import others_early, run_others_stage, searched_others
from autotune.tuner.loop._report import NullReporter, Reporter
from autotune.tuner.policy import (
    EXHAUSTED,
    DuplicateStreak,
    Machine,
    SearchSpace,
    diagnose_study,
    length,
    stop_reason,
)
from autotune.tuner.workers import (
    answer_shape,
    back_off,
    capped,
    climb,
    knee_open,
    search_space,
    searched_around_best,
    seeds,
    worker_range,
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
        stop_when: Callable[[], str | None] | None = None,
        role: str | None = None,
    ) -> None:
        self.study, self.target, self.runner, self.options = study, target, runner, options
        self.cpu_count = cpu_count
        self.machine = Machine(
            cpu_count,
            ranks=target.nproc_per_node,
            mem_budget_bytes=options.settings.max_host_mem_bytes,
        )
        self.cuda, self.reporter = cuda, reporter or NullReporter()
        self._after_trial = after_trial or (lambda study: None)
        # A reason from outside the study to stop (a live run that ended), checked each turn,
        # and the role every searched trial is recorded under (a live run's segments: "adapt").
        self._stop_when, self._role = stop_when or (lambda: None), role
        self._clock = Clock(options.timeout_s)
        self._last_space: SearchSpace | None = None
        self._fitted = False  # the last probe knew the script's length
        self._settings = options.probe_settings(target.nproc_per_node)

    def _trials(self) -> list[FrozenTrial]:
        return self.study.get_trials(deepcopy=False)

    def baseline_trial(self) -> FrozenTrial | None:
        return baseline_of(self._trials())

    def _best_value(self) -> float | None:
        values = [t.value for t in self._trials() if usable(t) and t.value is not None]
        return max(values) if values else None

    def _probe(
        self,
        config: LoaderConfig | None,
        mode: Mode = "measure",
        *,
        on_window: WindowCallback | None = None,
        others: LoaderConfig | None = None,
        others_iterable: bool = False,
        every_window: bool = False,
        searched: bool = False,
    ) -> ProbeResult:
        """``searched``: a probe of the search (a trial, a re-measure of one), which may lead
        and runs the other loaders as their stage found (``searched_others``)."""
        if searched and others is None:
            others, others_iterable = searched_others(self.study)
        # The probe sizes its warm-up and windows to fit the script's run, once known.
        settings = under_load(self._trials(), length.fitted(self.study, self._settings))
        settings = self._clock.fit(settings)  # no probe outlasts the budget by more than 2 windows
        config = config or LoaderConfig()  # None: the script as written
        if every_window:
            settings = replace(settings, min_windows=0)
        elif mode == "measure" and (others is None or searched):
            settings = may_lead(self._trials(), settings)
        self._fitted = settings.script_batches is not None
        trial = TrialConfig(config, settings, mode, others=others, others_iterable=others_iterable)
        result = self.runner.run(
            self.target, trial, timeout_s=self.options.trial_timeout_s, on_window=on_window
        )
        length.learn(self.study, result)
        return result

    def _add_probe_seconds(self, seconds: float) -> None:
        state.add_probe_seconds(self.study, seconds)

    def _others(self, *, early: bool) -> None:  # beside the first trial with workers, or the pick
        if self.options.other_loaders:
            stage = others_early if early else run_others_stage
            top, time_left = self.options.max_workers, self._clock.has_time
            stage(self.study, self._probe, self.reporter.note, time_left, top)

    # --- public seams: prepare, search one trial at a time, finish ---------------------------
    def prepare(self) -> SearchSpace | Outcome:
        """Baseline, ceiling, worker range and seeds, each once per study.

        Returns the space to search, or the Outcome that ends the study here (the script as
        written failed, or the search is left to `autotune join` processes)."""
        baseline = self.baseline_trial()
        if baseline is None or baseline_failure(baseline) is not None:
            # A baseline that failed before is probed again: the user has usually fixed
            # something (a missing package, a path). The failed one is kept.
            baseline = self._run_baseline()
        failure = baseline_failure(baseline)
        if failure is not None:
            return Outcome(failure)
        verdict = short_script_verdict(baseline, self.target.args)
        if verdict is not None:
            state.save_verdict(self.study, verdict)
            return Outcome(verdict)
        self._measure_ceiling()
        self._check_ceiling()
        space = self.search_space()
        self._enqueue_seeds(baseline, space)
        if not self.options.search:
            return Outcome(
                "created for `autotune join`: baseline measured, seeds enqueued",
                for_workers=True,
            )
        return space

    def search_space(self) -> SearchSpace:
        """The space to search, planned from the baseline (which must exist)."""
        baseline = self.baseline_trial()
        assert baseline is not None, "search_space() needs the baseline: call prepare() first"
        return search_space(
            self.study,
            baseline,
            machine=self.machine,
            cuda=self.cuda,
            tune_batch_size=self.options.tune_batch_size,
            max_workers=self.options.max_workers,
            tune_threads=self.options.tune_threads,
        )

    def finish(self, reason: str, *, interrupted: bool = False) -> Outcome:
        """Record why the search ended and the diagnosis, and mirror the study."""
        diagnosis = diagnose_study(self.study, self.machine)
        state.save_stop(self.study, reason, diagnosis)
        if shape := answer_shape(self.study):  # kept for a later study's warm start
            state.save_shape(self.study, shape)
        self._after_trial(self.study)
        return Outcome(reason, interrupted=interrupted)

    def run(self) -> Outcome:
        """Probe until a stop rule fires; Ctrl-C stops cleanly with every finished trial kept."""
        try:
            ended = self._run()
        except KeyboardInterrupt:
            ended = Outcome("interrupted by Ctrl-C", interrupted=True)
        try:
            finished = self.finish(ended.stop_reason, interrupted=ended.interrupted)
        except KeyboardInterrupt:
            return Outcome("interrupted by Ctrl-C", interrupted=True)
        return replace(finished, for_workers=ended.for_workers)

    def _run(self) -> Outcome:
        prepared = self.prepare()
        if isinstance(prepared, Outcome):
            return prepared
        return Outcome(self.search(prepared))

    def search(self, space: SearchSpace, gate: Gate | None = None) -> str:
        """The one search loop, from the first ask to the confirmed pick; returns why it
        stopped. `autotune probe` runs it alone; each `autotune join` runs it behind a
        gate that gives it turns at the machine. Each turn: keep the ceilings honest (may
        probe), check the stop rules (never probes), then ask, probe and tell one trial."""
        gate = gate or Alone()
        streak = DuplicateStreak()
        reason: str | None = None
        while reason is None:
            with gate.turn() as may_start:
                # A killed run's trial is still RUNNING: failed (and queued again) before the
                # stop rules count it, or a restart could stop with it never retried.
                fail_stale_trials(self.study)
                self._check_ceiling()
                reason = self._stop(space)
                if reason is None and may_start:
                    if streak.exhausted(self.next_trial(space)):
                        reason = EXHAUSTED
                    elif self._stop(space) is None:  # trials left to run them fast
                        self._others(early=True)
                    continue
            if reason is None:
                gate.wait()
        # Re-measure the leaders once every worker's last trial is in (it could be the best).
        while not gate.settled():
            gate.wait()
        with gate.turn():
            confirmed = True
            if self.options.confirm_top and state.load(self.study).confirmation is None:
                confirmed = self._confirm()
            if reason == self._clock.said():  # how far to trust what the budget allowed
                reason = "; ".join([reason, *unsure(self.study, space, confirmed=confirmed)])
            self._others(early=False)
        return reason

    # --- phases -----------------------------------------------------------------------------
    def _run_baseline(self) -> FrozenTrial:
        number = len(self._trials())
        self.reporter.trial_started(number, 0, self.options.trials, "baseline", LoaderConfig())
        # The ceilings are measured in the same process, after the script's own windows.
        # (A multi-rank probe measures the baseline only; its ceiling gets a probe of its own.)
        unmeasured = state.load(self.study).ceiling is None
        first = self.options.ceiling and unmeasured and self.target.nproc_per_node == 1
        result = self._probe(None, "baseline" if first else "measure")
        space = SearchSpace.for_machine(
            cuda=self.cuda,
            max_workers=worker_range(self.cpu_count, self.options.max_workers),
            script=result.script_config,
            tune_batch_size=self.options.tune_batch_size,
        )
        params = (
            space.params(result.script_config)
            if result.script_config.num_workers is not None
            else {}
        )
        frozen = frozen_from_result(result, "baseline", params, space.distributions(params))
        self.study.add_trial(frozen)
        self.reporter.trial_finished(number, result, self._best_value(), result.samples_per_s)
        record_from_baseline(self.study, result, self.reporter.note)
        self._after_trial(self.study)
        return self.baseline_trial()  # type: ignore[return-value]

    def _measure_ceiling(self) -> None:
        if self.options.ceiling:
            self._add_probe_seconds(measure_ceiling(self.study, self._probe, self.reporter.note))

    def _check_ceiling(self) -> None:
        self._add_probe_seconds(check_ceiling(self.study, self._probe, self.reporter.note))

    def _enqueue_seeds(self, baseline: FrozenTrial, space: SearchSpace) -> None:
        if state.load(self.study).seeded:
            return
        state.mark_seeded(self.study)
        if self.options.seed is not None:
            state.enqueue(self.study, space.params(self.options.seed), "seeded")
            self.reporter.note(f"  seeded {self.options.seed.to_dict()} from a stored answer")
            return
        result = trial_result(baseline)
        if result is None or not result.ok:
            return
        configs, seed = seeds(self.study, result, space, machine=self.machine, cuda=self.cuda)
        for config in configs:
            state.enqueue(self.study, space.params(config), "seeded")
        if configs:
            self.reporter.note(f"  {seed.note()}")

    def _stop(self, space: SearchSpace) -> str | None:
        if len(counted(trials := self._trials())) >= self.options.trials:
            return f"reached --trials {self.options.trials}"
        if not self._clock.has_time():
            return self._clock.said()
        if outside := self._stop_when():
            return outside
        # With batch sizes in the space the sampler may change the step at any turn: the
        # ceiling, of the script's own step, bounds nothing the search could still try.
        ceiling = None if space.batch_sizes else ceiling_windows(state.load(self.study).ceiling)
        return stop_reason(
            trials,
            ceiling,
            self.options.patience,
            bound=None if space.batch_sizes else self._bound,
            searched_around_best=searched_around_best(self.study, capped(self.study, space)),
            knee_open=knee_open(self.study),
            step_fixed=space.step_fixed,
        )

    def _bound(self, workers: int) -> tuple[list[float], str]:
        return bound_windows(state.load(self.study).ceiling, workers, self.cpu_count)

    def next_trial(self, space: SearchSpace) -> bool:
        """Ask for a trial and probe it; False where it repeated settings already measured."""
        # A killed process's RUNNING trial is failed here and its settings queued again.
        fail_stale_trials(self.study)
        space = capped(self.study, space)
        self._last_space = space
        if not self.study.get_trials(deepcopy=False, states=(TrialState.WAITING,)):
            climb(self.study, space, self.reporter.note)
        with warnings.catch_warnings():
            # Heartbeats work with ask/tell too: `heartbeat()` beats around each probe.
            warnings.filterwarnings("ignore", message="Heartbeat of storage is supposed")
            trial = self.study.ask()
        seeded = state.role(trial) == "seeded"
        config = space.suggest(trial)
        dup = duplicate_of(self._trials(), config)
        if dup is not None and not seeded:
            state.mark_duplicate(trial, dup)
            self.study.tell(trial, state=TrialState.PRUNED)
            return False
        self._run_trial(trial, config, self._role or ("seeded" if seeded else "search"))
        return True

    def _run_trial(self, trial: optuna.Trial, config: LoaderConfig, trial_role: str) -> None:
        done = len(counted(self._trials()))
        self.reporter.trial_started(trial.number, done, self.options.trials, trial_role, config)

        def on_window(index: int, value: float) -> bool:
            trial.report(value, index)
            return trial.should_prune()

        try:
            with heartbeat(self.study, trial):
                result = self._probe(config, on_window=on_window, searched=True)
        except KeyboardInterrupt:
            interrupted = ProbeResult(status="interrupted", reason="interrupted by Ctrl-C")
            state.write(trial, state.TrialRecord.of_result(interrupted, trial_role))
            self.study.tell(trial, state=TrialState.FAIL)
            raise
        # Killed before it reported (pruned, hung), or a rank that failed: what it was asked to
        # run fills in whatever the probe could not say it applied.
        result.applied_config = result.applied_config.merged_over(config)
        record, trial_state_ = judged(trial, result, trial_role, self.options, self.target)
        state.write(trial, record)
        self.study.tell(
            trial,
            result.samples_per_s if trial_state_ == TrialState.COMPLETE else None,
            state=trial_state_,
        )
        self.reporter.trial_finished(
            trial.number, result, self._best_value(), comparable_baseline(self._trials())
        )
        if trial_state_ == TrialState.FAIL:
            back_off(self.study, trial.number, config, result, self._last_space, self.reporter.note)
        if length.worth_refitting(result, was_fitted=self._fitted, best=self._best_value()):
            self.reporter.note("  it ended the script before a window: measuring it again, fitted")
            state.enqueue(self.study, dict(trial.params), "seeded")
        self._after_trial(self.study)

    def _confirm(self) -> bool:
        """Every window of a re-measure (it decides what two windows cannot); None in the
        plan is the script as written, re-run exactly, not as our reading of it. False: the
        re-measures the plan asked were not run, the budget being spent."""

        def probe(config: LoaderConfig | None) -> ProbeResult:
            # The script as written (None) is re-run exactly, its other loaders included.
            return self._probe(config, every_window=True, searched=config is not None)

        top = self.options.confirm_top
        self.reporter.phase("checking the pick: the leaders re-measured where they are close")
        result = confirm_study(
            self.study, probe, top, self.reporter.note, may_probe=self._clock.has_time()
        )
        if result is not None:
            self._add_probe_seconds(result.probe_seconds)
            state.save_confirmation(self.study, result)
        return result is None or result.why != UNCONFIRMED
