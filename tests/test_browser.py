"""The HTML replay page and the browser play page, driven in headless Chromium with Playwright,
and the play server's JSON errors.

Chromium comes from Debian (``apt-get install chromium``; ``.ci/run`` installs it): Playwright
only drives it. Without it these tests are skipped locally and fail under CI.
"""

from __future__ import annotations

import io
import json
import os
import re
import subprocess
import sys
import threading
import time
import urllib.error
import urllib.request
from pathlib import Path

import numpy as np
import pytest

import aos_env
from aos_env import core
from aos_env.apps.web import Session, serve
from aos_env.view.replay import load_replay, to_html

ROOT = Path(__file__).resolve().parent.parent
CHROMIUM = "/usr/bin/chromium"
CHROMIUM_ARGS = [
    "--headless",
    "--no-sandbox",
    "--disable-gpu",
    "--disable-quic",
    "--no-first-run",
    "--disable-background-networking",
    "--disable-component-update",
    "--disable-sync",
]


@pytest.fixture(scope="module")
def browser(tmp_path_factory):
    missing = None
    try:
        from playwright.sync_api import sync_playwright
    except ImportError:
        missing = "the Python package playwright (pip install -e '.[dev]')"
    if missing is None and not Path(CHROMIUM).exists():
        missing = f"Chromium at {CHROMIUM} (apt-get install chromium)"
    if missing:
        if os.environ.get("CI"):
            pytest.fail(f"CI must install {missing}")
        pytest.skip(f"needs {missing}")
    with sync_playwright() as pw:
        context = pw.chromium.launch_persistent_context(
            str(tmp_path_factory.mktemp("chromium-profile")),
            executable_path=CHROMIUM,
            args=CHROMIUM_ARGS,
            headless=True,
            viewport={"width": 1400, "height": 1000},
        )
        yield context
        context.close()


def short_game(tmp_path: Path) -> Path:
    env = aos_env.env(num_players=2, max_turns=6, record_replay=True)
    env.reset(seed=8)
    rng = np.random.default_rng(8)
    for agent in env.agent_iter():
        obs, _, term, trunc, _ = env.last()
        env.step(None if term or trunc else int(rng.choice(np.flatnonzero(obs["action_mask"]))))
    return env.unwrapped.save_replay(tmp_path / "short.json", players=["random", "random"])


def test_html_replay_steps_through_the_game(browser, tmp_path: Path) -> None:
    replay = load_replay(short_game(tmp_path))
    states = list(replay.states())
    page_file = tmp_path / "replay.html"
    page_file.write_text(to_html(replay, states), encoding="utf-8")
    page = browser.new_page()
    requests: list[str] = []
    page.on("request", lambda r: requests.append(r.url))
    page.goto(page_file.as_uri())
    last = len(states)

    def shown() -> int:
        visible = page.locator(".pos:not([hidden])")
        assert visible.count() == 1, "exactly one position is shown"
        return int(visible.get_attribute("id")[3:])

    assert shown() == 0 and page.locator("#counter").text_content() == f"position 1 of {last}"
    assert page.locator("#caption").text_content().startswith(f"Move 1 of {last - 1}, turn 1: ")
    assert page.locator("#weighed").text_content() == "Nothing recorded about what this player weighed."
    assert page.locator("#prev").is_disabled()
    page.keyboard.press("ArrowRight")
    page.keyboard.press("ArrowRight")
    assert shown() == 2 and page.locator("#counter").text_content() == f"position 3 of {last}"
    page.keyboard.press("ArrowLeft")
    assert shown() == 1
    page.click("#next")
    assert shown() == 2
    page.keyboard.press("End")
    assert shown() == last - 1 and page.locator("#next").is_disabled()
    final = page.locator(f'.move[data-i="{last - 1}"]')
    assert "current" in final.get_attribute("class") and final.get_attribute("aria-current") == "step"
    assert final.text_content().startswith(("Game over", "The replay ends"))
    scores = core.final_scores(states[-1])[0]
    assert page.locator("#caption").text_content().endswith(f"player_0 {scores[0]}, player_1 {scores[1]}")
    page.click("#first")
    assert shown() == 0
    page.locator(".move").nth(4).click()  # the list of moves: position 4 is the one before move 5
    assert shown() == 4 and "current" in page.locator(".move").nth(4).get_attribute("class")
    svg_text = page.locator("#pos4 svg").text_content()
    assert "player_0" in svg_text and "player_1" in svg_text
    assert all(url.startswith("file://") for url in requests), f"no external assets: {requests}"
    page.close()


def test_html_replay_explains_the_bot(browser, tmp_path: Path) -> None:
    """The replay page of a bot's game: the bot's weighing as bars beside the move, every hand at the
    switch, the score timeline following the position, and no "(you)" in a game without a person."""
    from agents import make_agent

    from aos_env.view.explain import weigh_replay

    replay = load_replay(short_game(tmp_path))
    replay.players = ["bot", "random"]
    assert weigh_replay(replay, [make_agent("bot"), make_agent("random")]) > 0
    states = list(replay.states())
    page_file = tmp_path / "replay.html"
    page_file.write_text(to_html(replay, states), encoding="utf-8")
    page = browser.new_page()
    page.goto(page_file.as_uri())
    first = next(i for i in range(len(replay.actions)) if replay.weighing(i))
    page.locator(".move").nth(first).click()
    rows = page.locator("#weighed .row")
    assert rows.count() == len(replay.weighing(first)["actions"])
    assert "%" in rows.first.locator(".num").text_content()
    assert page.locator("#weighed .chosen").count() == 1
    assert "Value estimate" in page.locator("#weighed").text_content()
    assert page.locator("#hands").is_hidden()
    page.locator("#all-hands").check()
    hands = page.locator("#hands li").all_text_contents()
    assert [h.split(":")[0] for h in hands] == ["player_0 (bot)", "player_1 (random)"]
    x = page.locator("#tl-now").get_attribute("x1")
    page.keyboard.press("End")
    assert page.locator("#tl-now").get_attribute("x1") != x, "the timeline marker follows the position"
    assert page.locator("#timeline polyline").count() == 4  # score and VP of each player
    assert "(you)" not in page.locator("body").text_content()
    page.close()


def start_play_server(tmp_path: Path, *args: str) -> tuple[subprocess.Popen, str]:
    proc = subprocess.Popen(
        [sys.executable, "-m", "aos_env.apps.play", "--web", "--port", "0", "--replays", str(tmp_path), *args],
        stdout=subprocess.PIPE,
        stderr=subprocess.STDOUT,
        text=True,
        cwd=ROOT,
        env=dict(os.environ, PYTHONPATH=str(ROOT)),
    )
    deadline = time.monotonic() + 60
    while time.monotonic() < deadline:
        line = proc.stdout.readline()
        match = re.search(r"open (http://127\.0\.0\.1:\d+/)", line)
        if match:
            return proc, match.group(1)
        if not line and proc.poll() is not None:
            break
    proc.kill()
    raise AssertionError(f"the play server did not start: {proc.stdout.read()}")


def test_play_page_whole_game_against_the_trained_bot(browser, tmp_path: Path) -> None:
    """Issue 16's acceptance: a whole game in the browser against the shipped trained bot."""
    proc, url = start_play_server(tmp_path, "--opponents", "bot", "--seed", "11", "--max-turns", "8", "--delay", "0")
    try:
        page = browser.new_page()
        page.goto(url)
        clicks = 0
        for _ in range(400):
            page.wait_for_selector("#actions button.action:enabled, #result:not([hidden])", timeout=30_000)
            if page.locator("#result").is_visible():
                break
            page.locator("#actions button.action:enabled").first.click()
            clicks += 1
        assert page.locator("#result").is_visible() and clicks > 0
        shown = {
            row.get_attribute("data-player"): int(row.locator("td.score").text_content())
            for row in page.locator("#scores tr").all()
        }
        files = list(tmp_path.glob("game-*-seed11.json"))
        assert len(files) == 1
        replay = load_replay(files[0])
        final = replay.final_state()
        assert replay.players == ["human", "bot"]
        assert shown == {f"player_{p}": int(s) for p, s in enumerate(core.final_scores(final)[0])}
        assert files[0].name in page.locator("#replay").text_content()
        bot_moves = [i for i, (p, _) in enumerate(replay.actions) if p == 1]
        assert any(replay.weighing(i) for i in bot_moves), "the bot's moves record what it weighed"
        assert not any(replay.weighing(i) for i in range(len(replay.actions)) if i not in bot_moves)
        you = sum(1 for p, _ in replay.actions if p == 0)
        assert you == clicks, "every click is one of the human's recorded moves"
        moves = page.locator("#log li")
        assert moves.count() == len(replay.actions) and "player_1 (bot)" in " ".join(moves.all_text_contents())
        svg = page.locator("#table svg")
        assert "Game over" in svg.text_content()
        # a second game: the new-game button starts another one
        page.click("#new")
        # locator waits, not wait_for_function: the page's Content-Security-Policy forbids the eval that
        # a JavaScript-string wait needs (which is the point of the policy)
        page.locator("#info", has_text="game 2").wait_for(timeout=30_000)
        page.wait_for_selector("#actions button.action:enabled", timeout=30_000)
        assert page.locator("#result").is_hidden()
        before = page.locator("#log li").count()
        page.locator("#actions button.action:enabled").first.click()
        page.locator("#log li").nth(before).wait_for(timeout=30_000)
        page.close()
    finally:
        proc.terminate()
        proc.wait(timeout=30)
    assert len(list(tmp_path.glob("game-*.json"))) == 2, "the unfinished second game is saved when the server stops"


@pytest.fixture()
def api(tmp_path: Path):
    """The play server in a thread (the same code as --web), with a random bot."""
    from agents import make_agent

    session = Session(
        2,
        0,
        lambda seed: {1: ("random", make_agent("random", seed=seed))},
        max_turns=10,
        replays=tmp_path,
        seed=4,
        delay=0,
    )
    started = threading.Event()
    holder = {}

    def ready(server) -> None:
        holder["server"] = server
        started.set()

    thread = threading.Thread(
        target=serve, args=(session,), kwargs=dict(port=0, out=io.StringIO(), ready=ready), daemon=True
    )
    thread.start()
    assert started.wait(30)
    server = holder["server"]
    base = f"http://127.0.0.1:{server.server_address[1]}"

    def call(path: str, body=None, method: str | None = None, raw: bytes | None = None):
        data = raw if raw is not None else (None if body is None else json.dumps(body).encode())
        headers = {} if data is None else {"Content-Type": "application/json"}  # the server takes JSON only
        req = urllib.request.Request(
            base + path, data=data, headers=headers, method=method or ("GET" if data is None else "POST")
        )
        try:
            with urllib.request.urlopen(req, timeout=30) as r:
                return r.status, json.loads(r.read())
        except urllib.error.HTTPError as e:
            return e.code, json.loads(e.read())

    yield call, session
    server.shutdown()
    thread.join(30)


def test_play_api_errors(api) -> None:
    call, session = api
    status, view = call("/api/state")
    assert status == 200 and view["seed"] == 4 and view["you"] == "player_0"
    while not view["your_turn"]:
        status, view = call("/api/bot", {})
        assert status == 200
    assert call("/api/bot", {})[0] == 409
    assert call("/nowhere")[0] == 404 and "no such page" in call("/nowhere")[1]["error"]
    status, err = call("/api/act", method="GET")
    assert status == 405 and "takes POST" in err["error"]
    assert call("/api/act", raw=b"{not json")[0] == 400
    assert call("/api/act", raw=b"[1, 2]") == (400, {"error": "the body must be a JSON object"})
    assert call("/api/act", {})[1]["error"] == 'the body must be {"action": <action id>}'
    assert "must be an action id" in call("/api/act", {"action": "1"})[1]["error"]
    illegal = next(a for a in range(core.NUM_ACTIONS) if a not in {x["action"] for x in view["legal"]})
    status, err = call("/api/act", {"action": illegal})
    assert status == 400 and f"action {illegal} is not legal now; legal: " in err["error"]
    assert call("/api/act", raw=b"x" * 5000)[0] == 413
    assert call("/api/new", {"seed": "abc"})[0] == 400
    status, view2 = call("/api/act", {"action": view["legal"][0]["action"]})
    assert status == 200 and view2["moves"][-1]["who"] == "you"
    status, view3 = call("/api/new", {"seed": 9})
    assert status == 200 and view3["game"] == 2 and view3["seed"] == 9 and view3["moves"] == []
    assert len(list(session.replays.glob("game-*-seed4.json"))) == 1, "the unfinished game's replay was kept"


@pytest.mark.parametrize(
    "args, message",
    [
        (["--seat", "2"], "--seat: must be an int 0..1 with --players 2, got 2"),
        (["--opponents", ","], "--opponents: needs at least one bot spec"),
        (["--opponents", "chess_engine"], "--opponents: unknown agent 'chess_engine'"),
        (["--port", "70000"], "--port: must be an int 0..65535"),
        (["--delay", "-1"], "--delay: must be"),
    ],
)
def test_play_cli_option_errors(args: list[str], message: str, capsys) -> None:
    from aos_env.apps.play import main as play_main

    with pytest.raises(SystemExit) as e:
        play_main(["--web", "--no-replays", *args])
    assert e.value.code == 2 and message in capsys.readouterr().err


def test_play_cli_port_in_use(capsys) -> None:
    import socket

    from aos_env.apps.play import main as play_main

    with socket.socket() as taken:
        taken.bind(("127.0.0.1", 0))
        taken.listen()
        port = taken.getsockname()[1]
        with pytest.raises(SystemExit) as e:
            play_main(["--web", "--no-replays", "--port", str(port)])
    assert e.value.code == 2 and f"--port {port}: cannot listen there" in capsys.readouterr().err
