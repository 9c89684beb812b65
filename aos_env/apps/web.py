"""Play Age of Summoners in the browser against bots: ``python -m aos_env.apps.play --web``.

A small server on localhost (the standard library's ``http.server``) holds one
game at a time and answers JSON; the page it serves is plain HTML and
JavaScript with no external assets.

    GET  /            the page
    GET  /api/state   the game as the human sees it: the picture, the legal actions in words,
                      the moves so far, the result and the replay file
    POST /api/act     {"action": id, "game_id": "..."}: the human's move
    POST /api/bot     {"game_id": "..."}: one move of the bot whose turn it is (the page calls it, with a
                      short pause, until it is the human's turn again, so bot moves appear one by one)
    POST /api/new     {} or {"seed": n, "players": 2..4, "opponents": ["greedy", ...]}: a new game
                      (the replay of the one before is kept); opponents come from a fixed list

``game_id`` (optional, from ``/api/state``) names the game a move is meant for: a move from the
page of another game (a stale tab, a server restarted) is refused with 409 and changes nothing.

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
import secrets
import signal
import socket
import sys
import threading
import time
from collections.abc import Callable, Sequence
from http import HTTPStatus
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer
from pathlib import Path
from typing import Any, TextIO, cast

import numpy as np

from ..base.checks import MAX_SEED, ArgumentError, check_int, check_optional_int
from ..core import Phase, final_scores
from ..envs.aec import raw_env
from ..view import table
from ..view.explain import weigh_and_act
from ..view.render import QUESTIONS, agent_name, consequences, describe_seen, legal_actions_text, neighbours
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
#: configure(players, human seat, opponent specs) -> the BotsFactory of those settings.
Configure = Callable[[int, int, list], BotsFactory]
#: Bytes of randomness in a game id (a stale page's id never matches a later game's).
GAME_ID_BYTES = 8

#: path -> (method, the body fields it takes). GET paths take no body.
ROUTES: dict[str, tuple[str, tuple[str, ...]]] = {
    "/": ("GET", ()),
    "/api/state": ("GET", ()),
    "/api/act": ("POST", ("action", "game_id")),
    "/api/bot": ("POST", ("game_id",)),
    "/api/new": ("POST", ("seed", "players", "opponents")),
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
        configure: Configure | None = None,
        opponent_choices: Sequence[str] = (),
        opponents: Sequence[str] = (),
    ) -> None:
        if act is None:
            from ..base.registry import act_on_env as act  # the bots live in the agents package
        self.max_seed = check_int("max_seed", max_seed, 0, MAX_SEED)
        if replays is not None:
            replays = check_replay_folder("replays", replays)
        self.num_players, self.seat, self.max_turns = num_players, seat, max_turns
        self.bots_for, self.replays, self.delay, self.act_fn = bots_for, replays, delay, act
        # the game settings the page may change: players and opponents (from a fixed list of bot
        # specs, so that a request can never name a file to load), and the seed
        self.configure, self.home_seat = configure, seat
        self.opponent_choices = list(dict.fromkeys([*opponents, *opponent_choices]))
        self.opponents = list(opponents)
        self.game_id = ""
        self.lock = threading.Lock()
        self.game_no = 0
        self.env: raw_env  # the game being played: new_game below makes it
        self.saved: Path | None = None
        self.moves: list[dict] = []
        self.weighings: list[dict | None] = []  # per move: what its bot weighed (None: the human's)
        self.new_game(seed)

    # -- games ---------------------------------------------------------------------

    def check_seed(self, seed: Any) -> int | None:
        """``seed`` if it is one a game may have (None: a random one), else ArgumentError."""
        return check_optional_int("seed", seed, 0, self.max_seed)

    def check_settings(self, players: Any, opponents: Any) -> tuple[int, list[str]]:
        """``players`` (None: as now) and ``opponents`` (None: as now; else a list of specs from
        ``opponent_choices``, cycled over the bots' seats), checked; ArgumentError otherwise."""
        if players is None and opponents is None:
            return self.num_players, self.opponents
        if self.configure is None:
            raise ArgumentError("this server plays fixed settings: a new game takes only 'seed'")
        players = self.num_players if players is None else check_int("players", players, 2, 4)
        if opponents is None:
            opponents = self.opponents
        allowed = ", ".join(self.opponent_choices)
        if not isinstance(opponents, list) or not 1 <= len(opponents) <= players - 1:
            raise ArgumentError(f"opponents must be a list of 1..{players - 1} bot names from: {allowed}")
        for spec in opponents:
            if spec not in self.opponent_choices:
                raise ArgumentError(f"opponents: {str(spec)!r:.60} is not offered here; choose from: {allowed}")
        return players, list(opponents)

    def new_game(self, seed: int | None = None, players: Any = None, opponents: Any = None) -> None:
        """Start a new game (ArgumentError for a bad seed or setting). The new game is made first,
        then the replay of the one before is saved; if either fails, the game before stays as it was."""
        seed = self.check_seed(seed)
        P, specs = self.check_settings(players, opponents)
        if seed is None:
            seed = secrets.randbelow(RANDOM_SEED_BOUND)
        bots_for, seat = self.bots_for, self.seat
        if (P, specs) != (self.num_players, self.opponents) and self.configure is not None:
            # (check_settings lets only a configurable server change the settings)
            seat = self.home_seat if self.home_seat < P else 0
            bots_for = self.configure(P, seat, specs)
        try:
            bots = bots_for(seed)
        except ValueError as e:  # a bot's seed out of range (the seed is near the largest)
            raise ArgumentError(f"seed: {e}") from None
        env = raw_env(num_players=P, max_turns=self.max_turns, record_replay=True)
        env.reset(seed=seed)
        self.save()  # the game before, if unfinished and not saved yet (an ApiError here changes nothing)
        self.num_players, self.opponents, self.seat, self.bots_for = P, specs, seat, bots_for
        self.seed, self.bots, self.env = seed, bots, env
        self.game_id = secrets.token_hex(GAME_ID_BYTES)
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

    def check_game(self, game_id: Any) -> None:
        """ApiError (409) unless ``game_id`` (None: not given) names the game being played: a click
        from a page of an earlier game (another tab, a server restarted) must not play in this one."""
        if game_id is None or game_id == self.game_id:
            return
        if not isinstance(game_id, str):
            raise ApiError(HTTPStatus.BAD_REQUEST, f"'game_id' must be a string, got {game_id!r:.40}")
        raise ApiError(
            HTTPStatus.CONFLICT,
            f"this move was made on the page of another game ({game_id!r:.40}), not the one being played now "
            f"(game {self.game_no}): reload the page to see the current game",
        )

    def act(self, action, game_id: Any = None) -> None:
        """The human's move; ApiError if it is not theirs to make, not legal or meant for another game."""
        if isinstance(action, bool) or not isinstance(action, int):
            raise ApiError(HTTPStatus.BAD_REQUEST, f"'action' must be an action id (an integer), got {action!r:.80}")
        self.check_game(game_id)
        self._require_turn(human=True)
        legal = legal_actions_text(self.state, 0)
        if action not in [a for a, _ in legal]:
            raise ApiError(
                HTTPStatus.BAD_REQUEST,
                f"action {action} is not legal now; legal: " + "; ".join(f"{a} = {text}" for a, text in legal),
            )
        self._step(self.seat, action)

    def bot(self, game_id: Any = None) -> None:
        """One move of the bot to play (and, for the replay, what it weighed)."""
        self.check_game(game_id)
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
        move["then"] = consequences(state, env.engine_state, 0, self.seat)
        weighings = [*self.weighings, weighed]
        saved = self._write_replay(env, [*self.moves, move], weighings) if _over(env) else None
        self.env, self.saved, self.weighings = env, saved, weighings
        self.moves.append(move)

    def save(self) -> Path | None:
        """Write this game's replay (once; nothing if replays are off or no move was made).
        ApiError (500) if it cannot be written; the session is unchanged then."""
        if self.saved is None and self.moves:  # (before the first game there is no env and no move)
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
        scores = [int(x) for x in final_scores(state)[0]]
        result = None
        if over:
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
        legal = []
        if your_turn:
            for a, text in legal_actions_text(state, 0):
                legal.append({"action": a, "text": text, **table.action_notes(state, a, self.seat)})
        P = self.num_players
        return {
            "game": self.game_no,
            "game_id": self.game_id,
            "seed": self.seed,
            "you": agent_name(self.seat),
            "players": [
                {
                    "name": agent_name(p),
                    "who": "you" if p == self.seat else self.bots[p][0],
                    "left": agent_name(neighbours(p, P)[0]),
                    "right": agent_name(neighbours(p, P)[1]),
                    "score": scores[p],
                    "vp": int(state.vp[0, p]),
                    "spirits": int(state.spirits[0, p].sum()),
                }
                for p in range(P)
            ],
            "svg": render_svg(state, 0, self.seat),
            "over": over,
            "your_turn": your_turn,
            "to_move": None if over else agent_name(cur),
            "question": None if over else QUESTIONS[Phase(int(state.phase[0]))],
            "turn": int(state.turn[0]) + (0 if over else 1),
            "max_turns": self.max_turns,
            "legal": legal,
            "hand": table.hand(state, self.seat),
            "cards": table.card_texts(state.cards),
            "moves": self.moves,
            "result": result,
            "replay_file": None if self.saved is None else str(self.saved),
            "bot_delay_ms": int(round(1000 * self.delay)),
            "settings": {
                "players": P,
                "opponents": self.opponents,
                "choices": self.opponent_choices if self.configure is not None else [],
            },
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
            # a TCP server's address: (host, port) for IPv4, (host, port, flow, scope) for IPv6
            port = int(cast("tuple[str, int]", self.server.server_address)[1])
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
                    session.act(body["action"], body.get("game_id"))
                elif path == "/api/bot":
                    session.bot(body.get("game_id"))
                elif path == "/api/new":
                    try:
                        session.new_game(body.get("seed"), body.get("players"), body.get("opponents"))
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
    address = server.server_address  # (host, port) for IPv4, (host, port, flow, scope) for IPv6
    url = f"http://{address[0]!s}:{int(address[1])}/"
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


PAGE = (
    r"""<!doctype html>
<html lang="en">
<head>
<meta charset="utf-8">
<meta name="viewport" content="width=device-width, initial-scale=1">
<title>Age of Summoners</title>
<style>
  * { box-sizing: border-box; }
  body { margin: 0; font-family: "DejaVu Sans", Verdana, Arial, sans-serif; background: #e9e2d3; color: #2a2623;
         font-size: 14px; overflow-wrap: anywhere; }
  header { background: #3d3350; color: #fff; padding: 8px 16px; }
  header h1 { margin: 0; font-size: 20px; }
  header #info { font-size: 13px; color: #f1ecfa; margin: 2px 0 0; }
  button, select, input { font: inherit; }
  button { cursor: pointer; }
  main { display: grid; grid-template-columns: minmax(0, 960px) minmax(300px, 1fr); grid-template-areas:
         "table play" "table side"; gap: 12px 16px; padding: 12px 16px; align-items: start; }
  #play { grid-area: play; } #side { grid-area: side; } #table { grid-area: table; }
  @media (max-width: 900px) {
    main { grid-template-columns: minmax(0, 1fr); grid-template-areas: "play" "table" "side"; padding: 8px; }
  }
  #table svg { display: block; width: 100%; height: auto; border-radius: 8px; box-shadow: 0 1px 4px #0003; }
  .box { background: #fffdf8; border-radius: 8px; padding: 10px 12px; box-shadow: 0 1px 4px #0002;
         margin-bottom: 10px; }
  h2 { font-size: 15px; margin: 0 0 6px; }
  #status { font-weight: bold; font-size: 15px; margin: 0; }
  #status.you { color: #a33e00; }
  #turn { margin: 4px 0 0; }
  #actions { display: flex; flex-direction: column; gap: 6px; margin-top: 8px; }
  #actions button { display: grid; grid-template-columns: 2em minmax(0, 1fr); gap: 2px 6px; text-align: left;
                    padding: 7px 10px; border-radius: 6px; border: 1px solid #8c7b5e; background: #fff;
                    color: #2a2623; min-height: 40px; }
  #actions button .key { grid-row: 1 / 3; font-weight: bold; color: #3d3350; }
  #actions button .detail { font-size: 12px; color: #5f574e; }
  #actions button.warn { border-color: #a33e00; }
  #actions button:hover:enabled, #actions button:focus-visible { background: #fff3d6; border-color: #8a5a00; }
  #actions button:disabled { color: #6f675e; cursor: default; }
  :focus-visible { outline: 3px solid #a33e00; outline-offset: 2px; }
  .row { display: flex; flex-wrap: wrap; gap: 8px; margin-top: 8px; }
  .row button, #new-open { padding: 6px 12px; border-radius: 6px; border: 1px solid #6b5f85; background: #fff;
                           color: #2a2623; min-height: 36px; }
  button.primary { background: #3d3350; color: #fff; border-color: #3d3350; }
  #confirm { border: 2px solid #a33e00; }
  #result h2 { font-size: 18px; }
  #scores td { padding: 2px 10px 2px 0; }
  #scores td.score { font-weight: bold; text-align: right; }
  #scores tr.winner td { color: #7a4f00; font-weight: bold; }
  #log { max-height: 46vh; overflow-y: auto; margin: 0; padding-left: 2.4em; font-size: 13px; }
  #log li { margin-bottom: 3px; }
  #log li.you { color: #0b6675; }
  #log .then { display: block; color: #5f574e; font-size: 12px; }
  #error { background: #ffe3e3; color: #8f1a1a; }
  .muted { color: #5f574e; font-size: 12px; }
  #hand-list { display: flex; flex-wrap: wrap; gap: 6px; list-style: none; margin: 0; padding: 0; }
  #hand-list button { padding: 4px 8px; border-radius: 6px; border: 1px solid #8c7b5e; background: #fff;
                      color: #2a2623; min-height: 32px; }
  #card dl { display: grid; grid-template-columns: max-content minmax(0, 1fr); gap: 2px 10px; margin: 4px 0; }
  #card dt { color: #5f574e; } #card dd { margin: 0; }
  #seats { margin: 0; padding-left: 1.2em; }
  table.rules { border-collapse: collapse; width: 100%; font-size: 13px; margin: 6px 0; }
  table.rules caption { text-align: left; font-weight: bold; padding: 4px 0; }
  table.rules td, table.rules th { border-top: 1px solid #d6ccb8; padding: 3px 6px 3px 0; text-align: left;
                                   vertical-align: top; }
  details > summary { cursor: pointer; font-weight: bold; font-size: 15px; }
  label { display: block; margin: 6px 0 2px; }
  select, input[type=number] { padding: 4px 6px; min-height: 32px; max-width: 100%; }
  #table [data-card] { cursor: pointer; }
</style>
</head>
<body>
<header><h1>Age of Summoners</h1><p id="info"></p></header>
<main>
  <section id="play" aria-label="your move">
    <div class="box" id="error" role="alert" hidden></div>
    <div class="box">
      <p id="status" aria-live="polite">Loading…</p>
      <p id="turn" class="muted"></p>
      <div id="actions"></div>
      <p class="muted" id="keys">Keys: 1–9 choose an action. Tap a card to read it.</p>
    </div>
    <div class="box" id="confirm" role="alertdialog" aria-labelledby="confirm-text" hidden>
      <p id="confirm-text"></p>
      <div class="row"><button type="button" id="confirm-yes">Declare anyway</button>
        <button type="button" id="confirm-no" class="primary">Do not declare yet</button></div>
    </div>
    <div class="box" id="result" hidden><h2 id="result-text"></h2>
      <table id="scores"></table><p class="muted" id="replay"></p></div>
  </section>
  <div id="table"></div>
  <section id="side" aria-label="the table in words">
    <div class="box" id="card" hidden><h2 id="card-name"></h2><dl id="card-facts"></dl><p id="card-text"></p>
      <div class="row"><button type="button" id="card-close">Close</button></div></div>
    <div class="box"><h2>Your hand</h2><ul id="hand-list"></ul></div>
    <div class="box"><h2>Players</h2><ul id="seats"></ul></div>
    <div class="box"><h2>Moves</h2><ol id="log"></ol></div>
    <div class="box"><details id="rules"><summary>Rules in short</summary>
@@RULES@@
    </details></div>
    <div class="box"><details id="settings"><summary>New game…</summary>
      <p class="muted">Starting a new game ends the one in progress (its replay is saved).</p>
      <label for="set-players">Players</label>
      <select id="set-players"><option>2</option><option>3</option><option>4</option></select>
      <div id="set-opponents"></div>
      <label for="set-seed">Seed (empty: random)</label>
      <input id="set-seed" type="number" min="0" step="1" inputmode="numeric">
      <div class="row"><button type="button" id="new" class="primary">Start the new game</button></div>
    </details></div>
  </section>
</main>
<script>
"use strict";
let busy = false;
let view = null;
let pendingAction = null;
const $ = (id) => document.getElementById(id);

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

function label(p) { return p.name + (p.who === "you" ? " (you)" : " (" + p.who + ")"); }

function showCard(name) {
  const c = view && view.cards[name];
  if (!c) return;
  $("card-name").textContent = c.label;
  const facts = [["colour", c.colour + " " + c.number], ["cost", c.cost], ["points", String(c.points)],
                 ["icons", c.icons]];
  $("card-facts").replaceChildren(...facts.flatMap(([k, v]) => [el("dt", k), el("dd", v)]));
  $("card-text").textContent = c.text;
  $("card").hidden = false;
  $("card-close").focus();
}

function draw(v) {
  view = v;
  $("table").innerHTML = v.svg;
  const svg = $("table").querySelector("svg");
  if (svg) svg.setAttribute("aria-label", "the table seen from your seat; the same facts are listed beside it");
  $("info").textContent = "game " + v.game + " · seed " + v.seed + " · " + v.players.map(label).join(", ");
  const status = $("status");
  status.className = v.your_turn ? "you" : "";
  status.textContent = v.over ? "Game over" : v.your_turn ? "Your move: " + v.question : v.to_move + " is thinking…";
  $("turn").textContent = v.over ? "The game lasted " + v.turn + " turns." :
    "Turn " + v.turn + ". The game ends when a player with 10 spirits or 30 VP declares it " +
    "(or, rarely, at the turn limit of " + v.max_turns + ").";
  $("confirm").hidden = true;
  $("actions").replaceChildren(...v.legal.map((a, i) => {
    const b = el("button", undefined, "action" + (a.warn ? " warn" : ""));
    b.type = "button";
    b.dataset.action = a.action;
    b.append(el("span", i < 9 ? String(i + 1) : "", "key"), el("span", a.text, "text"));
    if (a.detail) b.append(el("span", a.detail, "detail"));
    b.onclick = () => choose(a);
    return b;
  }));
  $("hand-list").replaceChildren(...v.hand.map((c) => {
    const li = el("li"), b = el("button", c.name + (c.count > 1 ? " ×" + c.count : ""));
    b.type = "button";
    b.onclick = () => showCard(c.name);
    li.append(b);
    return li;
  }));
  if (!v.hand.length) $("hand-list").replaceChildren(el("li", "no cards", "muted"));
  $("seats").replaceChildren(...v.players.map((p) => el("li", label(p) + ": score " + p.score + ", " + p.vp +
    " VP chips, " + p.spirits + " spirits; left neighbour " + p.left + ", right neighbour " + p.right)));
  const log = $("log");
  log.replaceChildren(...v.moves.map((m) => {
    const li = el("li", "turn " + m.turn + ", " + m.who + ": " + m.text, m.who === "you" ? "you" : "");
    if (m.then && m.then.length) li.append(el("span", "then " + m.then.join("; "), "then"));
    return li;
  }));
  log.scrollTop = log.scrollHeight;
  const result = $("result");
  result.hidden = !v.result;
  if (v.result) {
    $("result-text").textContent = v.result.text;
    const rows = Object.entries(v.result.final_scores).sort((a, b) => b[1] - a[1]).map(([name, score]) => {
      const tr = el("tr", undefined, name === v.result.winner ? "winner" : "");
      tr.dataset.player = name;
      tr.append(el("td", name + (name === v.you ? " (you)" : "") + (name === v.result.winner ? " (winner)" : "")),
                el("td", String(score), "score"));
      return tr;
    });
    $("scores").replaceChildren(...rows);
    $("replay").textContent = v.replay_file ?
      "Replay saved to " + v.replay_file + " (python -m aos_env.view.replay FILE --html OUT.html)" : "";
  }
  settings(v.settings);
}

function settings(s) {
  const box = $("set-opponents");
  if (!s.choices.length) { box.replaceChildren(el("p", "Opponents: " + s.opponents.join(", "), "muted")); return; }
  const n = Number($("set-players").value || s.players) - 1;
  const old = [...box.querySelectorAll("select")].map((x) => x.value);
  box.replaceChildren();
  for (let i = 0; i < n; i++) {
    const id = "set-opp-" + i, lab = el("label", "Opponent " + (i + 1));
    lab.htmlFor = id;
    const sel = el("select");
    sel.id = id;
    for (const c of s.choices) sel.append(el("option", c));
    sel.value = old[i] || s.opponents[i % s.opponents.length];
    box.append(lab, sel);
  }
}

function showError(err) {
  const box = $("error");
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
    let v = await first();
    showError(null);
    draw(v);
    while (!v.over && !v.your_turn) {
      setBusy(true);
      await sleep(v.bot_delay_ms);
      v = await api("/api/bot", {game_id: v.game_id});
      draw(v);
    }
  } catch (err) {
    showError(err);
  } finally {
    setBusy(false);
    const first = document.querySelector("#actions button");
    (first || $("status")).focus({preventScroll: true});
  }
}

function choose(a) {
  if (busy) return;
  if (a.warn) {
    pendingAction = a.action;
    $("confirm-text").textContent = a.warn;
    $("confirm").hidden = false;
    $("confirm-no").focus();
    return;
  }
  play(a.action);
}
function play(action) { if (!busy) run(() => api("/api/act", {action: action, game_id: view.game_id})); }
$("confirm-yes").onclick = () => { $("confirm").hidden = true; play(pendingAction); };
$("confirm-no").onclick = () => {
  $("confirm").hidden = true;
  const first = document.querySelector("#actions button:not(.warn)");
  if (first) first.focus();
};
$("card-close").onclick = () => { $("card").hidden = true; };
$("table").addEventListener("click", (e) => {
  const card = e.target.closest("[data-card]");
  if (card) showCard(card.dataset.card);
});
$("set-players").onchange = () => settings(view.settings);
// On the summary's click, not on "toggle": toggle is queued, so it could land after the first
// choice a quick user (or a test) makes and undo it. The click runs before the box opens.
document.querySelector("#settings summary").addEventListener("click", () => {
  if (!$("settings").open && view) { $("set-players").value = String(view.settings.players); settings(view.settings); }
});
$("new").onclick = () => {
  if (busy) return;
  const body = {};
  const seed = $("set-seed").value.trim();
  if (seed !== "") body.seed = Number(seed);
  if (view.settings.choices.length) {
    body.players = Number($("set-players").value);
    body.opponents = [...$("set-opponents").querySelectorAll("select")].map((x) => x.value);
  }
  $("settings").open = false;
  run(() => api("/api/new", body));
};
document.addEventListener("keydown", (e) => {
  if (busy || e.altKey || e.ctrlKey || e.metaKey || ["INPUT", "SELECT"].includes(e.target.tagName)) return;
  if (/^[1-9]$/.test(e.key)) {
    const b = document.querySelectorAll("#actions button")[Number(e.key) - 1];
    if (b) { e.preventDefault(); b.click(); }
  } else if (e.key === "Escape") {
    $("card").hidden = true;
    $("confirm").hidden = true;
  }
});
run(() => api("/api/state"));
</script>
</body>
</html>
"""
).replace("@@RULES@@", table.rules_html())
