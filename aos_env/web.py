"""Play Age of Summoners in the browser against bots: ``python -m aos_env.play --web``.

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

A bad request gets ``{"error": "..."}`` with status 400 (bad JSON, missing or
illegal action), 404 (unknown path), 405 (wrong method), 409 (not your turn,
game over) or 413 (body too large). Each game's replay is saved when it ends
(and, unfinished, when a new game replaces it or the server stops).
"""

from __future__ import annotations

import json
import signal
import threading
from http import HTTPStatus
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer
from pathlib import Path
from typing import Callable, TextIO

import numpy as np

from .core import Phase, final_scores
from .aec_env import raw_env
from .render import QUESTIONS, agent_name, describe_seen, legal_actions_text
from .replay import new_replay_path
from .svg import render_svg

#: The largest request body accepted (the API's bodies are a few bytes).
MAX_BODY = 4096

#: bots_for(seed) -> {seat: (spec, agent)} for every seat but the human's.
BotsFactory = Callable[[int], dict]


class ApiError(Exception):
    def __init__(self, status: HTTPStatus, message: str) -> None:
        super().__init__(message)
        self.status = status


class Session:
    """One game at a time against bots, for one browser; keeps a replay of every game."""

    def __init__(self, num_players: int, seat: int, bots_for: BotsFactory, max_turns: int,
                 replays: Path | None, seed: int | None = None, delay: float = 0.6,
                 act: Callable | None = None) -> None:
        if act is None:
            from agents import act_on_env as act  # the bots live in the agents package
        self.num_players, self.seat, self.max_turns = num_players, seat, max_turns
        self.bots_for, self.replays, self.delay, self.act_fn = bots_for, replays, delay, act
        self.lock = threading.Lock()
        self.game_no = 0
        self.env: raw_env | None = None
        self.saved: Path | None = None
        self.new_game(seed)

    # -- games ---------------------------------------------------------------------

    def new_game(self, seed: int | None = None) -> None:
        self.save()  # the game before, if unfinished and not saved yet
        self.seed = int(seed) if seed is not None else int(np.random.SeedSequence().entropy % 2**31)
        self.game_no += 1
        self.bots = self.bots_for(self.seed)
        self.env = raw_env(num_players=self.num_players, max_turns=self.max_turns, record_replay=True)
        self.env.reset(seed=self.seed)
        self.moves: list[dict] = []
        self.saved = None

    @property
    def state(self):
        return self.env.engine_state

    def over(self) -> bool:
        return bool(self.state.terminated[0] or self.state.truncated[0])

    def players(self) -> list[str]:
        return ["human" if p == self.seat else self.bots[p][0] for p in range(self.num_players)]

    def act(self, action) -> None:
        """The human's move; ApiError if it is not theirs to make or not legal."""
        if isinstance(action, bool) or not isinstance(action, int):
            raise ApiError(HTTPStatus.BAD_REQUEST, f"'action' must be an action id (an integer), got {action!r}")
        self._require_turn(human=True)
        legal = legal_actions_text(self.state, 0)
        if action not in [a for a, _ in legal]:
            raise ApiError(HTTPStatus.BAD_REQUEST, f"action {action} is not legal now; legal: "
                           + "; ".join(f"{a} = {text}" for a, text in legal))
        self._step(self.seat, action)

    def bot(self) -> None:
        """One move of the bot to play."""
        self._require_turn(human=False)
        p = int(self.state.current_player[0])
        self._step(p, int(self.act_fn(self.bots[p][1], self.env)))

    def _require_turn(self, human: bool) -> None:
        if self.over():
            raise ApiError(HTTPStatus.CONFLICT, "the game is over: start a new game (POST /api/new)")
        mine = int(self.state.current_player[0]) == self.seat
        if human and not mine:
            raise ApiError(HTTPStatus.CONFLICT, f"it is {agent_name(int(self.state.current_player[0]))}'s move, "
                           "not yours (POST /api/bot lets the bot play)")
        if not human and mine:
            raise ApiError(HTTPStatus.CONFLICT, "it is your move (POST /api/act)")

    def _step(self, p: int, action: int) -> None:
        state = self.state
        text = describe_seen(state, 0, action, self.seat)
        who = "you" if p == self.seat else f"{agent_name(p)} ({self.bots[p][0]})"
        self.moves.append({"player": agent_name(p), "who": who, "text": text, "turn": int(state.turn[0]) + 1})
        self.env.step(action)
        if self.over():
            self.save()

    def save(self) -> Path | None:
        """Write this game's replay (once; nothing if replays are off or no move was made)."""
        if self.replays is None or self.env is None or self.saved is not None or not self.moves:
            return None
        self.saved = self.env.save_replay(new_replay_path(self.replays, self.seed), players=self.players())
        return self.saved

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
            result = {"final_scores": {agent_name(p): s for p, s in enumerate(scores)},
                      "winner": None if winner is None else agent_name(winner),
                      "truncated": bool(state.truncated[0]), "text": text}
        return {
            "game": self.game_no, "seed": self.seed, "you": agent_name(self.seat),
            "players": [{"name": agent_name(p), "who": "you" if p == self.seat else self.bots[p][0]}
                        for p in range(self.num_players)],
            "svg": render_svg(state, 0, self.seat),
            "over": over, "your_turn": your_turn, "to_move": None if over else agent_name(cur),
            "question": None if over else QUESTIONS[Phase(int(state.phase[0]))],
            "legal": [{"action": a, "text": t} for a, t in legal_actions_text(state, 0)] if your_turn else [],
            "moves": self.moves, "result": result,
            "replay_file": None if self.saved is None else str(self.saved),
            "bot_delay_ms": int(round(1000 * self.delay)),
        }


# ---- HTTP ------------------------------------------------------------------------------


def make_handler(session: Session) -> type[BaseHTTPRequestHandler]:
    routes = {("GET", "/"), ("GET", "/api/state"), ("POST", "/api/act"), ("POST", "/api/bot"), ("POST", "/api/new")}

    class Handler(BaseHTTPRequestHandler):
        server_version = "aos-env"

        def log_message(self, format: str, *args) -> None:  # quiet: the terminal shows the URL only
            pass

        def _send(self, status: HTTPStatus, body: bytes, ctype: str, extra: dict | None = None) -> None:
            self.send_response(status)
            self.send_header("Content-Type", ctype)
            self.send_header("Content-Length", str(len(body)))
            self.send_header("Cache-Control", "no-store")
            for k, v in (extra or {}).items():
                self.send_header(k, v)
            self.end_headers()
            self.wfile.write(body)

        def _json(self, status: HTTPStatus, data: dict, extra: dict | None = None) -> None:
            self._send(status, json.dumps(data).encode(), "application/json; charset=utf-8", extra)

        def _route(self, method: str) -> None:
            path = self.path.split("?", 1)[0]
            if (method, path) not in routes:
                allowed = sorted(m for m, p in routes if p == path)
                if allowed:
                    self._json(HTTPStatus.METHOD_NOT_ALLOWED, {"error": f"{path} takes {' or '.join(allowed)}, "
                                                               f"not {method}"}, {"Allow": ", ".join(allowed)})
                else:
                    self._json(HTTPStatus.NOT_FOUND, {"error": f"no such page: {path} (the API is /api/state, "
                                                      "/api/act, /api/bot, /api/new)"})
                return
            if path == "/":
                self._send(HTTPStatus.OK, PAGE.encode(), "text/html; charset=utf-8")
                return
            try:
                body = self._body() if method == "POST" else {}
                with session.lock:
                    if path == "/api/act":
                        if "action" not in body:
                            raise ApiError(HTTPStatus.BAD_REQUEST, 'the body must be {"action": <action id>}')
                        session.act(body["action"])
                    elif path == "/api/bot":
                        session.bot()
                    elif path == "/api/new":
                        seed = body.get("seed")
                        if seed is not None and (isinstance(seed, bool) or not isinstance(seed, int) or seed < 0):
                            raise ApiError(HTTPStatus.BAD_REQUEST, f"'seed' must be a whole number >= 0, got {seed!r}")
                        session.new_game(seed)
                    view = session.view()
            except ApiError as e:
                self._json(e.status, {"error": str(e)})
                return
            self._json(HTTPStatus.OK, view)

        def _body(self) -> dict:
            try:
                n = int(self.headers.get("Content-Length") or 0)
            except ValueError:
                raise ApiError(HTTPStatus.BAD_REQUEST, "bad Content-Length header") from None
            if n > MAX_BODY:
                raise ApiError(HTTPStatus.REQUEST_ENTITY_TOO_LARGE, f"request body over {MAX_BODY} bytes")
            raw = self.rfile.read(n) if n else b""
            if not raw.strip():
                return {}
            try:
                body = json.loads(raw)
            except (json.JSONDecodeError, UnicodeDecodeError) as e:
                raise ApiError(HTTPStatus.BAD_REQUEST, f"the body is not valid JSON: {e}") from None
            if not isinstance(body, dict):
                raise ApiError(HTTPStatus.BAD_REQUEST, "the body must be a JSON object")
            return body

        def do_GET(self) -> None:
            self._route("GET")

        def do_POST(self) -> None:
            self._route("POST")

        def do_PUT(self) -> None:
            self._route("PUT")

        def do_DELETE(self) -> None:
            self._route("DELETE")

    return Handler


def make_server(session: Session, port: int = 8000, host: str = "127.0.0.1") -> ThreadingHTTPServer:
    """The HTTP server for ``session`` on host:port (port 0: any free port); OSError if it cannot listen there."""
    return ThreadingHTTPServer((host, port), make_handler(session))


def serve(session: Session, port: int = 8000, host: str = "127.0.0.1", open_browser: bool = False,
          out: TextIO | None = None, ready: Callable[[ThreadingHTTPServer], None] | None = None,
          server: ThreadingHTTPServer | None = None) -> int:
    """Serve ``session`` on http://host:port/ (or on ``server``, from make_server) until interrupted."""
    import sys

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
            saved = session.save()
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
      "Replay saved to " + view.replay_file + " (python -m aos_env.replay FILE --html OUT.html)" : "";
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
