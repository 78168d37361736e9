"""The web page's HTTP side (Starlette): log in, the page, its live state, three actions.

Every route but /login needs the cookie a login gave; every POST also needs that
cookie's CSRF token in the `X-CSRF-Token` header. Answers are rate-limited. Blocking
work (tmux, the store) runs in threads, never on the event loop.
"""

from __future__ import annotations

import asyncio
import contextlib
import json
from collections.abc import AsyncIterator, Awaitable, Callable

from starlette.applications import Starlette
from starlette.requests import Request
from starlette.responses import (
    HTMLResponse,
    JSONResponse,
    PlainTextResponse,
    RedirectResponse,
    Response,
    StreamingResponse,
)
from starlette.routing import Route

from board.errors import BadInput, BullpenError, NotFound, Refused
from workers.room.control import RoomControl
from workers.surfaces.web import access, actions, page
from workers.surfaces.web.live import Live

ANSWERS_PER_MINUTE = 10
KEEP_ALIVE = 15.0  # seconds between an idle stream's comments (proxies drop silent ones)
HEADERS = {
    "Cache-Control": "no-store",
    "Referrer-Policy": "no-referrer",
    "X-Content-Type-Options": "nosniff",
    "Content-Security-Policy": "default-src 'self'; frame-ancestors 'none'; form-action 'self'",
}
STATUS_OF: dict[type[BullpenError], int] = {BadInput: 400, NotFound: 404, Refused: 409}


def create_app(control: RoomControl, *, secure: bool = False) -> Starlette:
    """The app for `control`'s room; `secure`: the cookie is sent over TLS only."""
    logins, answers = access.Logins(), access.RateLimit(ANSWERS_PER_MINUTE, 60.0)
    live = Live(control)

    def csrf_of(request: Request) -> str | None:
        return logins.csrf_of(request.cookies.get(access.COOKIE))

    async def login(request: Request) -> Response:
        token = request.query_params.get("token", "")
        if not access.token_matches(control.home, token):
            return _text("that link is not (or no longer) valid: use the one bullpen serve"
                         " printed last", 403)
        cookie, _ = logins.open()
        response = RedirectResponse("/", status_code=303, headers=HEADERS)
        response.set_cookie(access.COOKIE, cookie, httponly=True, samesite="strict",
                            secure=secure, path="/")
        return response

    async def home(request: Request) -> Response:
        csrf = csrf_of(request)
        if csrf is None:
            return _text("log in with the link bullpen serve printed", 401)
        return HTMLResponse(page.html(csrf), headers=HEADERS)

    async def asset(request: Request) -> Response:
        name = request.path_params["name"]
        if name not in page.ASSETS:
            return _text("no such file", 404)
        body, kind = page.ASSETS[name]
        return Response(body, media_type=kind, headers=HEADERS)

    async def state(request: Request) -> Response:
        if csrf_of(request) is None:
            return _text("log in first", 401)
        return Response(live.text or "{}", media_type="application/json", headers=HEADERS)

    async def events(request: Request) -> Response:
        if csrf_of(request) is None:
            return _text("log in first", 401)

        async def stream() -> AsyncIterator[str]:
            seen = 0
            while True:
                if await live.wait_newer(seen, KEEP_ALIVE):
                    seen = live.version
                    yield f"event: state\ndata: {live.text}\n\n"
                else:
                    yield ": still here\n\n"

        return StreamingResponse(stream(), media_type="text/event-stream",
                                 headers={**HEADERS, "X-Accel-Buffering": "no"})

    def action(run: Callable[[dict], str], limit: access.RateLimit | None = None
               ) -> Callable[[Request], Awaitable[Response]]:
        async def endpoint(request: Request) -> Response:
            csrf = csrf_of(request)
            if csrf is None:
                return _text("log in first", 401)
            sent = request.headers.get(access.CSRF_HEADER, "")
            if not access.compare_digest(sent, csrf):
                return _text("refused: the request's CSRF token is wrong", 403)
            if limit is not None and not limit.allow():
                return _json({"error": "too many answers: wait a minute"}, 429)
            try:
                fields = json.loads(await request.body() or b"{}")
                if not isinstance(fields, dict):
                    raise ValueError
                done = await asyncio.to_thread(run, fields)
            except ValueError:
                return _json({"error": "the request is not a JSON object"}, 400)
            except BullpenError as error:
                return _json({"error": str(error)}, STATUS_OF.get(type(error), 409))
            finally:
                await asyncio.to_thread(live.read_now)
            return _json({"ok": done}, 200)
        return endpoint

    def answer(fields: dict) -> str:
        return actions.answer(control, _field(fields, "session"), _field(fields, "choice"),
                              _field(fields, "question"))

    def note(fields: dict) -> str:
        return actions.send_note(control, _field(fields, "to"), _field(fields, "body"))

    def move(fields: dict) -> str:
        card = _field(fields, "card")
        if not card.isdigit():
            raise BadInput(f"{card!r} is not a card's number")
        return actions.move_card(control, int(card), _field(fields, "status"))

    @contextlib.asynccontextmanager
    async def lifespan(app: Starlette) -> AsyncIterator[None]:
        live.start(asyncio.get_running_loop())
        try:
            yield
        finally:
            live.stop()
            logins.clear()

    routes = [
        Route("/login", login), Route("/", home), Route("/state", state),
        Route("/events", events), Route("/asset/{name}", asset),
        Route("/answer", action(answer, answers), methods=["POST"]),
        Route("/note", action(note), methods=["POST"]),
        Route("/move", action(move), methods=["POST"]),
    ]
    return Starlette(routes=routes, lifespan=lifespan)


def _field(fields: dict, name: str) -> str:
    value = fields.get(name)
    if not isinstance(value, str | int) or isinstance(value, bool):
        raise BadInput(f"the request has no {name}")
    return str(value)


def _text(text: str, status: int) -> Response:
    return PlainTextResponse(text + "\n", status_code=status, headers=HEADERS)


def _json(body: dict, status: int) -> Response:
    return JSONResponse(body, status_code=status, headers=HEADERS)
