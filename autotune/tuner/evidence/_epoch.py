"""The epoch on the wall clock in the answer: as written (the baseline's probe) and with the
recommendation (the recommended trial's probe, or, where it saw no epoch end, the as-written
epoch with the training loader's part at the recommended rate).

The rates compared are the charged ones (probe/measure/_epoch.py): each already carries the
start-up its workers pay once per epoch, so the training loader's part of an epoch scales
with their ratio, and the rest of the epoch (other loaders' passes, rebuilds, the script's
own work) stays what it was as written: the recommendation does not touch it.
"""

from __future__ import annotations

from dataclasses import replace

from autotune.answer import Epoch, EpochPass, OtherLoaders
from autotune.contract import EpochFigures, LoaderPass, ProbeResult

# Start-up the recommendation adds at the run's start below this is not worth a sentence,
# nor one it wins back within the first epoch: no run is shorter than that.
PAYBACK_MIN_S = 0.5
PAYBACK_MIN_EPOCHS = 1.0


def _share(figures: EpochFigures) -> float | None:
    outside = figures.outside_s
    if outside is None or not figures.epoch_s:
        return None
    return outside / figures.epoch_s


def epoch_answer(
    base: ProbeResult | None,
    best: ProbeResult | None,
    *,
    base_rate: float | None,
    best_rate: float | None,
    same: bool,
) -> Epoch | None:
    """``same``: the recommendation is the script's own settings (its epoch is as written)."""
    written = base.epoch if base is not None else None
    if written is None:
        return None  # measured before epochs were timed, or no baseline yet
    if written.epoch_s is None:
        return Epoch(reason=_unseen(written, base, best_rate, same))
    passes = [
        EpochPass(p.loader, p.dataset, p.num_workers, p.seconds, p.batches, p.site)
        for p in written.passes
    ]
    out = Epoch(
        as_written_s=written.epoch_s,
        outside_share=_share(written),
        startup_s=written.startup_s,
        first_startup_s=base.time_to_first_batch_s if base is not None else None,
        passes=passes,
        builds_s=written.builds_s,
        rest_s=written.rest_s,
    )
    own = best.epoch if best is not None else None
    if same:
        return _with(out, written, predicted=False)
    # The recommended settings' first batch after their workers start: paid once per run.
    out = replace(
        out, recommended_first_startup_s=best.time_to_first_batch_s if best is not None else None
    )
    if own is not None and own.epoch_s is not None:
        return _with(out, own, predicted=False)
    outside = written.outside_s
    if outside is None or written.train_s is None or written.startup_s is None:
        return out
    if not base_rate or not best_rate:
        return out
    # The training loader's part (its batches and its start-up), at the recommended rate.
    train = (written.train_s + written.startup_s) * base_rate / best_rate
    epoch = outside + train
    startup = own.charged_startup_s if own is not None else None
    return Epoch(
        **{
            **out.__dict__,
            "recommended_s": epoch,
            "recommended_predicted": True,
            "recommended_outside_share": outside / epoch if epoch else None,
            "recommended_startup_s": startup,
        }
    )


def _unseen(
    written: EpochFigures, base: ProbeResult | None, best_rate: float | None, same: bool
) -> str | None:
    """Why no epoch was seen, with its training batches' time at the recommended rate too:
    the probe's own sentence times them at the script's rate as written, which read as if it
    were the answer's."""
    reason = written.reason or None
    # Samples a measured batch: ``batches`` also counts those before the loader was chosen,
    # which ``samples`` does not (4096 samples an epoch read as 2.4 s at 355 samples/s).
    per_batch = base.batch_size if base is not None else None
    if same or not reason or not written.epoch_batches or not best_rate or not per_batch:
        return reason
    seconds = written.epoch_batches * per_batch / best_rate
    return f"{reason} as written; about {seconds:.1f} s with the recommended settings"


def _with(out: Epoch, figures: EpochFigures, *, predicted: bool) -> Epoch:
    return Epoch(
        **{
            **out.__dict__,
            "recommended_s": figures.epoch_s,
            "recommended_predicted": predicted,
            "recommended_outside_share": _share(figures),
            "recommended_startup_s": figures.startup_s,
        }
    )


def pass_name(p: LoaderPass) -> str:
    """How the answer names the loader of a pass: "Val at fit.py:30"."""
    return f"{p.dataset} at {p.site}" if p.site else p.dataset


def with_others(
    epoch: Epoch | None, others: OtherLoaders | None, ran: EpochFigures | None = None
) -> Epoch | None:
    """The recommended epoch with the other loaders' passes at their tuned time, where its
    probe ran them as the script has them and the stage timed both beside a trial. ``ran``:
    the epoch that probe saw; where its passes of those loaders already ran at the tuned
    worker count (the search ran them so once the stage was done), it stands as it is."""
    if epoch is None or epoch.recommended_s is None or others is None or others.config is None:
        return epoch
    if others.as_written_s is None or others.tuned_s is None:
        return epoch
    tuned, names = others.config.num_workers, set(others.loaders)
    mine = [p for p in ran.passes if pass_name(p) in names] if ran is not None else []
    if mine and all(p.num_workers == tuned for p in mine):
        return epoch
    saved = max(0.0, others.as_written_s - others.tuned_s)
    recommended = max(epoch.recommended_s - saved, 1e-9)
    share = epoch.recommended_outside_share
    outside = None if share is None else max(0.0, share * epoch.recommended_s - saved)
    return replace(
        epoch,
        recommended_s=recommended,
        recommended_outside_share=None if outside is None else outside / recommended,
    )


def with_payback(epoch: Epoch | None) -> Epoch | None:
    """The epoch with the epochs the recommendation takes to win back the start-up it adds
    once, at the run's start (more workers to start): a run shorter than that is slower with
    it, whatever its rate. Where the workers persist, an epoch's figures never hold it."""
    if epoch is None or epoch.as_written_s is None or epoch.recommended_s is None:
        return epoch
    first, mine = epoch.first_startup_s, epoch.recommended_first_startup_s
    gain = epoch.as_written_s - epoch.recommended_s
    if first is None or mine is None or mine - first < PAYBACK_MIN_S or gain <= 0:
        return epoch
    payback = (mine - first) / gain
    return epoch if payback < PAYBACK_MIN_EPOCHS else replace(epoch, payback_epochs=payback)
