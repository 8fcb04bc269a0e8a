"""What every command shares: one-line errors, the consoles, opening storage and studies,
and text from scripts shown as it is (``literal``, ``say``)."""

from __future__ import annotations

import json
import sys
from pathlib import Path
from typing import TYPE_CHECKING, Any, NoReturn

import typer
from rich.console import Console
from rich.errors import MarkupError, MissingStyle
from rich.text import Text

from autotune._words import visible

if TYPE_CHECKING:
    import optuna

# Optuna, SQLAlchemy and the store are imported where a command first needs them, not here:
# `autotune run --adapt` launches the training before it pays for them (about 0.6 s).

STORAGE_HELP = (
    "SQLAlchemy URL, e.g. postgresql+psycopg://user@host/db "
    "(default: $AUTOTUNE_STORAGE or sqlite:///autotune.db)."
)

# Text from a script or its libraries, longer than this, is cut in the middle on a terminal
# (its start says what failed, its end where: "(in DataLoader worker process 0)"); --json,
# the API and the dashboard keep it whole. A probe's reason (300 characters at most) is
# shown whole; the reason of a multi-rank trial, which quotes several ranks, may be cut.
SHOWN_CHARS = 400
_TAIL_CHARS = 60

Part = str | Text | tuple[str, str]


def literal(value: object, limit: int | None = SHOWN_CHARS) -> Text:
    """``value`` (a failure reason, an output line, a path, an argument, a class or study
    name) as text to show exactly as it is: never read as rich markup (gloo's
    "[/path/pair.cc:553]" is a closing tag to rich), terminal controls written out as
    escapes ("\\x1b[31m"), and cut in the middle past ``limit`` characters."""
    text = visible(str(value))
    if limit is not None and len(text) > limit:
        cut = len(text) - limit
        tail = min(_TAIL_CHARS, limit // 3)
        text = f"{text[: limit - tail]} …[{cut:,} more characters]… {text[-tail:]}"
    return Text(text)


def say(*parts: Part) -> Text:
    """One line of output from parts none of which is read as markup: a ``str`` is our own
    words, a ``(text, style)`` pair is styled, a ``Text`` (from ``literal``) is kept."""
    line = Text()
    for part in parts:
        if isinstance(part, Text):
            line.append_text(part)
        elif isinstance(part, tuple):
            line.append(visible(part[0]), style=part[1])
        else:
            line.append(visible(part))
    return line


class _Console(Console):
    """A console on which no string can break the output or the terminal.

    Every ``str`` printed goes through ``render_str``: terminal controls are written out as
    escapes there, and a string that is not markup we could have written (text from a script
    printed by a caller that did not wrap it in ``literal``) is shown as it is: instead of
    raising ``MarkupError`` after a search has finished ("[/path/pair.cc:553]"), or silently
    dropping a bracketed word as an unknown style ("[the main process]"). What we print
    about scripts goes through ``literal`` and ``say`` anyway; this is the net under them.
    """

    def render_str(self, text: str, **kwargs: Any) -> Text:
        text = visible(text, lines=True)
        try:
            rendered = super().render_str(text, **kwargs)
            for span in rendered.spans:
                self.get_style(span.style)  # what rich would otherwise drop without a word
        except (MarkupError, MissingStyle):
            return super().render_str(text, **{**kwargs, "markup": False})
        return rendered


# No emoji codes either: ":x:" in a script's error is not a cross mark.
err = _Console(stderr=True, highlight=False, emoji=False)
out = _Console(highlight=False, emoji=False)


def fail(message: str, code: int = 2) -> NoReturn:
    """One clear line on stderr and a non-zero exit; never a traceback. ``message`` is shown
    as it is: it quotes paths, names and errors."""
    err.print(say(("error:", "bold red"), " ", literal(message, limit=None)), soft_wrap=True)
    raise typer.Exit(code)


def check_script(script: Path) -> None:
    if not script.exists():
        fail(f"script {script} does not exist; pass the path of your training script")
    if not script.is_file():
        fail(f"{script} is not a file; pass the path of your training script")
    try:
        compile(script.read_bytes(), str(script), "exec")
    except SyntaxError as exc:
        fail(f"{script} has a syntax error at line {exc.lineno}: {exc.msg}; fix it and try again")
    except ValueError as exc:
        fail(f"{script} cannot be compiled: {exc}")


def missing_sqlite(url: str) -> Path | None:
    """The file of a SQLite URL that does not exist yet; None for other URLs."""
    from autotune.store import StorageError, parse_url

    try:
        parsed = parse_url(url)
    except StorageError:
        return None
    if parsed.get_backend_name() != "sqlite" or parsed.database in (None, "", ":memory:"):
        return None
    path = Path(str(parsed.database))
    return None if path.exists() else path


def storage(url: str | None, *, create: bool = True) -> tuple[optuna.storages.RDBStorage, str]:
    """Optuna's storage at ``url``; ``create=False`` for commands that only read what was
    measured: they refuse a SQLite file that does not exist instead of creating it empty."""
    import optuna

    from autotune.store import StorageError, open_storage, storage_url

    optuna.logging.set_verbosity(optuna.logging.WARNING)
    resolved = storage_url(url)
    missing = None if create else missing_sqlite(resolved)
    if missing is not None:
        what = "the folder" if not missing.parent.exists() else "the file"
        fail(
            f"no autotune storage at {missing}: {what} does not exist, so nothing was probed "
            "with it; run `autotune probe` first, or pass the --storage it used"
        )
    try:
        return open_storage(resolved), resolved
    except StorageError as exc:
        fail(str(exc))


# A study is named as its argument (`autotune best NAME`) or as probe and run name it.
STUDY_ARGUMENT = typer.Argument(None, help="Study name (or --study NAME).", show_default=False)
STUDY_OPTION = typer.Option(None, "--study", help="Study name, as probe and run take it.")


def study_name(argument: str | None, option: str | None) -> str:
    """The study a command names, by its argument or by --study; a clear error without one."""
    if argument and option and argument != option:
        fail(f"two study names: {argument!r} and --study {option!r}; give one")
    name = argument or option
    if not name:
        fail("name a study: NAME or --study NAME (`autotune studies` lists them)")
    return name


def study(name: str, url: str | None) -> tuple[optuna.Study, str]:
    from autotune.tuner import StudyError, load_study

    store, resolved = storage(url, create=False)
    try:
        return load_study(store, name), resolved
    except StudyError as exc:
        fail(str(exc))


def print_json(data: Any) -> None:
    sys.stdout.write(json.dumps(data, indent=2, default=str) + "\n")
    sys.stdout.flush()


_UNITS = {"": 1.0, "s": 1.0, "m": 60.0, "h": 3600.0}


def seconds(text: str, option: str) -> float:
    """A duration as users write it: ``90``, ``30s``, ``5m``, ``1.5h``; a clear error else."""
    value = text.strip().lower()
    unit = value[-1:] if value[-1:] in ("s", "m", "h") else ""
    try:
        number = float(value[: len(value) - len(unit)])
    except ValueError:
        fail(f"{option} {text!r} is not a duration; write seconds (90), or 30s, 5m, 1h")
    if not number > 0 or number == float("inf"):
        fail(f"{option} {text!r} must be a positive time, such as 30s or 5m")
    return number * _UNITS[unit]


def host_budget(gib: float | None) -> int:
    """Bytes of host memory a run may use: ``gib`` GiB, or half of RAM."""
    import psutil

    if gib is not None:
        return int(gib * 2**30)
    return int(psutil.virtual_memory().total // 2)
