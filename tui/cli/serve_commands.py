"""`bullpen serve`: the web page for a phone (workers/surfaces/web, docs/serve.md).

It answers questions, sends notes and moves cards for the operator, audited as
`operator@web`, and nothing else. Loopback by default; anywhere else needs TLS or an
explicit `--insecure`. The login token is printed once, as a URL; only its hash is kept.
"""

from __future__ import annotations

import argparse
import contextlib
import sys
from pathlib import Path

from tui.cli.output import fail

DEFAULT_PORT = 8765


def register(subparsers: argparse._SubParsersAction) -> None:
    serve = subparsers.add_parser(
        "serve", help="a web page for a phone: what needs you, answers, notes, cards",
        description="Serve a small web page showing what needs you (questions with their"
                    " choices, held notes, blocked cards, budgets), the sessions, the notes"
                    " and a form to send one. It can answer a question, send a note and"
                    " move a card, audited as operator@web, and nothing else. Access is by"
                    " a token printed once as a URL. Needs the serve extra.")
    serve.add_argument("--host", default="127.0.0.1",
                       help="the address to listen on (default 127.0.0.1; anything else"
                            " needs --tls-cert and --tls-key, or --insecure)")
    serve.add_argument("--port", type=int, default=DEFAULT_PORT,
                       help=f"the port (default {DEFAULT_PORT}; 0: any free one)")
    serve.add_argument("--tls-cert", type=Path, metavar="FILE", help="serve HTTPS: certificate")
    serve.add_argument("--tls-key", type=Path, metavar="FILE", help="serve HTTPS: private key")
    serve.add_argument("--insecure", action="store_true",
                       help="allow plain HTTP on an address other than loopback (warned)")
    serve.add_argument("--new-token", action="store_true",
                       help="make a new login token (the old link and every login stop"
                            " working) and print its URL")
    serve.set_defaults(handler=serve_page)


def serve_page(args: argparse.Namespace) -> int:
    from workers.surfaces.web import access, server

    if not server.serve_available():
        fail(server.INSTALL, 1)
    if not 0 <= args.port <= 65535:
        fail(f"bullpen: --port {args.port} is not a port (0 to 65535)", 2)
    warning = server.check_exposure(args.host, args.tls_cert, args.tls_key, args.insecure)
    from tui.cli.session_commands import _control

    control = _control()
    sock = server.bind(args.host, args.port)
    url = server.url_of(sock, args.host, args.tls_cert is not None)
    token = None
    if args.new_token or not access.has_token(control.home):
        token = access.new_login_token(control.home)

    def ready() -> None:
        if warning:
            print(warning, file=sys.stderr)
        if token is not None:
            print(f"log in (this link is shown once): {url}/login?token={token}")
        else:
            print(f"serving {url} — log in with the link printed when its token was made,"
                  " or bullpen serve --new-token for a new one")
        print("ctrl-c stops it", flush=True)

    with contextlib.suppress(KeyboardInterrupt):
        server.run(control, sock, url, cert=args.tls_cert, key=args.tls_key,
                   on_ready=ready)
    return 0
