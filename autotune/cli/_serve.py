"""``autotune serve``: the REST API over the storage."""

from __future__ import annotations

import socket
from pathlib import Path
from typing import TYPE_CHECKING

import typer

from autotune._words import first_line
from autotune.cli._common import STORAGE_HELP, err, fail

if TYPE_CHECKING:
    from sqlalchemy import URL


def serve(
    host: str = typer.Option("127.0.0.1", "--host", help="Address to bind; 0.0.0.0 for all."),
    port: int = typer.Option(8000, "--port", min=1, max=65535, help="Port to listen on."),
    storage_opt: str | None = typer.Option(None, "--storage", help=STORAGE_HELP),
) -> None:
    """Serve recommendations and measurements over HTTP at /api/v1."""
    import uvicorn

    from autotune.store import (
        StorageError,
        current_revision,
        head_revision,
        newer_schema,
        parse_url,
        safe_url,
        storage_url,
    )

    url = storage_url(storage_opt)
    upgrade_hint = f"run `autotune db upgrade --storage {safe_url(url)}` first"
    try:
        missing = _missing_sqlite_file(parse_url(url))
        if missing is not None:
            fail(f"there is no database at {missing}; {upgrade_hint} to create it")
        revision = current_revision(url)
        problem = newer_schema(url, revision)
    except typer.Exit:
        raise
    except StorageError as exc:
        fail(str(exc))
    except Exception as exc:  # driver errors differ per backend; all mean "cannot open"
        fail(f"cannot open storage {safe_url(url)}: {first_line(exc)}")
    if problem:
        fail(problem)
    if revision != head_revision():
        fail(
            f"the storage {safe_url(url)} is at schema {revision or 'none'}, not "
            f"{head_revision()}; {upgrade_hint}"
        )
    sock = _listen(host, port)
    from autotune.api import create_app

    app = create_app(url)
    writes = "on" if app.state.api_token else "off (set AUTOTUNE_API_TOKEN to enable)"
    err.print(f"serving {safe_url(url)} at http://{host}:{port}/api/v1 (writes {writes})")
    server = uvicorn.Server(uvicorn.Config(app, host=host, port=port, log_level="warning"))
    server.run(sockets=[sock])


def _missing_sqlite_file(url: URL) -> Path | None:
    """The file an SQLite URL names, when it does not exist: opening it would create it empty."""
    database = url.database
    if url.get_backend_name() != "sqlite" or not database or database == ":memory:":
        return None
    if database.startswith("file:"):  # a URI; SQLite reads its options
        return None
    path = Path(database)
    return None if path.exists() else path


def _listen(host: str, port: int) -> socket.socket:
    """A socket bound before the server starts, so a port in use is one clear line."""
    try:
        family, kind, proto, _, address = socket.getaddrinfo(
            host, port, type=socket.SOCK_STREAM, flags=socket.AI_PASSIVE
        )[0]
    except socket.gaierror as exc:
        fail(f"cannot listen on {host}: {exc.strerror}; pass another --host")
    sock = socket.socket(family, kind, proto)
    sock.setsockopt(socket.SOL_SOCKET, socket.SO_REUSEADDR, 1)
    try:
        sock.bind(address)
    except OSError as exc:
        sock.close()
        fail(
            f"cannot listen on {host}:{port}: {exc.strerror}; is another server using it? "
            "pass another --port"
        )
    sock.set_inheritable(True)
    return sock
