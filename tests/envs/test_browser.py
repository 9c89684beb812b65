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

ROOT = Path(__file__).resolve().parents[2]
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
    for _agent in env.agent_iter():
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
            page.locator("#actions button.action:not(.warn):enabled").first.click()
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
        # a second game: the new-game button (in the settings, which say the game in progress ends) starts another
        page.click("#settings summary")
        assert "ends the one in progress" in page.locator("#settings").text_content()
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
    assert view3["game_id"] != view["game_id"]
    # issue 33: a click from the page of the game before (a stale tab) is refused, and changes nothing
    while not view3["your_turn"]:
        view3 = call("/api/bot", {"game_id": view3["game_id"]})[1]
    status, err = call("/api/act", {"action": view3["legal"][0]["action"], "game_id": view["game_id"]})
    assert status == 409 and "another game" in err["error"] and "reload the page" in err["error"]
    assert call("/api/bot", {"game_id": view["game_id"]})[0] == 409
    assert call("/api/state")[1]["moves"] == view3["moves"]
    status, view4 = call("/api/act", {"action": view3["legal"][0]["action"], "game_id": view3["game_id"]})
    assert status == 200 and len(view4["moves"]) == len(view3["moves"]) + 1
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


# ---- a table a newcomer can play, on any screen ------------------------------------------------

#: The window sizes the pages are checked at: a desktop, a phone, and the narrowest screen supported.
DESKTOP, PHONE, NARROW = (1280, 900), (390, 844), (360, 740)
#: The smallest text the pages may show, in CSS px (outside the pictures).
MIN_TEXT_PX = 11
#: Where the tests find axe-core (``npm pack axe-core@4``; .ci/run puts it there), or $AOS_AXE_JS.
AXE_JS = Path(os.environ.get("AOS_AXE_JS", ROOT / ".cache" / "axe-core" / "axe.min.js"))


def sized_page(browser, size: tuple[int, int]):
    page = browser.new_page()
    page.set_viewport_size({"width": size[0], "height": size[1]})
    return page


def layout_problems(page, width: int) -> list[str]:
    """What is wrong with the page's layout at ``width``: sideways scroll, HTML text under MIN_TEXT_PX."""
    problems = []
    scroll = page.evaluate("document.documentElement.scrollWidth")
    if scroll > width:
        problems.append(f"the page is {scroll} px wide in a {width} px window")
    small = page.evaluate(
        """(min) => [...document.querySelectorAll('body *')].filter((e) => !e.closest('svg')
             && [...e.childNodes].some((n) => n.nodeType === 3 && n.textContent.trim())
             && e.getClientRects().length && parseFloat(getComputedStyle(e).fontSize) < min)
           .map((e) => e.tagName + ' ' + getComputedStyle(e).fontSize + ' ' + e.textContent.slice(0, 30))""",
        MIN_TEXT_PX,
    )
    problems += [f"text under {MIN_TEXT_PX} px: {t}" for t in small]
    return problems


def axe_violations(page) -> list[str]:
    """Serious and critical accessibility violations axe-core finds on the page (WCAG 2.x A and AA)."""
    if not AXE_JS.is_file():
        if os.environ.get("CI"):
            pytest.fail(f"CI must install axe-core at {AXE_JS} (npm pack axe-core@4)")
        pytest.skip(f"needs axe-core at {AXE_JS} (npm pack axe-core@4, or set AOS_AXE_JS)")
    # evaluated through the debugging protocol: the page's own policy, which admits no other script, holds
    found = page.evaluate(
        AXE_JS.read_text(encoding="utf-8")
        + """;axe.run(document, {runOnly: {type: 'tag', values: ['wcag2a', 'wcag2aa', 'wcag21aa']}})
              .then((r) => r.violations.filter((v) => ['serious', 'critical'].includes(v.impact))
              .map((v) => v.id + ': ' + v.help + ' (' + v.nodes.slice(0, 3).map((n) => n.target.join(' '))
                   .join(', ') + ')'))"""
    )
    return found


@pytest.fixture()
def newcomer_server(tmp_path: Path):
    proc, url = start_play_server(
        tmp_path, "--players", "3", "--opponents", "bot,greedy", "--seed", "11", "--max-turns", "30", "--delay", "0"
    )
    yield url
    proc.terminate()
    proc.wait(timeout=30)


def wait_for_your_move(page) -> None:
    page.wait_for_selector("#actions button.action:enabled", timeout=30_000)


@pytest.mark.parametrize("size", [DESKTOP, PHONE], ids=["desktop", "phone"])
def test_play_page_a_newcomer_can_read_and_play(browser, newcomer_server: str, size) -> None:
    page = sized_page(browser, size)
    page.goto(newcomer_server)
    wait_for_your_move(page)
    # focus is on the first action, the status is announced, the picture is an image
    assert page.evaluate("document.activeElement.dataset.action") == page.locator(
        "#actions button"
    ).first.get_attribute("data-action")
    assert page.locator("#status").get_attribute("aria-live") == "polite"
    assert page.locator("#table svg").get_attribute("role") == "img"
    # the rules: the command numbers, the end, the seats with neighbours named
    page.click("#rules summary")
    rules = page.locator("#rules").text_content()
    assert "10 or more spirits" in rules and "30 or more VP" in rules and "3 or less" in rules
    assert all(a in rules for a in ("Conquest", "Research", "Alchemy", "Prayer", "Festival", "Inquisition"))
    seats = page.locator("#seats li").all_text_contents()
    assert seats[0].startswith("player_0 (you)") and "left neighbour player_1, right neighbour player_2" in seats[0]
    turn = page.locator("#turn").text_content()
    assert "turn limit" in turn and not re.search(r"[Tt]urn \d+ of \d+", turn + page.locator("#table").text_content())
    # card text by tap: from the hand list and from the picture
    page.locator("#hand-list button").first.click()
    assert page.locator("#card").is_visible() and page.locator("#card-text").text_content()
    assert "cost" in page.locator("#card-facts").text_content()
    page.click("#card-close")
    page.locator("#table g.hand [data-card]").first.click()
    assert page.locator("#card").is_visible()
    page.click("#card-close")
    assert not layout_problems(page, size[0]), layout_problems(page, size[0])
    # a number key plays; afterwards focus is back on the first action
    before = page.locator("#log li").count()
    page.locator("#actions button").first.focus()
    page.keyboard.press("1")
    page.locator("#log li").nth(before).wait_for(timeout=30_000)
    for _ in range(40):  # play on until the bots have moved and it is our move again
        wait_for_your_move(page)
        if page.locator("#log li", has_text="player_1 (bot)").count():
            break
        page.keyboard.press("1")
    wait_for_your_move(page)
    assert page.evaluate("document.activeElement.classList.contains('action')")
    log = page.locator("#log li").all_text_contents()
    bots = [line for line in log if "player_1 (bot)" in line or "player_2 (greedy)" in line]
    assert bots and not any(" your " in line.split("then")[0] for line in bots), "bots are in the third person"
    assert any("then " in line and ("VP" in line or "card" in line or "mana" in line) for line in log)
    page.close()


def test_play_page_settings_start_the_game_asked_for(browser, newcomer_server: str) -> None:
    page = sized_page(browser, DESKTOP)
    page.goto(newcomer_server)
    wait_for_your_move(page)
    page.click("#settings summary")
    page.select_option("#set-players", "2")
    assert page.locator("#set-opponents select").count() == 1
    page.select_option("#set-opp-0", "random")
    page.fill("#set-seed", "77")
    page.click("#new")
    page.locator("#info", has_text="game 2").wait_for(timeout=30_000)
    assert "seed 77" in page.locator("#info").text_content()
    assert "player_1 (random)" in page.locator("#info").text_content()
    assert page.locator("#seats li").count() == 2
    page.close()


def declare_position(behind: bool):
    """A 2-player position where player_0 is asked whether to declare the end, behind or not."""
    for seed in range(200):
        state = core.init(1, 2, seed=seed)
        rng = np.random.default_rng(seed)
        while not (state.terminated[0] or state.truncated[0]):
            if state.phase[0] == core.Phase.DECLARE and state.current_player[0] == 0:
                scores = core.final_scores(state)[0]
                if (scores[0] <= scores[1]) == behind:
                    return state
            core.step(state, np.array([rng.choice(np.flatnonzero(state.legal_action_mask[0]))]))
    raise AssertionError("no such position in 200 random games")


def test_declaring_while_behind_asks_first(browser) -> None:
    from aos_env.view.table import action_notes

    ahead = declare_position(behind=False)
    assert "warn" not in action_notes(ahead, core.YES, 0)
    state = declare_position(behind=True)
    assert "You are behind" in action_notes(state, core.YES, 0)["warn"]
    assert "warn" not in action_notes(state, core.NO, 0)
    session = Session(2, 0, lambda seed: {1: ("greedy", None)}, max_turns=200, replays=None, seed=1, delay=0)
    session.env.load_state(state)
    started = threading.Event()
    holder = {}
    thread = threading.Thread(
        target=serve,
        args=(session,),
        kwargs=dict(port=0, out=io.StringIO(), ready=lambda s: (holder.update(server=s), started.set())),
        daemon=True,
    )
    thread.start()
    assert started.wait(30)
    try:
        page = sized_page(browser, PHONE)
        page.goto(f"http://127.0.0.1:{holder['server'].server_address[1]}/")
        wait_for_your_move(page)
        page.locator("#actions button.warn").click()
        assert page.locator("#confirm").is_visible() and "You are behind" in page.locator("#confirm").text_content()
        assert page.evaluate("document.activeElement.id") == "confirm-no", "the safe answer has the focus"
        assert page.locator("#log li").count() == 0, "nothing was played yet"
        page.click("#confirm-no")
        assert page.locator("#confirm").is_hidden() and page.locator("#log li").count() == 0
        page.locator("#actions button.warn").click()
        page.click("#confirm-yes")
        page.locator("#log li").first.wait_for(timeout=30_000)
        assert "declare the end" in page.locator("#log li").first.text_content()
        page.close()
    finally:
        holder["server"].shutdown()
        thread.join(30)


@pytest.mark.parametrize("size", [DESKTOP, PHONE, NARROW], ids=["desktop", "phone", "narrow"])
def test_replay_page_fits_and_is_accessible(browser, tmp_path: Path, size) -> None:
    from agents import make_agent
    from aos_env.view.explain import weigh_replay

    replay = load_replay(short_game(tmp_path))
    replay.players = ["bot", "random"]
    weigh_replay(replay, [make_agent("bot"), make_agent("random")])
    page_file = tmp_path / "replay.html"
    page_file.write_text(to_html(replay), encoding="utf-8")
    page = sized_page(browser, size)
    page.goto(page_file.as_uri())
    page.keyboard.press("ArrowRight")
    page.locator("#all-hands").check()
    assert not layout_problems(page, size[0]), layout_problems(page, size[0])
    assert page.evaluate("window.scrollX") == 0
    if size != NARROW:
        assert axe_violations(page) == []
    page.close()


@pytest.mark.parametrize("size", [DESKTOP, PHONE, NARROW], ids=["desktop", "phone", "narrow"])
def test_play_page_fits_and_is_accessible(browser, newcomer_server: str, size) -> None:
    page = sized_page(browser, size)
    page.goto(newcomer_server)
    wait_for_your_move(page)
    page.click("#rules summary")
    page.click("#settings summary")
    page.locator("#hand-list button").first.click()
    assert not layout_problems(page, size[0]), layout_problems(page, size[0])
    if size != NARROW:
        assert axe_violations(page) == []
    page.close()
