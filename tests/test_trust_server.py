"""Trust at the play server and the replay viewer: the server answers only its own origin, every
malformed request gets a JSON 4xx and changes nothing, a request does all of its work or none,
a replay file is data (checked field by field, the card file it names never read), and no
output overwrites a file the user made or is left half-written by a full disk."""

from __future__ import annotations

import base64
import errno
import hashlib
import html.parser
import http.client
import io
import json
import os
import pathlib
import re
import socket
import subprocess
import sys
import threading
from concurrent.futures import ThreadPoolExecutor
from pathlib import Path

import numpy as np
import pytest

import aos_env
from aos_env.apps import web
from aos_env.apps.play import main as play_main
from aos_env.apps.play import max_game_seed
from aos_env.base.checks import MAX_SEED, ArgumentError
from aos_env.core.cards import DEFAULT_CARD_FILE
from aos_env.view.replay import Replay, ReplayError, build_parser, load_replay, to_html
from aos_env.view.replay import main as replay_main

pytestmark = pytest.mark.one_backend  # the server and the files, not the engine: one engine is enough

ROOT = Path(__file__).resolve().parent.parent
MAX_TURNS = 10  # short games: a whole game is a few dozen requests
FIRST_SEED = 4


# ---- a server in a thread -------------------------------------------------------------------


class Server:
    """The play server on a free port, in a thread (the same code as ``python -m aos_env.apps.play --web``)."""

    def __init__(self, replays: Path, max_turns: int = MAX_TURNS) -> None:
        from agents import make_agent

        self.session = web.Session(
            2,
            0,
            lambda seed: {1: ("random", make_agent("random", seed=seed))},
            max_turns=max_turns,
            replays=replays,
            seed=FIRST_SEED,
            delay=0,
            max_seed=max_game_seed(2),
        )
        started = threading.Event()
        holder = {}

        def ready(server) -> None:
            holder["server"] = server
            started.set()

        self.out = io.StringIO()
        self.thread = threading.Thread(
            target=web.serve, args=(self.session,), kwargs=dict(port=0, out=self.out, ready=ready), daemon=True
        )
        self.thread.start()
        assert started.wait(30)
        self.server = holder["server"]
        self.port = self.server.server_address[1]
        self.host = f"127.0.0.1:{self.port}"

    def request(
        self, method: str, path: str, body: bytes | None = None, headers: dict | None = None
    ) -> tuple[int, dict, bytes]:
        """One request with http.client: (status, headers with lower-case names, body)."""
        conn = http.client.HTTPConnection("127.0.0.1", self.port, timeout=30)
        try:
            conn.putrequest(method, path, skip_host=True, skip_accept_encoding=True)
            hdrs = {"Host": self.host, **(headers or {})}
            if body is not None and "Content-Length" not in hdrs:
                hdrs["Content-Length"] = str(len(body))
            for k, v in hdrs.items():
                if v is not None:
                    conn.putheader(k, v)
            conn.endheaders(body)
            r = conn.getresponse()
            return r.status, {k.lower(): v for k, v in r.getheaders()}, r.read()
        finally:
            conn.close()

    def post(self, path: str, data=None, headers: dict | None = None) -> tuple[int, dict]:
        body = json.dumps({} if data is None else data).encode()
        status, _, raw = self.request("POST", path, body, {"Content-Type": "application/json", **(headers or {})})
        return status, json.loads(raw)

    def get(self, path: str = "/api/state", headers: dict | None = None) -> tuple[int, dict]:
        status, _, raw = self.request("GET", path, headers=headers)
        return status, json.loads(raw)

    def raw(self, data: bytes, close_write: bool = True) -> tuple[int, dict, bytes]:
        """Bytes as they are on a socket; the answer parsed (status 0 if the connection was dropped)."""
        with socket.create_connection(("127.0.0.1", self.port), timeout=30) as s:
            s.sendall(data)
            if close_write:
                s.shutdown(socket.SHUT_WR)
            chunks = []
            while True:
                chunk = s.recv(65536)
                if not chunk:
                    break
                chunks.append(chunk)
        return parse_answer(b"".join(chunks))

    def snapshot(self) -> tuple:
        """What a request must not change when it fails."""
        s = self.session
        return s.game_no, s.seed, len(s.moves), s.saved, s.state.turn.copy().tobytes(), s.state.phase.tobytes()

    def stop(self) -> None:
        self.server.shutdown()
        self.thread.join(30)


def parse_answer(data: bytes) -> tuple[int, dict, bytes]:
    if not data:
        return 0, {}, b""
    head, _, body = data.partition(b"\r\n\r\n")
    lines = head.decode("latin-1").split("\r\n")
    status = int(lines[0].split()[1])
    headers = {}
    for line in lines[1:]:
        k, _, v = line.partition(":")
        headers[k.strip().lower()] = v.strip()
    return status, headers, body


@pytest.fixture()
def srv(tmp_path: Path):
    server = Server(tmp_path / "replays")
    yield server
    server.stop()


def play_until_human(srv: Server) -> dict:
    status, view = srv.get()
    while not view["your_turn"]:
        status, view = srv.post("/api/bot")
        assert status == 200, view
    return view


def replays_of(srv: Server, seed: int = FIRST_SEED) -> list[Path]:
    return sorted(srv.session.replays.glob(f"game-*-seed{seed}.json"))


def assert_json_error(status: int, headers: dict, body: bytes, code: int, words: str = "") -> dict:
    assert status == code, (status, body)
    assert headers["content-type"].startswith("application/json"), headers
    data = json.loads(body)
    assert set(data) == {"error"} and words in data["error"], data
    return data


# ---- only its own origin ------------------------------------------------------------------------


@pytest.mark.parametrize(
    "host",
    [
        "evil.example",
        "evil.example:{port}",
        "127.0.0.1:1",
        "localhost",
        "127.0.0.1.nip.io:{port}",
        "0.0.0.0:{port}",
        "",
    ],
)
def test_foreign_host_gets_403(srv: Server, host: str, capfd) -> None:
    host = host.format(port=srv.port)
    for method, path in (("GET", "/api/state"), ("GET", "/")):
        status, headers, body = srv.request(method, path, headers={"Host": host})
        data = assert_json_error(status, headers, body, 403, "answers only http://127.0.0.1:")
        assert str(srv.session.replays) not in json.dumps(data), "no path leaks to another host"
    before = srv.snapshot()
    status, headers, body = srv.request("POST", "/api/new", b"{}", {"Host": host, "Content-Type": "application/json"})
    assert_json_error(status, headers, body, 403)
    assert srv.snapshot() == before
    assert "Traceback" not in capfd.readouterr().err


def test_own_host_names_are_answered(srv: Server) -> None:
    for host in (f"127.0.0.1:{srv.port}", f"localhost:{srv.port}", f"LOCALHOST:{srv.port}", f"[::1]:{srv.port}"):
        status, view = srv.get(headers={"Host": host})
        assert status == 200 and view["seed"] == FIRST_SEED


def test_missing_or_repeated_host_gets_403_or_400(srv: Server) -> None:
    status, headers, body = srv.raw(b"GET /api/state HTTP/1.0\r\n\r\n")
    assert_json_error(status, headers, body, 403, "the request is for host None")
    status, headers, body = srv.raw(
        f"GET /api/state HTTP/1.1\r\nHost: {srv.host}\r\nHost: evil.example\r\n\r\n".encode()
    )
    assert_json_error(status, headers, body, 400, "2 Host headers")


@pytest.mark.parametrize(
    "origin",
    [
        "http://evil.example",
        "null",
        "http://127.0.0.1:1",
        "https://127.0.0.1:{port}",
        "http://localhost:{port}.evil.example",
    ],
)
def test_foreign_origin_gets_403_and_changes_nothing(srv: Server, origin: str) -> None:
    origin = origin.format(port=srv.port)
    view = play_until_human(srv)
    before = srv.snapshot()
    move = {"action": view["legal"][0]["action"]}
    for path, data in (("/api/new", {}), ("/api/new", {"seed": 3}), ("/api/act", move)):
        status, err = srv.post(path, data, headers={"Origin": origin})
        assert status == 403 and "another origin" in err["error"], err
    status, err = srv.get(headers={"Origin": origin})
    assert status == 403
    assert srv.snapshot() == before and replays_of(srv) == []


def test_same_origin_and_no_origin_are_answered(srv: Server) -> None:
    for origin in (f"http://127.0.0.1:{srv.port}", f"http://localhost:{srv.port}", None):
        status, view = srv.post("/api/new", {"seed": 6}, headers={"Origin": origin})
        assert status == 200 and view["seed"] == 6


@pytest.mark.parametrize(
    "ctype",
    [
        None,
        "text/plain",
        "text/plain; charset=utf-8",
        "application/x-www-form-urlencoded",
        "multipart/form-data; boundary=x",
        "application/jsonx",
        "",
    ],
)
def test_post_without_json_content_type_gets_403(srv: Server, ctype: str | None) -> None:
    view = play_until_human(srv)
    before = srv.snapshot()
    for path, data in (
        ("/api/new", {"seed": 3}),
        ("/api/act", {"action": view["legal"][0]["action"]}),
        ("/api/bot", {}),
    ):
        status, headers, body = srv.request("POST", path, json.dumps(data).encode(), {"Content-Type": ctype})
        assert_json_error(status, headers, body, 403, "Content-Type: application/json")
    assert srv.snapshot() == before


def test_json_content_type_with_charset_is_taken(srv: Server) -> None:
    status, _, body = srv.request(
        "POST", "/api/new", b'{"seed": 7}', {"Content-Type": "Application/JSON; charset=utf-8"}
    )
    assert status == 200 and json.loads(body)["seed"] == 7


# ---- security headers ---------------------------------------------------------------------------


class _Inline(html.parser.HTMLParser):
    """The text of each inline <script> and <style> of a page, as a browser hashes it."""

    def __init__(self) -> None:
        super().__init__(convert_charrefs=False)
        self.found: dict[str, list[str]] = {"script": [], "style": []}
        self._in: str | None = None

    def handle_starttag(self, tag, attrs) -> None:
        if tag in self.found:
            self._in = tag
            self.found[tag].append("")

    def handle_endtag(self, tag) -> None:
        self._in = None

    def handle_data(self, data) -> None:
        if self._in:
            self.found[self._in][-1] += data


def csp_hashes(page: str) -> dict[str, list[str]]:
    parser = _Inline()
    parser.feed(page)
    return {
        tag: ["'sha256-" + base64.b64encode(hashlib.sha256(t.encode()).digest()).decode() + "'" for t in texts]
        for tag, texts in parser.found.items()
    }


def directives(csp: str) -> dict[str, list[str]]:
    return {d.split()[0]: d.split()[1:] for d in (p.strip() for p in csp.split(";")) if d}


def test_security_headers_on_every_answer(srv: Server) -> None:
    answers = [
        srv.request("GET", "/"),
        srv.request("GET", "/api/state"),
        srv.request("GET", "/nowhere"),
        srv.request("PUT", "/api/state"),
        srv.request("GET", "/", headers={"Host": "evil.example"}),
        srv.request("POST", "/api/new", b"{", {"Content-Type": "application/json"}),
        srv.raw(b"NONSENSE\r\n\r\n"),
    ]
    for status, headers, _ in answers:
        assert headers["x-frame-options"] == "DENY", status
        assert headers["x-content-type-options"] == "nosniff"
        assert headers["referrer-policy"] == "no-referrer"
        assert headers["cache-control"] == "no-store"
        csp = directives(headers["content-security-policy"])
        assert csp["default-src"] == ["'none'"] and csp["frame-ancestors"] == ["'none'"]
        assert "'unsafe-inline'" not in headers["content-security-policy"]
        assert "'unsafe-eval'" not in headers["content-security-policy"]


def test_the_page_works_under_its_policy(srv: Server) -> None:
    """The policy allows exactly the page's one inline script and one style (by hash), and its API calls."""
    status, headers, body = srv.request("GET", "/")
    page = body.decode()
    assert status == 200 and headers["content-type"].startswith("text/html")
    csp = directives(headers["content-security-policy"])
    hashes = csp_hashes(page)
    assert len(hashes["script"]) == 1 and csp["script-src"] == hashes["script"]
    assert len(hashes["style"]) == 1 and csp["style-src"] == hashes["style"]
    assert csp["connect-src"] == ["'self'"]
    assert not re.search(r"\son[a-z]+\s*=", page.split("<script>")[0]), "no inline event handlers in the markup"
    svg = srv.get()[1]["svg"]
    assert " style=" not in page and " style=" not in svg, "no style attributes (the policy blocks them)"


# ---- malformed requests -------------------------------------------------------------------------


def post_bytes(host: str, path: str, body: bytes, *headers: str, ctype: str = "application/json") -> bytes:
    lines = [f"POST {path} HTTP/1.1", f"Host: {host}", *([f"Content-Type: {ctype}"] if ctype else []), *headers]
    return ("\r\n".join(lines) + "\r\n\r\n").encode() + body


MALFORMED = {
    # name: (request bytes given the host, expected status, words in the error)
    "negative Content-Length": (
        lambda h: post_bytes(h, "/api/new", b"{}", "Content-Length: -5"),
        400,
        "Content-Length must be a number of bytes 0..4096",
    ),
    "Content-Length not a number": (
        lambda h: post_bytes(h, "/api/new", b"{}", "Content-Length: abc"),
        400,
        "Content-Length",
    ),
    "Content-Length in other digits": (
        lambda h: post_bytes(h, "/api/new", b"{}", "Content-Length: \u0662"),
        400,
        "Content-Length",
    ),
    "Content-Length too large": (
        lambda h: post_bytes(h, "/api/new", b"{}", "Content-Length: 4097"),
        413,
        "at most 4096 bytes",
    ),
    "Content-Length of 30 digits": (
        lambda h: post_bytes(h, "/api/new", b"{}", "Content-Length: " + "9" * 30),
        413,
        "at most 4096 bytes",
    ),
    "two Content-Lengths": (
        lambda h: post_bytes(h, "/api/new", b"{}", "Content-Length: 2", "Content-Length: 3"),
        400,
        "2 Content-Length headers",
    ),
    "a body bigger than allowed": (
        lambda h: post_bytes(h, "/api/new", b"[" * 5000, "Content-Length: 5000"),
        413,
        "at most 4096",
    ),
    "a body shorter than announced": (
        lambda h: post_bytes(h, "/api/new", b"{}", "Content-Length: 40"),
        400,
        "ended after 2 of the 40 bytes",
    ),
    "chunked": (
        lambda h: post_bytes(h, "/api/new", b"2\r\n{}\r\n0\r\n\r\n", "Transfer-Encoding: chunked"),
        411,
        "chunked",
    ),
    "2000 nested [": (lambda h: post_bytes(h, "/api/new", b"[" * 2000, "Content-Length: 2000"), 400, "not valid JSON"),
    "2000 nested {": (
        lambda h: post_bytes(h, "/api/new", b'{"a":' * 800, f"Content-Length: {5 * 800}"),
        400,
        "not valid JSON",
    ),
    "invalid JSON": (lambda h: post_bytes(h, "/api/new", b"{not json", "Content-Length: 9"), 400, "not valid JSON"),
    "not UTF-8": (
        lambda h: post_bytes(h, "/api/new", b'{"seed": "\xff"}', "Content-Length: 13"),
        400,
        "not valid JSON",
    ),
    "a number of 4096 digits": (
        lambda h: post_bytes(h, "/api/new", b"1" * 4096, "Content-Length: 4096"),
        400,
        "must be a JSON object",
    ),
    "not an object": (
        lambda h: post_bytes(h, "/api/new", b"[1, 2]", "Content-Length: 6"),
        400,
        "must be a JSON object",
    ),
    "unknown field": (
        lambda h: post_bytes(h, "/api/new", b'{"sed": 5}', "Content-Length: 10"),
        400,
        "unknown field 'sed'",
    ),
    "bad request line": (lambda h: b"NONSENSE\r\n\r\n", 400, "Bad request"),
    "absolute URL to elsewhere": (
        lambda h: f"GET http://evil.example/api/state HTTP/1.1\r\nHost: {h}\r\n\r\n".encode(),
        404,
        "no such page",
    ),
    "a header line of 70000 bytes": (
        lambda h: f"GET /api/state HTTP/1.1\r\nHost: {h}\r\nX: {'a' * 70000}\r\n\r\n".encode(),
        431,
        "",
    ),
}


@pytest.mark.parametrize("name", sorted(MALFORMED))
def test_malformed_request_gets_a_json_4xx_and_changes_nothing(srv: Server, name: str, capfd) -> None:
    make, code, words = MALFORMED[name]
    play_until_human(srv)
    before = srv.snapshot()
    status, headers, body = srv.raw(make(srv.host))
    assert_json_error(status, headers, body, code, words)
    assert srv.snapshot() == before and replays_of(srv) == []
    assert srv.get()[0] == 200, "the server still answers"
    assert "Traceback" not in capfd.readouterr().err


@pytest.mark.parametrize(
    "path, data, words",
    [
        ("/api/new", {"seed": -1}, "seed must be an int 0.."),
        ("/api/new", {"seed": MAX_SEED}, f"seed must be an int 0..{max_game_seed(2)}"),
        ("/api/new", {"seed": MAX_SEED + 1}, "seed must be"),
        ("/api/new", {"seed": 10**30}, "seed must be"),
        ("/api/new", {"seed": 1.5}, "seed must be"),
        ("/api/new", {"seed": "5"}, "seed must be"),
        ("/api/new", {"seed": True}, "seed must be"),
        ("/api/new", {"seed": [1]}, "seed must be"),
        ("/api/act", {"action": "1"}, "must be an action id"),
        ("/api/act", {"action": True}, "must be an action id"),
        ("/api/act", {"action": 1.0}, "must be an action id"),
        ("/api/act", {"action": None}, "must be an action id"),
        ("/api/act", {"action": 10**30}, "is not legal now"),
        ("/api/act", {"action": -1}, "is not legal now"),
        ("/api/act", {}, 'the body must be {"action": <action id>}'),
        ("/api/act", {"action": 1, "also": 2}, "unknown field 'also'"),
        ("/api/bot", {"x": 1}, "unknown field 'x'"),
    ],
)
def test_wrong_types_and_ranges_get_400_and_change_nothing(srv: Server, path: str, data: dict, words: str) -> None:
    play_until_human(srv)
    status, _ = srv.post("/api/act", {"action": srv.get()[1]["legal"][0]["action"]})  # a move: a replay to keep
    assert status == 200
    play_until_human(srv)
    before = srv.snapshot()
    status, err = srv.post(path, data)
    assert status == 400 and words in err["error"], err
    assert srv.snapshot() == before and replays_of(srv) == []


def test_seed_out_of_range_keeps_the_game_and_its_replay(srv: Server) -> None:
    """The issue's case: POST /api/new {"seed": 2**63-1} half-updated the session and lost the old replay."""
    view = play_until_human(srv)
    status, view = srv.post("/api/act", {"action": view["legal"][0]["action"]})
    assert status == 200
    moves = view["moves"]
    status, err = srv.post("/api/new", {"seed": MAX_SEED})
    assert status == 400 and "seed" in err["error"]
    status, view = srv.get()
    assert status == 200 and view["game"] == 1 and view["seed"] == FIRST_SEED and view["moves"] == moves
    assert replays_of(srv) == []
    status, view = srv.post("/api/new", {"seed": max_game_seed(2)})  # the largest seed is fine
    assert status == 200 and view["game"] == 2 and view["seed"] == max_game_seed(2)
    (saved,) = replays_of(srv)
    assert len(load_replay(saved).actions) == len(moves)


# ---- methods ----------------------------------------------------------------------------------


@pytest.mark.parametrize("method", ["PUT", "DELETE", "PATCH", "OPTIONS", "TRACE", "CONNECT", "PROPFIND", "FOO"])
def test_other_methods_get_a_json_405_with_allow(srv: Server, method: str) -> None:
    before = srv.snapshot()
    for path, allow in (("/", "GET, HEAD"), ("/api/state", "GET, HEAD"), ("/api/new", "POST"), ("/api/act", "POST")):
        status, headers, body = srv.request(method, path, b"{}", {"Content-Type": "application/json"})
        assert_json_error(status, headers, body, 405, f"{path} takes")
        assert headers["allow"] == allow
    status, headers, body = srv.request(method, "/nowhere")
    assert_json_error(status, headers, body, 404, "no such page")
    assert srv.snapshot() == before


def test_get_on_a_post_path_and_head(srv: Server) -> None:
    status, headers, body = srv.request("GET", "/api/new")
    assert_json_error(status, headers, body, 405, "/api/new takes POST, not GET")
    status, headers, body = srv.request("HEAD", "/api/state")
    assert status == 200 and body == b"" and headers["content-type"].startswith("application/json")


# ---- load ---------------------------------------------------------------------------------------


def test_50_parallel_requests_are_all_answered(srv: Server) -> None:
    def one(i: int) -> int:
        if i % 2:
            return srv.get()[0]
        return srv.request("GET", "/")[0]

    with ThreadPoolExecutor(max_workers=50) as pool:
        statuses = list(pool.map(one, range(50)))
    assert statuses == [200] * 50
    assert srv.server.request_queue_size >= 128


# ---- a failing replay write ----------------------------------------------------------------------


def full_disk(monkeypatch) -> None:
    """Every Path.write_text writes half its text, then fails as on a full disk."""
    real = pathlib.Path.write_text

    def write_half(self, data, *args, **kwargs):
        real(self, data[: len(data) // 2], *args, **kwargs)
        raise OSError(errno.ENOSPC, os.strerror(errno.ENOSPC))

    monkeypatch.setattr(pathlib.Path, "write_text", write_half)


def test_a_failing_replay_write_changes_nothing_and_the_session_recovers(srv: Server, monkeypatch) -> None:
    view = play_until_human(srv)
    srv.post("/api/act", {"action": view["legal"][0]["action"]})
    full_disk(monkeypatch)
    before = srv.snapshot()
    status, err = srv.post("/api/new", {"seed": 9})
    assert status == 500 and "cannot be saved" in err["error"] and "No space left" in err["error"]
    assert srv.snapshot() == before
    assert list(srv.session.replays.iterdir()) == [], "no half-written replay, no temporary file"
    assert srv.get()[0] == 200
    monkeypatch.undo()
    status, view = srv.post("/api/new", {"seed": 9})
    assert status == 200 and view["game"] == 2 and len(replays_of(srv)) == 1


def test_the_last_move_is_not_made_when_its_replay_cannot_be_written(srv: Server, monkeypatch) -> None:
    full_disk(monkeypatch)
    failed = None
    for _ in range(400):
        view = srv.get()[1]
        assert not view["over"], "the game must not end while its replay cannot be written"
        before = srv.snapshot()
        if view["your_turn"]:
            status, answer = srv.post("/api/act", {"action": view["legal"][0]["action"]})
        else:
            status, answer = srv.post("/api/bot")
        if status != 200:
            failed = answer
            break
    assert failed is not None and "cannot be saved" in failed["error"] and "nothing was changed" in failed["error"]
    assert srv.snapshot() == before and list(srv.session.replays.iterdir()) == []
    monkeypatch.undo()
    for _ in range(400):  # the disk free again: the game goes on, ends, and is saved
        view = srv.get()[1]
        if view["over"]:
            break
        if view["your_turn"]:
            status, view = srv.post("/api/act", {"action": view["legal"][0]["action"]})
        else:
            status, view = srv.post("/api/bot")
        assert status == 200
    assert view["over"] and view["replay_file"]
    (saved,) = replays_of(srv)
    assert str(saved) == view["replay_file"]
    load_replay(saved).final_state()  # whole, and it reproduces


def test_a_failing_save_at_shutdown_is_one_line(tmp_path: Path, monkeypatch) -> None:
    server = Server(tmp_path / "replays")
    view = play_until_human(server)
    server.post("/api/act", {"action": view["legal"][0]["action"]})
    full_disk(monkeypatch)
    server.stop()
    assert "the unfinished game was not saved" in server.out.getvalue()


# ---- the replays folder at start ------------------------------------------------------------------


@pytest.mark.parametrize("folder", ["/proc/aos-replays", "/proc", "/dev/null", "{file}", "{file}/sub"])
def test_play_refuses_a_replays_folder_it_cannot_write(tmp_path: Path, folder: str, capsys) -> None:
    taken = tmp_path / "a-file"
    taken.write_text("mine")
    folder = folder.format(file=taken)
    for mode in (["--web", "--port", "0"], []):
        with pytest.raises(SystemExit) as e:
            play_main([*mode, "--opponents", "random", "--replays", folder], inp=io.StringIO(""), out=io.StringIO())
        err = capsys.readouterr().err
        assert e.value.code == 2 and "argument --replays:" in err and folder in err, err
    assert taken.read_text() == "mine"
    with pytest.raises(ArgumentError, match="replays"):
        web.Session(2, 0, lambda seed: {}, max_turns=MAX_TURNS, replays=Path(folder), act=lambda *a: 0)


def test_a_good_replays_folder_is_made_and_left_clean(tmp_path: Path) -> None:
    folder = tmp_path / "new" / "replays"
    code = play_main(
        ["--opponents", "random", "--seed", "5", "--max-turns", "4", "--replays", str(folder)],
        inp=io.StringIO("q\n"),
        out=io.StringIO(),
    )
    assert code == 1 and folder.is_dir()
    assert not [p for p in folder.iterdir() if p.name.startswith(".")], "the write probe is removed"


# ---- the real server process: nothing on its terminal ------------------------------------------


def test_server_process_prints_no_traceback(tmp_path: Path) -> None:
    proc = subprocess.Popen(
        [
            sys.executable,
            "-m",
            "aos_env.apps.play",
            "--web",
            "--port",
            "0",
            "--opponents",
            "random",
            "--max-turns",
            "6",
            "--replays",
            str(tmp_path),
        ],
        stdout=subprocess.PIPE,
        stderr=subprocess.STDOUT,
        text=True,
        cwd=ROOT,
        env=dict(os.environ, PYTHONPATH=str(ROOT)),
    )
    try:
        line = proc.stdout.readline()
        match = re.search(r"open http://127\.0\.0\.1:(\d+)/", line)
        assert match, line
        port = int(match.group(1))
        srv = Server.__new__(Server)
        srv.port, srv.host = port, f"127.0.0.1:{port}"
        for name in sorted(MALFORMED):
            make, code, _ = MALFORMED[name]
            assert srv.raw(make(srv.host))[0] == code, name
        assert srv.request("DELETE", "/api/state")[0] == 405
        with socket.create_connection(("127.0.0.1", port)) as s:  # a client that goes away mid-request
            s.sendall(post_bytes(srv.host, "/api/new", b"{", "Content-Length: 100"))
        status, view = srv.get()
        assert status == 200
    finally:
        proc.terminate()
        out, _ = proc.communicate(timeout=30)
    assert "Traceback" not in out and "Exception" not in out, out


def test_a_slow_body_times_out_with_408(tmp_path: Path, monkeypatch) -> None:
    monkeypatch.setattr(web, "REQUEST_TIMEOUT", 0.5)
    server = Server(tmp_path / "replays")
    try:
        before = server.snapshot()
        status, headers, body = server.raw(
            post_bytes(server.host, "/api/new", b"{", "Content-Length: 10"), close_write=False
        )
        assert_json_error(status, headers, body, 408, "did not arrive")
        assert server.snapshot() == before
    finally:
        server.stop()


# ---- replay files ------------------------------------------------------------------------------


def run_replay(*args: str, stdin: str = "") -> subprocess.CompletedProcess:
    env = dict(os.environ, PYTHONPATH=str(ROOT))
    return subprocess.run(
        [sys.executable, "-m", "aos_env.view.replay", *args],
        input=stdin,
        capture_output=True,
        text=True,
        env=env,
        cwd=ROOT,
        timeout=120,
    )


@pytest.fixture(scope="module")
def replay_data(tmp_path_factory) -> dict:
    env = aos_env.env(num_players=2, max_turns=6, record_replay=True)
    env.reset(seed=8)
    rng = np.random.default_rng(8)
    for _agent in env.agent_iter():
        obs, _, term, trunc, _ = env.last()
        env.step(None if term or trunc else int(rng.choice(np.flatnonzero(obs["action_mask"]))))
    path = env.unwrapped.save_replay(tmp_path_factory.mktemp("replay") / "r.json", players=["random", "random"])
    return json.loads(path.read_text())


def write_replay(folder: Path, data) -> Path:
    path = folder / "r.json"
    path.write_text(data if isinstance(data, str) else json.dumps(data))
    return path


def edited(data: dict, edit) -> dict:
    data = json.loads(json.dumps(data))
    edit(data)
    return data


OTHER_HASH = "sha256:" + "0" * 64
BAD_REPLAYS = {
    "cards.file 5": (lambda d: d["cards"].update(file=5), "cards.file must be null or the name of a card file"),
    "cards.file a list": (lambda d: d["cards"].update(file=["cards.toml"]), "cards.file must be null"),
    "cards.file a folder": (lambda d: d["cards"].update(file="/tmp", hash=OTHER_HASH), "card set mismatch"),
    "cards.file an unrelated file": (
        lambda d: d["cards"].update(file="/etc/passwd", hash=OTHER_HASH),
        "card set mismatch",
    ),
    "cards.hash not hex": (lambda d: d["cards"].update(hash="sha256:xyz"), "cards.hash must be"),
    "seed -1": (lambda d: d.update(seed=-1), "field 'seed' must be an int 0..2**63-1, got -1"),
    "seed 10**30": (lambda d: d.update(seed=10**30), "field 'seed' must be an int 0..2**63-1"),
    "seed 2**63": (lambda d: d.update(seed=2**63), "field 'seed' must be an int 0..2**63-1"),
    "seed a float": (lambda d: d.update(seed=8.0), "field 'seed' must be a JSON int"),
    "max_turns 10**30": (lambda d: d["env"].update(max_turns=10**30), "env.max_turns must be an int 1.."),
    "max_turns true": (lambda d: d["env"].update(max_turns=True), "env.max_turns must be an int 1.."),
    "max_turns 0": (lambda d: d["env"].update(max_turns=0), "env.max_turns must be an int 1.."),
    "num_players true": (lambda d: d["env"].update(num_players=True), "env.num_players must be 2, 3 or 4"),
    "version true": (lambda d: d.update(version=True), "replay version True is not supported"),
    "meta abc": (lambda d: d.update(meta="abc"), "field 'meta' must be a JSON object or null, got 'abc'"),
    "meta a list": (lambda d: d.update(meta=[1]), "field 'meta' must be a JSON object"),
    "env a list": (lambda d: d.update(env=[2, 6]), "field 'env' must be a JSON object"),
    "players not names": (lambda d: d.update(players=[1, 2]), "field 'players' must list 2 names"),
    "an action of strings": (lambda d: d["actions"].__setitem__(0, ["0", "1"]), r"actions[0] must be"),
    "an action of bools": (lambda d: d["actions"].__setitem__(0, [True, 1]), r"actions[0] must be"),
    "result a string": (lambda d: d.update(result="won"), "field 'result' must be a JSON object or null"),
    "result.final_scores a string": (lambda d: d["result"].update(final_scores="x"), "result.final_scores must list"),
    "result.winner 7": (lambda d: d["result"].update(winner=7), "result.winner must be null or a seat"),
    "result.finished 1": (lambda d: d["result"].update(finished=1), "result.finished must be true or false"),
}


#: The cases the issue names, also run as the command itself (the rest in this process: same code, faster).
IN_A_SUBPROCESS = (
    "cards.file 5",
    "cards.file a list",
    "cards.file a folder",
    "cards.file an unrelated file",
    "seed -1",
    "seed 10**30",
    "max_turns 10**30",
    "meta abc",
)


@pytest.mark.parametrize("name", sorted(BAD_REPLAYS))
def test_bad_replay_is_a_usage_error(tmp_path: Path, replay_data: dict, name: str, capsys) -> None:
    edit, words = BAD_REPLAYS[name]
    path = write_replay(tmp_path, edited(replay_data, edit))
    text = path.read_text()
    page = tmp_path / "out.html"
    with pytest.raises(ReplayError, match=re.escape(words)):
        load_replay(path).final_state()
    for extra in ([], ["--html", str(page)]):
        with pytest.raises(SystemExit) as e:
            replay_main([str(path), *extra], out=io.StringIO())
        err = capsys.readouterr().err
        assert e.value.code == 2 and "error:" in err and words in err, err
        if name in IN_A_SUBPROCESS:
            res = run_replay(str(path), *extra)
            assert res.returncode == 2 and "Traceback" not in res.stderr and words in res.stderr, res.stderr
    assert path.read_text() == text and not page.exists()


@pytest.mark.parametrize("content", ["", "[" * 2000, '{"a":' * 2000, "\xff\xfe", "1" * 5000, "[1, 2]", "null"])
def test_replay_that_is_not_json_of_a_replay(tmp_path: Path, content: str) -> None:
    path = tmp_path / "r.json"
    path.write_bytes(content.encode("latin-1"))
    with pytest.raises(ReplayError, match="not a replay"):
        load_replay(path)
    res = run_replay(str(path))
    assert res.returncode == 2 and "Traceback" not in res.stderr and "not a replay" in res.stderr


def test_replay_of_a_folder_or_device(tmp_path: Path) -> None:
    for target in (tmp_path, Path("/dev/null")):
        res = run_replay(str(target))
        assert res.returncode == 2 and "Traceback" not in res.stderr and "not a replay" in res.stderr


def test_the_card_file_a_replay_names_is_never_opened(tmp_path: Path, replay_data: dict) -> None:
    """Opening it would block: a FIFO with no writer. The file is only a note; the shipped cards match."""
    fifo = tmp_path / "cards.fifo"
    os.mkfifo(fifo)
    path = write_replay(tmp_path, edited(replay_data, lambda d: d["cards"].update(file=str(fifo))))
    res = run_replay(str(path))
    assert res.returncode == 0 and res.stdout.splitlines()[-1].startswith(("Game over", "The replay ends"))
    path = write_replay(tmp_path, edited(replay_data, lambda d: d["cards"].update(file=str(fifo), hash=OTHER_HASH)))
    res = run_replay(str(path))
    assert res.returncode == 2 and "card set mismatch" in res.stderr and str(fifo) in res.stderr
    assert "--card-file" in res.stderr


def test_card_file_option_errors(tmp_path: Path, replay_data: dict) -> None:
    path = write_replay(tmp_path, replay_data)
    unrelated = tmp_path / "notes.txt"
    unrelated.write_text("not = [a card file")
    for card_file, words in ((tmp_path, "--card-file"), (unrelated, "cannot use the card file")):
        res = run_replay(str(path), "--card-file", str(card_file))
        assert res.returncode == 2 and "Traceback" not in res.stderr and words in res.stderr, res.stderr


# ---- --html ------------------------------------------------------------------------------------


def cli(capsys, *args: str) -> tuple[int, str]:
    """``python -m aos_env.view.replay ARGS`` in this process: (exit status, stderr)."""
    try:
        code = replay_main(list(args), out=io.StringIO())
    except SystemExit as e:
        code = e.code
    return code, capsys.readouterr().err


def test_html_refuses_the_replay_itself(tmp_path: Path, replay_data: dict, capsys) -> None:
    path = write_replay(tmp_path, replay_data)
    text = path.read_text()
    res = run_replay(str(path), "--html", str(path))  # the case, as the command
    assert res.returncode == 2 and "is a file being read" in res.stderr and "Traceback" not in res.stderr
    link = tmp_path / "link.json"
    link.symlink_to(path)
    hard = tmp_path / "hard.json"
    os.link(path, hard)
    for out in (path, link, hard, tmp_path / "." / "r.json"):
        for extra in ([], ["--overwrite"]):
            code, err = cli(capsys, str(path), "--html", str(out), *extra)
            assert code == 2 and "is a file being read" in err, err
    cards = tmp_path / "cards.toml"
    cards.write_text(DEFAULT_CARD_FILE.read_text())
    code, err = cli(capsys, str(path), "--card-file", str(cards), "--html", str(cards), "--overwrite")
    assert code == 2 and "is a file being read" in err and "cards.toml" in err, err
    assert path.read_text() == text and cards.read_text() == DEFAULT_CARD_FILE.read_text()


def test_html_over_a_dangling_link_needs_overwrite(tmp_path: Path, replay_data: dict, capsys) -> None:
    path = write_replay(tmp_path, replay_data)
    link = tmp_path / "page.html"
    link.symlink_to(tmp_path / "nowhere.html")
    code, err = cli(capsys, str(path), "--html", str(link))
    assert code == 2 and "already exists" in err and link.is_symlink()


@pytest.mark.parametrize("out", ["{tmp}", "/dev/full", "/dev/null", "/proc/aos.html", "{file}/page.html"])
def test_html_to_a_place_it_cannot_write_is_refused_first(tmp_path: Path, replay_data: dict, out: str) -> None:
    """Before the game is replayed: a replay that does not reproduce still gets the --html message."""
    taken = tmp_path / "a-file"
    taken.write_text("mine")
    out = out.format(tmp=tmp_path, file=taken)
    broken = edited(replay_data, lambda d: d["result"].update(final_scores=[999, 0]))
    path = write_replay(tmp_path, broken)
    res = run_replay(str(path), "--html", out, "--overwrite")
    assert res.returncode == 2 and "argument --html:" in res.stderr and "Traceback" not in res.stderr, res.stderr
    assert taken.read_text() == "mine"


def test_html_never_overwrites_without_overwrite(tmp_path: Path, replay_data: dict, capsys) -> None:
    path = write_replay(tmp_path, replay_data)
    page = tmp_path / "page.html"
    page.write_text("my notes")
    code, err = cli(capsys, str(path), "--html", str(page))
    assert code == 2 and "already exists: give --overwrite" in err
    assert page.read_text() == "my notes"
    code, err = cli(capsys, str(path), "--html", str(page), "--overwrite")
    assert code == 0 and page.read_text().startswith("<!doctype html>")
    code, err = cli(capsys, str(path), "--overwrite")
    assert code == 2 and "--overwrite: only goes with --html" in err
    assert "--overwrite" in build_parser().format_help()


def test_html_page_carries_a_strict_policy(replay_data: dict) -> None:
    replay = Replay.from_dict(edited(replay_data, lambda d: d.update(players=["<script>alert(1)</script>", "x"])))
    page = to_html(replay)
    meta = re.search(r'<meta http-equiv="Content-Security-Policy" content="([^"]*)">', page)
    assert meta, "the page declares its policy"
    csp = directives(html.unescape(meta.group(1)))
    hashes = csp_hashes(page)
    assert csp["default-src"] == ["'none'"]
    assert csp["script-src"] == hashes["script"] and csp["style-src"] == hashes["style"]
    assert "<script>alert" not in page and " style=" not in page


# ---- a full disk -------------------------------------------------------------------------------


def test_replay_save_on_a_full_disk_leaves_the_old_file(tmp_path: Path, replay_data: dict, monkeypatch) -> None:
    path = write_replay(tmp_path, replay_data)
    text = path.read_text()
    replay = Replay.from_dict(replay_data)
    full_disk(monkeypatch)
    with pytest.raises(OSError, match="No space left"):
        replay.save(path)
    monkeypatch.undo()
    assert path.read_text() == text and sorted(tmp_path.iterdir()) == [path]


def test_html_on_a_full_disk_leaves_the_old_page(tmp_path: Path, replay_data: dict, monkeypatch, capsys) -> None:
    path = write_replay(tmp_path, replay_data)
    page = tmp_path / "page.html"
    page.write_text("the old page")
    full_disk(monkeypatch)
    with pytest.raises(SystemExit) as e:
        replay_main([str(path), "--html", str(page), "--overwrite"], out=io.StringIO())
    monkeypatch.undo()
    err = capsys.readouterr().err
    assert e.value.code == 2 and "cannot write" in err and "No space left" in err and "left as it was" in err
    assert page.read_text() == "the old page"
    assert sorted(p.name for p in tmp_path.iterdir()) == ["page.html", "r.json"], "no temporary file left"


def test_terminal_play_on_a_full_disk_says_so(tmp_path: Path, monkeypatch) -> None:
    full_disk(monkeypatch)
    out = io.StringIO()
    code = play_main(
        ["--opponents", "random", "--seed", "5", "--max-turns", "4", "--replays", str(tmp_path)],
        inp=io.StringIO("1\n" * 200),
        out=out,
    )
    monkeypatch.undo()
    assert code == 1 and "The replay could not be saved to" in out.getvalue() and "No space left" in out.getvalue()
    assert list(tmp_path.iterdir()) == []


def test_a_failing_bot_is_a_json_500_and_changes_nothing(tmp_path: Path, capfd) -> None:
    server = Server(tmp_path / "replays")
    try:

        def broken(agent, env):
            raise ValueError("the bot's weights are NaN")

        server.session.act_fn = broken
        view = server.get()[1]
        while view["your_turn"]:  # up to the bot's move
            view = server.post("/api/act", {"action": view["legal"][0]["action"]})[1]
        before = server.snapshot()
        status, err = server.post("/api/bot")
        assert status == 500 and "ValueError: the bot's weights are NaN" in err["error"]
        assert server.snapshot() == before and server.get()[0] == 200
        assert "Traceback" not in capfd.readouterr().err
    finally:
        server.stop()
