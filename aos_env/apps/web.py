"""Play Age of Summoners in the browser against bots: ``python -m aos_env.apps.play --web``.

A small server on localhost (the standard library's ``http.server``) holds one
game at a time and answers JSON; the page it serves is plain HTML and
JavaScript with no external assets.

    GET  /            the page
    GET  /api/state   the game as the human sees it: the picture, the legal actions in words,
                      the moves so far, the result and the replay file
    POST /api/act     {"action": id}: the human's move
    POST /api/bot     {}: one move of the bot whose turn it is (the page calls it, with a
                      short pause, until it is the human's turn again, so bot moves appear one by one)
    POST /api/new     {} or {"seed": n}: a new game (the replay of the one before is kept)

The server answers only its own origin, so that no other web page open in the
same browser can read the game or play in it:

- every request must name the server in its ``Host`` header (``localhost``,
  ``127.0.0.1`` or ``[::1]`` at the server's port), which stops a page that
  rebinds its own domain name to 127.0.0.1 from reading ``/api/state``;
- a request with an ``Origin`` header must come from the page itself
  (``http://localhost:PORT`` or ``http://127.0.0.1:PORT``; clients that are not
  browsers send none), and a POST must have ``Content-Type: application/json``
  (which a page on another site cannot send without asking first), which stops
  forged moves and new games (CSRF);
- every answer carries a strict Content-Security-Policy and refuses framing,
  content sniffing, referrers and caching.

Every answer is JSON, errors included: ``{"error": "..."}`` with status 400 (bad
JSON, a field missing, unknown or of the wrong type, a value out of range, an
illegal action, a bad ``Content-Length``), 403 (another origin or host, not
JSON), 404 (unknown path), 405 (a method the path does not take; the ``Allow``
header lists those it does), 408 (the body did not arrive), 409 (not your
turn, game over), 411 (a chunked body), 413 (a body over :data:`MAX_BODY`
bytes) or 500 (the replay could not be saved). A request that fails changes
nothing: the checks come first, a move is made on a copy of the game that
replaces it only once the move (and, at the game's end, its replay) is done.
Each game's replay is saved when it ends (and, unfinished, when a new game
replaces it or the server stops).
"""

from __future__ import annotations

import copy
import json
import re
import signal
import socket
import sys
import threading
import time
from collections.abc import Callable
from http import HTTPStatus
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer
from pathlib import Path
from typing import Any, TextIO

import numpy as np

from ..base.checks import MAX_SEED, ArgumentError, check_int, check_optional_int
from ..core import Phase, final_scores
from ..envs.aec import raw_env
from ..view.explain import weigh_and_act
from ..view.render import QUESTIONS, agent_name, describe_seen, legal_actions_text
from ..view.replay import check_replay_folder, new_replay_path, page_policy
from ..view.svg import render_svg

#: The largest request body accepted, in bytes (the API's bodies are a few bytes).
MAX_BODY = 4096
#: Connections the operating system queues for the server (the standard library's 5 resets bursts).
LISTEN_BACKLOG = 128
#: Seconds a client may leave the server waiting for the rest of a request before it is dropped.
REQUEST_TIMEOUT = 15.0
#: After an error answered without reading the whole request, the server reads (and drops) what the
#: client still sends, for at most this long and this many bytes: closing a connection with unread
#: data resets it, and the client would lose the answer.
LINGER_SECONDS = 2.0
LINGER_BYTES = 2**20
#: The names the server answers to: its own, on the loopback interface.
LOOPBACK_NAMES = ("localhost", "127.0.0.1", "[::1]")
#: The port a Host or Origin may leave out (the default of http).
HTTP_PORT = 80
#: The methods GET paths take (HEAD: the headers of a GET, without its body).
GET_METHODS = ("GET", "HEAD")
#: Random first seeds are drawn below this (short enough to read and type).
RANDOM_SEED_BOUND = 2**31

#: bots_for(seed) -> {seat: (spec, agent)} for every seat but the human's.
BotsFactory = Callable[[int], dict]

#: path -> (method, the body fields it takes). GET paths take no body.
ROUTES: dict[str, tuple[str, tuple[str, ...]]] = {
    "/": ("GET", ()),
    "/api/state": ("GET", ()),
    "/api/act": ("POST", ("action",)),
    "/api/bot": ("POST", ()),
    "/api/new": ("POST", ("seed",)),
}
_DIGITS = re.compile(r"[0-9]+")


class ApiError(Exception):
    """A request the server refuses: the status and the message of its JSON answer."""

    def __init__(self, status: HTTPStatus, message: str, headers: dict[str, str] | None = None) -> None:
        super().__init__(message)
        self.status = status
        self.headers = headers or {}


class Session:
    """One game at a time against bots, for one browser; keeps a replay of every game.

    ``replays``: the folder for replays (None: none are kept); it is created if need be and
    must be writable (ArgumentError otherwise). ``max_seed``: the largest seed a game may have
    (the bots may play with seeds above the game's). Every change is all or nothing: a request
    that fails (a bad seed, a bot that fails, a replay that cannot be written) leaves the
    session as it was.
    """

    def __init__(
        self,
        num_players: int,
        seat: int,
        bots_for: BotsFactory,
        max_turns: int,
        replays: Path | None,
        seed: int | None = None,
        delay: float = 0.6,
        act: Callable | None = None,
        max_seed: int = MAX_SEED,
    ) -> None:
        if act is None:
            from ..base.registry import act_on_env as act  # the bots live in the agents package
        self.max_seed = check_int("max_seed", max_seed, 0, MAX_SEED)
        if replays is not None:
            replays = check_replay_folder("replays", replays)
        self.num_players, self.seat, self.max_turns = num_players, seat, max_turns
        self.bots_for, self.replays, self.delay, self.act_fn = bots_for, replays, delay, act
        self.lock = threading.Lock()
        self.game_no = 0
        self.env: raw_env | None = None
        self.saved: Path | None = None
        self.moves: list[dict] = []
        self.weighings: list[dict | None] = []  # per move: what its bot weighed (None: the human's)
        self.new_game(seed)

    # -- games ---------------------------------------------------------------------

    def check_seed(self, seed: Any) -> int | None:
        """``seed`` if it is one a game may have (None: a random one), else ArgumentError."""
        return check_optional_int("seed", seed, 0, self.max_seed)

    def new_game(self, seed: int | None = None) -> None:
        """Start a new game (ArgumentError for a bad seed). The new game is made first, then the
        replay of the one before is saved; if either fails, the game before stays as it was."""
        seed = self.check_seed(seed)
        if seed is None:
            seed = int(np.random.SeedSequence().entropy % RANDOM_SEED_BOUND)
        bots = self.bots_for(seed)
        env = raw_env(num_players=self.num_players, max_turns=self.max_turns, record_replay=True)
        env.reset(seed=seed)
        self.save()  # the game before, if unfinished and not saved yet (an ApiError here changes nothing)
        self.seed, self.bots, self.env = seed, bots, env
        self.game_no += 1
        self.moves = []
        self.weighings = []
        self.saved = None

    @property
    def state(self):
        return self.env.engine_state

    def over(self) -> bool:
        return _over(self.env)

    def players(self) -> list[str]:
        return ["human" if p == self.seat else self.bots[p][0] for p in range(self.num_players)]

    def act(self, action) -> None:
        """The human's move; ApiError if it is not theirs to make or not legal."""
        if isinstance(action, bool) or not isinstance(action, int):
            raise ApiError(HTTPStatus.BAD_REQUEST, f"'action' must be an action id (an integer), got {action!r:.80}")
        self._require_turn(human=True)
        legal = legal_actions_text(self.state, 0)
        if action not in [a for a, _ in legal]:
            raise ApiError(
                HTTPStatus.BAD_REQUEST,
                f"action {action} is not legal now; legal: " + "; ".join(f"{a} = {text}" for a, text in legal),
            )
        self._step(self.seat, action)

    def bot(self) -> None:
        """One move of the bot to play (and, for the replay, what it weighed)."""
        self._require_turn(human=False)
        p = int(self.state.current_player[0])
        action, weighed = weigh_and_act(self.bots[p][1], self.env, self.act_fn)
        self._step(p, action, weighed)

    def _require_turn(self, human: bool) -> None:
        if self.over():
            raise ApiError(HTTPStatus.CONFLICT, "the game is over: start a new game (POST /api/new)")
        mine = int(self.state.current_player[0]) == self.seat
        if human and not mine:
            raise ApiError(
                HTTPStatus.CONFLICT,
                f"it is {agent_name(int(self.state.current_player[0]))}'s move, "
                "not yours (POST /api/bot lets the bot play)",
            )
        if not human and mine:
            raise ApiError(HTTPStatus.CONFLICT, "it is your move (POST /api/act)")

    def _step(self, p: int, action: int, weighed: dict | None = None) -> None:
        """Make the move on a copy of the game, save the replay if the game ends there, and only
        then keep the copy: a failure on the way leaves the game as it was."""
        state = self.state
        text = describe_seen(state, 0, action, self.seat)
        who = "you" if p == self.seat else f"{agent_name(p)} ({self.bots[p][0]})"
        move = {"player": agent_name(p), "who": who, "text": text, "turn": int(state.turn[0]) + 1}
        env = copy.deepcopy(self.env)
        env.step(action)
        weighings = [*self.weighings, weighed]
        saved = self._write_replay(env, [*self.moves, move], weighings) if _over(env) else None
        self.env, self.saved, self.weighings = env, saved, weighings
        self.moves.append(move)

    def save(self) -> Path | None:
        """Write this game's replay (once; nothing if replays are off or no move was made).
        ApiError (500) if it cannot be written; the session is unchanged then."""
        if self.saved is None:
            self.saved = self._write_replay(self.env, self.moves, self.weighings)
        return self.saved

    def _write_replay(self, env: raw_env | None, moves: list[dict], weighings: list) -> Path | None:
        if self.replays is None or env is None or not moves:
            return None
        path = new_replay_path(self.replays, self.seed)
        try:
            replay = env.replay(players=self.players())
            replay.weighed = list(weighings)  # what each bot weighed (None: the human's moves)
            return replay.save(path)
        except (OSError, ArgumentError) as e:
            reason = e.strerror if isinstance(e, OSError) and e.strerror else str(e)
            raise ApiError(
                HTTPStatus.INTERNAL_SERVER_ERROR,
                f"the replay of game {self.game_no} cannot be saved to {path} ({reason}); nothing was "
                "changed: free some space or fix the folder and try again (or restart the server "
                "with --no-replays)",
            ) from None

    # -- what the page shows ----------------------------------------------------------------

    def view(self) -> dict:
        state, over = self.state, self.over()
        cur = int(state.current_player[0])
        your_turn = not over and cur == self.seat
        result = None
        if over:
            scores = [int(s) for s in final_scores(state)[0]]
            winner = int(np.argmax(state.rewards[0])) if state.terminated[0] else None
            if winner is None:
                text = "The turn limit was reached: nobody wins."
            else:
                text = "You win!" if winner == self.seat else f"{agent_name(winner)} wins."
            result = {
                "final_scores": {agent_name(p): s for p, s in enumerate(scores)},
                "winner": None if winner is None else agent_name(winner),
                "truncated": bool(state.truncated[0]),
                "text": text,
            }
        return {
            "game": self.game_no,
            "seed": self.seed,
            "you": agent_name(self.seat),
            "players": [
                {"name": agent_name(p), "who": "you" if p == self.seat else self.bots[p][0]}
                for p in range(self.num_players)
            ],
            "svg": render_svg(state, 0, self.seat),
            "over": over,
            "your_turn": your_turn,
            "to_move": None if over else agent_name(cur),
            "question": None if over else QUESTIONS[Phase(int(state.phase[0]))],
            "legal": [{"action": a, "text": t} for a, t in legal_actions_text(state, 0)] if your_turn else [],
            "moves": self.moves,
            "result": result,
            "replay_file": None if self.saved is None else str(self.saved),
            "bot_delay_ms": int(round(1000 * self.delay)),
        }


def _over(env: raw_env) -> bool:
    state = env.engine_state
    return bool(state.terminated[0] or state.truncated[0])


# ---- HTTP ------------------------------------------------------------------------------


def security_headers(csp: str) -> dict[str, str]:
    """The headers every answer carries."""
    return {
        "Content-Security-Policy": csp,
        "X-Frame-Options": "DENY",
        "X-Content-Type-Options": "nosniff",
        "Referrer-Policy": "no-referrer",
        "Cross-Origin-Resource-Policy": "same-origin",
        "Cross-Origin-Opener-Policy": "same-origin",
        "Cache-Control": "no-store",
    }


def allowed_hosts(port: int) -> set[str]:
    """The Host headers naming this server (lower case)."""
    hosts = {f"{name}:{port}" for name in LOOPBACK_NAMES}
    if port == HTTP_PORT:
        hosts |= set(LOOPBACK_NAMES)
    return hosts


def make_handler(session: Session) -> type[BaseHTTPRequestHandler]:
    headers_out = security_headers(page_policy(PAGE, server=True))

    class Handler(BaseHTTPRequestHandler):
        server_version = "aos-env"
        sys_version = ""  # the Server header names no Python version
        timeout = REQUEST_TIMEOUT  # a silent client does not hold a thread for ever
        _unread = False  # True when the answer goes out before the whole request was read

        def log_message(self, format: str, *args) -> None:  # quiet: the terminal shows the URL only
            pass

        # -- answers ------------------------------------------------------------------

        def _send(self, status: int, body: bytes, ctype: str, extra: dict | None = None) -> None:
            if self.request_version == "HTTP/0.9":  # an answer with no status line would not say what went wrong
                self.request_version = "HTTP/1.0"
            self.send_response(status)
            self.send_header("Content-Type", ctype)
            self.send_header("Content-Length", str(len(body)))
            for k, v in {**headers_out, **(extra or {})}.items():
                self.send_header(k, v)
            self.end_headers()
            if self.command != "HEAD":
                self.wfile.write(body)

        def _json(self, status: int, data: dict, extra: dict | None = None) -> None:
            self._send(status, json.dumps(data).encode(), "application/json; charset=utf-8", extra)

        def send_error(self, code: int, message: str | None = None, explain: str | None = None) -> None:
            """The standard library's errors (a bad request line or header, ...) as JSON too."""
            self._unread = True
            self.close_connection = True
            try:
                phrase = HTTPStatus(code).phrase
            except ValueError:
                phrase = "error"
            self._json(code, {"error": message or phrase}, {"Connection": "close"})

        def __getattr__(self, name: str):
            # do_PUT, do_PATCH, ...: every method gets our JSON answer (405 or 404), not the
            # standard library's HTML 501 page
            if name.startswith("do_"):
                return lambda: self._handle(name[3:])
            raise AttributeError(name)

        # -- one request --------------------------------------------------------------

        def _handle(self, method: str) -> None:
            try:
                try:
                    self._answer(method)
                except ApiError as e:
                    self._json(e.status, {"error": str(e)}, e.headers)
            except (ConnectionError, TimeoutError):  # the client went away: nobody to answer
                self.close_connection = True
            except Exception as e:  # a bug: one line on the terminal and a JSON answer, not a traceback
                print(
                    f"aos_env.apps.web: internal error on {method} {self.path[:200]!r}: {type(e).__name__}: {e}",
                    file=sys.stderr,
                    flush=True,
                )
                try:
                    self._json(
                        HTTPStatus.INTERNAL_SERVER_ERROR,
                        {"error": f"internal error: {type(e).__name__}: {str(e)[:300]}"},
                    )
                except OSError:
                    self.close_connection = True

        def _answer(self, method: str) -> None:
            length = (self.headers.get("Content-Length") or "").strip()
            self._unread = length not in ("", "0") or bool(self.headers.get("Transfer-Encoding"))
            port = self.server.server_address[1]
            self._check_host(port)
            self._check_origin(port)
            path = self.path.split("?", 1)[0]
            if path not in ROUTES:
                raise ApiError(
                    HTTPStatus.NOT_FOUND,
                    f"no such page: {path[:200]} (the page is /, the API is /api/state, /api/act, /api/bot, /api/new)",
                )
            route_method, fields = ROUTES[path]
            allowed = GET_METHODS if route_method == "GET" else (route_method,)
            if method not in allowed:
                raise ApiError(
                    HTTPStatus.METHOD_NOT_ALLOWED,
                    f"{path} takes {' or '.join(allowed)}, not {method[:20]}",
                    {"Allow": ", ".join(allowed)},
                )
            if path == "/":
                self._send(HTTPStatus.OK, PAGE.encode(), "text/html; charset=utf-8")
                return
            body = self._body(path, fields) if route_method == "POST" else {}
            with session.lock:
                if path == "/api/act":
                    session.act(body["action"])
                elif path == "/api/bot":
                    session.bot()
                elif path == "/api/new":
                    try:
                        session.new_game(body.get("seed"))
                    except ArgumentError as e:
                        raise ApiError(HTTPStatus.BAD_REQUEST, str(e)) from None
                view = session.view()
            self._json(HTTPStatus.OK, view)

        # -- checks -------------------------------------------------------------------

        def _one_header(self, name: str) -> str | None:
            values = self.headers.get_all(name) or []
            if len(values) > 1:
                raise ApiError(HTTPStatus.BAD_REQUEST, f"the request has {len(values)} {name} headers; one at most")
            return values[0].strip() if values else None

        def _check_host(self, port: int) -> None:
            host = self._one_header("Host")
            if host is None or host.lower() not in allowed_hosts(port):
                raise ApiError(
                    HTTPStatus.FORBIDDEN,
                    f"this server answers only http://127.0.0.1:{port}/ or http://localhost:{port}/ "
                    f"(the request is for host {host!r:.80})",
                )

        def _check_origin(self, port: int) -> None:
            origin = self._one_header("Origin")
            if origin is not None and origin.lower() not in {f"http://{h}" for h in allowed_hosts(port)}:
                raise ApiError(
                    HTTPStatus.FORBIDDEN,
                    "requests from another origin are refused "
                    f"(Origin {origin!r:.80}; this page is http://127.0.0.1:{port})",
                )

        def _body(self, path: str, fields: tuple[str, ...]) -> dict:
            """The JSON object a POST carries, with only ``fields`` (all of them, for /api/act)."""
            ctype = self._one_header("Content-Type")
            if ctype is None or ctype.split(";", 1)[0].strip().lower() != "application/json":
                raise ApiError(
                    HTTPStatus.FORBIDDEN,
                    f"{path} takes a JSON body (Content-Type: application/json), got Content-Type {ctype!r:.80}",
                )
            if self.headers.get("Transfer-Encoding"):
                raise ApiError(HTTPStatus.LENGTH_REQUIRED, "chunked bodies are not taken: send Content-Length")
            n = self._content_length()
            try:
                raw = self.rfile.read(n) if n else b""
            except TimeoutError:
                raise ApiError(
                    HTTPStatus.REQUEST_TIMEOUT,
                    f"the body did not arrive within {REQUEST_TIMEOUT:g} s (Content-Length {n})",
                    {"Connection": "close"},
                ) from None
            if len(raw) < n:
                raise ApiError(
                    HTTPStatus.BAD_REQUEST, f"the body ended after {len(raw)} of the {n} bytes Content-Length announced"
                )
            self._unread = False
            body = parse_body(raw)
            unknown = [k for k in body if k not in fields]
            if unknown:
                takes = ", ".join(repr(f) for f in fields) or "no fields"
                raise ApiError(HTTPStatus.BAD_REQUEST, f"{path} takes {takes}, got unknown field {unknown[0]!r:.80}")
            if path == "/api/act" and "action" not in body:
                raise ApiError(HTTPStatus.BAD_REQUEST, 'the body must be {"action": <action id>}')
            return body

        def _content_length(self) -> int:
            text = self._one_header("Content-Length")
            if text is None or text == "":
                return 0
            if not _DIGITS.fullmatch(text):
                raise ApiError(
                    HTTPStatus.BAD_REQUEST, f"Content-Length must be a number of bytes 0..{MAX_BODY}, got {text!r:.40}"
                )
            digits = text.lstrip("0") or "0"
            if len(digits) > len(str(MAX_BODY)) or int(digits) > MAX_BODY:
                raise ApiError(
                    HTTPStatus.REQUEST_ENTITY_TOO_LARGE,
                    f"the body may have at most {MAX_BODY} bytes, Content-Length is {text[:40]}",
                )
            return int(digits)

        # -- the end of a connection ----------------------------------------------------

        def finish(self) -> None:
            super().finish()
            if self._unread:
                _drain(self.connection)

    return Handler


def parse_body(raw: bytes) -> dict:
    """A request body as a JSON object ({} for an empty body); ApiError (400) otherwise."""
    if not raw.strip():
        return {}
    try:
        body = json.loads(raw)
    except RecursionError:
        raise ApiError(HTTPStatus.BAD_REQUEST, "the body is not valid JSON: nested too deeply") from None
    except ValueError as e:  # bad JSON, not UTF-8, an int of too many digits
        raise ApiError(HTTPStatus.BAD_REQUEST, f"the body is not valid JSON: {e}") from None
    if not isinstance(body, dict):
        raise ApiError(HTTPStatus.BAD_REQUEST, "the body must be a JSON object")
    return body


def _drain(conn: socket.socket) -> None:
    """Read and drop what a client still sends after its answer (see LINGER_SECONDS)."""
    try:
        conn.shutdown(socket.SHUT_WR)  # the answer is complete: the client may close
        deadline = time.monotonic() + LINGER_SECONDS
        got = 0
        while got < LINGER_BYTES:
            left = deadline - time.monotonic()
            if left <= 0:
                break
            conn.settimeout(left)
            chunk = conn.recv(65536)
            if not chunk:
                break
            got += len(chunk)
    except OSError:
        pass


class PlayServer(ThreadingHTTPServer):
    """The play server: a long listen queue, and no traceback on the terminal when a client goes away."""

    request_queue_size = LISTEN_BACKLOG
    daemon_threads = True

    def handle_error(self, request, client_address) -> None:
        error = sys.exc_info()[1]
        if isinstance(error, (ConnectionError, TimeoutError)):
            return
        print(
            f"aos_env.apps.web: error answering {client_address[0]}: {type(error).__name__}: {error}",
            file=sys.stderr,
            flush=True,
        )


def make_server(session: Session, port: int = 8000, host: str = "127.0.0.1") -> ThreadingHTTPServer:
    """The HTTP server for ``session`` on host:port (port 0: any free port); OSError if it cannot listen there."""
    return PlayServer((host, port), make_handler(session))


def serve(
    session: Session,
    port: int = 8000,
    host: str = "127.0.0.1",
    open_browser: bool = False,
    out: TextIO | None = None,
    ready: Callable[[ThreadingHTTPServer], None] | None = None,
    server: ThreadingHTTPServer | None = None,
) -> int:
    """Serve ``session`` on http://host:port/ (or on ``server``, from make_server) until interrupted."""
    out = out or sys.stdout
    server = server or make_server(session, port, host)
    host, port = server.server_address[:2]
    url = f"http://{host}:{port}/"
    print(f"Age of Summoners: open {url} in your browser (Ctrl-C stops the server).", file=out, flush=True)
    if session.replays is not None:
        print(f"Replays are saved in {session.replays}/", file=out, flush=True)
    if open_browser:
        import webbrowser

        webbrowser.open(url)
    if ready is not None:
        ready(server)
    if threading.current_thread() is threading.main_thread():
        signal.signal(signal.SIGTERM, _interrupt)  # `kill` stops the server like Ctrl-C: the game's replay is saved
    try:
        server.serve_forever()
    except KeyboardInterrupt:
        pass
    finally:
        server.server_close()
        with session.lock:
            try:
                saved = session.save()
            except ApiError as e:
                print(f"the unfinished game was not saved: {e}", file=out, flush=True)
                saved = None
        if saved is not None:
            print(f"replay of the unfinished game saved to {saved}", file=out, flush=True)
    return 0


def _interrupt(signum, frame) -> None:
    raise KeyboardInterrupt


PAGE = r"""<!doctype html>
<html lang="en">
<head>
<meta charset="utf-8">
<meta name="viewport" content="width=device-width, initial-scale=1">
<title>Age of Summoners</title>
<style>
  body { margin: 0; font-family: "DejaVu Sans", Verdana, Arial, sans-serif; background: #e9e2d3; color: #2a2623; }
  header { background: #3d3350; color: #fff; padding: 10px 18px; display: flex; align-items: center; gap: 16px; }
  header h1 { margin: 0; font-size: 20px; }
  header #info { font-size: 13px; color: #e6def5; flex: 1; }
  button { font: inherit; cursor: pointer; }
  #new { font-size: 14px; padding: 6px 14px; border-radius: 6px; border: none; background: #f2c200; color: #3b2f00;
         font-weight: bold; }
  main { display: flex; gap: 16px; padding: 14px 18px; align-items: flex-start; }
  #table { flex: 0 0 auto; max-width: 960px; }
  #table svg { display: block; max-width: 100%; height: auto; border-radius: 8px; box-shadow: 0 1px 4px #0003; }
  aside { flex: 1 1 340px; display: flex; flex-direction: column; gap: 12px; }
  .box { background: #fffdf8; border-radius: 8px; padding: 10px 12px; box-shadow: 0 1px 4px #0002; }
  #status { font-weight: bold; font-size: 15px; }
  #status.you { color: #d9480f; }
  #actions { display: flex; flex-direction: column; gap: 6px; margin-top: 8px; }
  #actions button { text-align: left; padding: 7px 10px; border-radius: 6px; border: 1px solid #c9bba0;
                    background: #fff; font-size: 14px; }
  #actions button:hover:enabled { background: #fff3d6; border-color: #c98a00; }
  #actions button:disabled { opacity: 0.5; cursor: default; }
  #result h2 { margin: 0 0 6px; font-size: 18px; }
  #scores td { padding: 2px 10px 2px 0; }
  #scores td.score { font-weight: bold; text-align: right; }
  #scores tr.winner td { color: #c98a00; }
  #log { max-height: 46vh; overflow-y: auto; margin: 0; padding-left: 2.4em; font-size: 13px; }
  #log li.you { color: #0b7285; }
  #error { background: #ffe3e3; color: #a61e1e; }
  .muted { color: #7a7167; font-size: 12px; }
</style>
</head>
<body>
<header><h1>Age of Summoners</h1><span id="info"></span><button id="new">New game</button></header>
<main>
  <div id="table"></div>
  <aside>
    <div class="box" id="error" hidden></div>
    <div class="box"><div id="status">Loading…</div><div id="actions"></div></div>
    <div class="box" id="result" hidden><h2 id="result-text"></h2>
      <table id="scores"></table><p class="muted" id="replay"></p></div>
    <div class="box"><strong>Moves</strong><ol id="log"></ol></div>
  </aside>
</main>
<script>
"use strict";
let busy = false;

async function api(path, body) {
  const opts = body === undefined ? {} :
    {method: "POST", headers: {"Content-Type": "application/json"}, body: JSON.stringify(body)};
  const response = await fetch(path, opts);
  const data = await response.json();
  if (!response.ok) throw new Error(data.error || ("HTTP " + response.status));
  return data;
}

const sleep = (ms) => new Promise((done) => setTimeout(done, ms));

function el(tag, text, cls) {
  const e = document.createElement(tag);
  if (text !== undefined) e.textContent = text;
  if (cls) e.className = cls;
  return e;
}

function draw(view) {
  document.getElementById("table").innerHTML = view.svg;
  const seats = view.players.map((p) => p.name + (p.who === "you" ? " (you)" : ": " + p.who)).join(", ");
  document.getElementById("info").textContent = "game " + view.game + " · seed " + view.seed + " · " + seats;
  const status = document.getElementById("status");
  status.className = view.your_turn ? "you" : "";
  status.textContent = view.over ? "Game over" :
    view.your_turn ? "Your move: " + view.question : view.to_move + " is thinking…";
  const actions = document.getElementById("actions");
  actions.replaceChildren(...view.legal.map((a) => {
    const b = el("button", a.text, "action");
    b.dataset.action = a.action;
    b.onclick = () => play(a.action);
    return b;
  }));
  const log = document.getElementById("log");
  log.replaceChildren(...view.moves.map((m) =>
    el("li", "turn " + m.turn + ", " + m.who + ": " + m.text, m.who === "you" ? "you" : "")));
  log.scrollTop = log.scrollHeight;
  const result = document.getElementById("result");
  result.hidden = !view.result;
  if (view.result) {
    document.getElementById("result-text").textContent = view.result.text;
    const rows = Object.entries(view.result.final_scores).sort((a, b) => b[1] - a[1]).map(([name, score]) => {
      const tr = el("tr", undefined, name === view.result.winner ? "winner" : "");
      tr.dataset.player = name;
      tr.append(el("td", name + (name === view.you ? " (you)" : "")), el("td", String(score), "score"));
      return tr;
    });
    document.getElementById("scores").replaceChildren(...rows);
    document.getElementById("replay").textContent = view.replay_file ?
      "Replay saved to " + view.replay_file + " (python -m aos_env.view.replay FILE --html OUT.html)" : "";
  }
}

function showError(err) {
  const box = document.getElementById("error");
  box.hidden = !err;
  box.textContent = err ? String(err.message || err) : "";
}

function setBusy(on) {
  busy = on;
  document.querySelectorAll("#actions button, #new").forEach((b) => { b.disabled = on; });
}

async function run(first) {
  // Show a view, then let the bots move one by one until it is the human's turn or the game ends.
  setBusy(true);
  try {
    let view = await first();
    showError(null);
    draw(view);
    while (!view.over && !view.your_turn) {
      setBusy(true);
      await sleep(view.bot_delay_ms);
      view = await api("/api/bot", {});
      draw(view);
    }
  } catch (err) {
    showError(err);
  } finally {
    setBusy(false);
  }
}

function play(action) { if (!busy) run(() => api("/api/act", {action: action})); }
document.getElementById("new").onclick = () => { if (!busy) run(() => api("/api/new", {})); };
run(() => api("/api/state"));
</script>
</body>
</html>
"""
