"""``autotune serve``: the REST API over the storage."""

from __future__ import annotations

import typer

from autotune.cli._common import err, fail

STORAGE_HELP = "SQLAlchemy URL (default: $AUTOTUNE_STORAGE or sqlite:///autotune.db)."


def serve(
    host: str = typer.Option("127.0.0.1", "--host", help="Address to bind; 0.0.0.0 for all."),
    port: int = typer.Option(8000, "--port", min=1, max=65535, help="Port to listen on."),
    storage_opt: str | None = typer.Option(None, "--storage", help=STORAGE_HELP),
) -> None:
    """Serve recommendations and measurements over HTTP at /api/v1."""
    import uvicorn

    from autotune.store import StorageError, storage_url
    from autotune.store._engine import safe_url
    from autotune.store._migrate import current_revision, head_revision

    url = storage_url(storage_opt)
    try:
        revision = current_revision(url)
    except StorageError as exc:
        fail(str(exc))
    except Exception as exc:  # driver errors differ per backend; all mean "cannot open"
        fail(f"cannot open storage {safe_url(url)}: {str(exc).splitlines()[0][:200]}")
    if revision != head_revision():
        fail(
            f"the storage {safe_url(url)} is at schema {revision or 'none'}, not "
            f"{head_revision()}; run `autotune db upgrade --storage {safe_url(url)}` first"
        )
    from api.main import create_app

    app = create_app(url)
    writes = "on" if app.state.api_token else "off (set AUTOTUNE_API_TOKEN to enable)"
    err.print(f"serving {safe_url(url)} at http://{host}:{port}/api/v1 (writes {writes})")
    uvicorn.run(app, host=host, port=port, log_level="warning")
