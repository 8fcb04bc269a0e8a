"""What the loader patch writes on the loaders it has seen, in their own ``__dict__`` (a
loader dropped by the script takes them along; nothing of autotune's keeps it alive)."""

from __future__ import annotations

from typing import Any

from autotune.probe.loader._draws import remember_own_reuse

BUILT_ATTR = "_autotune_built"  # built (or first iterated) while the patch was installed
SITE_ATTR = "_autotune_site"  # the script's line that built it (_site.call_site)
BY_ATTR = "_autotune_by"  # the library code that built it, if any (_site.Evidence)
OWNER_ATTR = "_autotune_owner"  # a stand-in's: the object whose code iterates it (fastai's)
APPLIED_ATTR = "_autotune_applied"  # the script's own settings, once a trial's were written
RAW_ATTR = "_autotune_raw"  # the loader's newest torch iterator
NOT_APPLIED_ATTR = "_autotune_not_applied"
SWITCH_ATTR = "_autotune_switch"  # mode "adapt": the loader's SwitchableLoader
OTHERS_ATTR = "_autotune_others"  # another loader, given the others' settings (or left)


def mark_built(loader: Any, site: Any, by: Any, owner: Any = None) -> None:
    loader.__dict__[BUILT_ATTR] = True
    remember_own_reuse(loader)
    loader.__dict__[SITE_ATTR] = site
    loader.__dict__[BY_ATTR] = by
    if owner is not None:
        loader.__dict__[OWNER_ATTR] = owner


def shown(loader: Any) -> Any:
    """What users see of ``loader``: a stand-in's owner (fastai's DataLoader), else itself."""
    return loader.__dict__.get(OWNER_ATTR) or loader


def own_batch_size(loader: Any) -> int | None:
    """The batch size an owner keeps under its own name (fastai's ``bs``), where a stand-in
    has none: for the answer's words only, never applied."""
    size = getattr(shown(loader), "bs", None)
    return size if isinstance(size, int) and not isinstance(size, bool) else None


def site_of(loader: Any) -> str | None:
    """ "file:line" of the script's line that built ``loader``, when known."""
    site = loader.__dict__.get(SITE_ATTR)
    return None if site is None else f"{site[0]}:{site[1]}"
