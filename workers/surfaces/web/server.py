"""Running the page: bind, say where, serve until interrupted, tidy up.

The socket is bound here (before uvicorn starts) so the printed address is the real
one, `--port 0` included. Starlette and uvicorn are imported only by this module and
app.py: `serve_available` says whether the optional extra is installed.
"""

from __future__ import annotations

import ipaddress
import signal
import socket
import sys
from collections.abc import Callable
from pathlib import Path

from board.errors import BadInput
from workers.room.control import RoomControl
from workers.surfaces.web import access

LOOPBACK_NAMES = ("localhost",)
INSTALL = "bullpen serve needs the web extra: pip install 'bullpen[serve]'"


def serve_available() -> bool:
    """Whether Starlette and uvicorn (the `serve` extra) can be imported."""
    try:
        import starlette  # noqa: F401
        import uvicorn  # noqa: F401
    except ImportError:
        return False
    return True


def is_loopback(host: str) -> bool:
    if host in LOOPBACK_NAMES:
        return True
    try:
        return ipaddress.ip_address(host).is_loopback
    except ValueError:
        return False


def check_exposure(host: str, cert: Path | None, key: Path | None,
                   insecure: bool) -> str | None:
    """Refuse (BadInput) a page reachable from elsewhere without TLS unless `insecure`;
    the warning to print when it is allowed without TLS, else None."""
    if (cert is None) != (key is None):
        raise BadInput("--tls-cert and --tls-key go together")
    for path in filter(None, (cert, key)):
        if not path.is_file():
            raise BadInput(f"{path}: no such file")
    if cert is not None or is_loopback(host):
        return None
    if not insecure:
        raise BadInput(f"--host {host} puts the page on the network: give --tls-cert and"
                       " --tls-key, or --insecure to send the token and answers in clear")
    return (f"warning: the page on {host} is plain HTTP; anyone on the network path can"
            " read the token and answer for you")


def bind(host: str, port: int) -> socket.socket:
    family = socket.AF_INET6 if ":" in host else socket.AF_INET
    sock = socket.socket(family, socket.SOCK_STREAM)
    sock.setsockopt(socket.SOL_SOCKET, socket.SO_REUSEADDR, 1)
    try:
        sock.bind((host, port))
    except OSError as error:
        sock.close()
        raise BadInput(f"cannot listen on {host}:{port}: {error.strerror}") from None
    sock.listen(64)
    sock.set_inheritable(True)
    return sock


def url_of(sock: socket.socket, host: str, tls: bool) -> str:
    port = sock.getsockname()[1]
    shown = f"[{host}]" if ":" in host else host
    return f"{'https' if tls else 'http'}://{shown}:{port}"


def run(control: RoomControl, sock: socket.socket, url: str, *, cert: Path | None,
        key: Path | None, on_ready: Callable[[], None] = lambda: None) -> None:
    """Serve the page on `sock` until interrupted; `.bullpen/web-url` says where."""
    import uvicorn

    from workers.surfaces.web.app import create_app

    app = create_app(control, secure=cert is not None)
    config = uvicorn.Config(app, log_level="warning", access_log=False,
                            ssl_certfile=str(cert) if cert else None,
                            ssl_keyfile=str(key) if key else None,
                            timeout_graceful_shutdown=1, lifespan="on")
    # uvicorn raises SIGTERM again once it has shut down; as SystemExit the file is tidied
    signal.signal(signal.SIGTERM, lambda *_: sys.exit(0))
    access.write_url(control.home, url)
    on_ready()
    try:
        uvicorn.Server(config).run(sockets=[sock])
    finally:
        access.clear_url(control.home)
        sock.close()
