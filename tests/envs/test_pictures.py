"""Pictures of the table: the SVG shows what the state holds (and only what the seat may see),
the AEC env's rgb_array frames, and a video through Gymnasium's RecordVideo."""

from __future__ import annotations

import itertools
import xml.etree.ElementTree as ET

import gymnasium
import numpy as np
import pytest

import aos_env
from aos_env import core, render_svg
from aos_env.core import Phase
from aos_env.tools.positions import position
from aos_env.view.svg import picture_size

NS = {"s": "http://www.w3.org/2000/svg"}


def texts(node: ET.Element) -> list[str]:
    return [t.text or "" for t in node.iter("{http://www.w3.org/2000/svg}text")]


def stat(panel: ET.Element, key: str) -> str:
    """The value of a stat chip (its second text: label, then value)."""
    chip = panel.find(f".//s:g[@data-stat='{key}']", NS)
    assert chip is not None, f"no {key} chip"
    return texts(chip)[1]


def cards_in(node: ET.Element) -> dict[str, int]:
    return {g.get("data-card"): int(g.get("data-count")) for g in node.iterfind(".//s:g[@data-card]", NS)}


def panel_of(root: ET.Element, player: int) -> ET.Element:
    panel = root.find(f".//s:g[@class='panel'][@data-player='player_{player}']", NS)
    assert panel is not None
    return panel


@pytest.fixture(scope="module")
def table() -> core.State:
    return position(
        2,
        players=[
            {
                "hand": ["Sphinx", "Imp", "Imp"],
                "mana": ["Golem", "Golem", "Imp"],
                "head": "Angel",
                "stones": ["Fairy"],
                "spirits": ["Giant", "Pegasus", "Pegasus"],
                "vp": 12,
                "faith": 4,
            },
            {"hand": ["Fairy"], "head": "Imp", "spirits": ["Titania", "Will-o'-wisp"], "vp": 3},
        ],
        deck=["Unicorn", "Unicorn"],
    )


def test_svg_parses_and_shows_the_position(table: core.State) -> None:
    root = ET.fromstring(render_svg(table, 0, seat=0))
    assert root.tag == "{http://www.w3.org/2000/svg}svg"
    assert (int(root.get("width")), int(root.get("height"))) == picture_size(2, with_hand=True)
    p0, p1 = panel_of(root, 0), panel_of(root, 1)
    assert cards_in(p0) == {"Giant": 1, "Pegasus": 2}
    assert cards_in(p1) == {"Titania": 1, "Will-o'-wisp": 1}
    assert stat(p0, "VP") == "12" and stat(p1, "VP") == "3"
    assert stat(p0, "faith") == "4 (counts 8)"  # two Pegasus: +2 each when compared
    assert stat(p1, "faith") == "1"
    assert stat(p0, "hand") == "3" and stat(p1, "hand") == "1"
    assert stat(p0, "stones") == "1"
    scores = core.final_scores(table)[0]
    assert stat(p0, "score") == str(scores[0]) and stat(p1, "score") == str(scores[1])
    assert "head: Angel (blue 5)" in texts(p0) and "head: Imp (black 1)" in texts(p1)
    # mana by colour, named as costs and buttons name it: two Golems (yellow), one Imp (black)
    assert {"yellow ×2", "black ×1"} <= set(texts(p0))
    hand = root.find(".//s:g[@class='hand']", NS)
    assert hand.get("data-player") == "player_0" and cards_in(hand) == {"Imp": 2, "Sphinx": 1}
    assert "2 yellow + 1 any" in texts(hand) and "1 black + 1 any" in texts(hand)  # colour words, not "YY*"
    status = texts(root.find(".//s:g[@class='status']", NS))
    assert "player_0 (you) to choose: Phase I: play a command card from your hand" in status


def test_svg_seats_see_only_their_own_hand(table: core.State) -> None:
    seen_by_1 = ET.fromstring(render_svg(table, 0, seat=1))
    assert cards_in(seen_by_1.find(".//s:g[@class='hand']", NS)) == {"Fairy": 1}
    public = ET.fromstring(render_svg(table, 0))
    assert public.find(".//s:g[@class='hand']", NS) is None
    assert int(public.get("height")) == picture_size(2, with_hand=False)[1]
    assert "Sphinx" not in {g.get("data-card") for g in public.iterfind(".//s:g[@data-card]", NS)}


def _first_game_in(phase: Phase, players: int = 3) -> tuple[core.State, int]:
    state = core.init(64, players, seed=1)
    rng = np.random.default_rng(0)
    for _ in range(3000):
        hit = np.flatnonzero(state.phase == phase)
        if hit.size:
            return state, int(hit[0])
        core.step(state, (rng.random(state.legal_action_mask.shape) * state.legal_action_mask).argmax(1))
    raise AssertionError(f"no game reached {phase.name}")


def test_svg_phase_three_cards_only_for_the_active_player() -> None:
    state, b = _first_game_in(Phase.KEEP)
    active = int(state.active_player[b])
    drawn = {state.cards.names[k] for k in np.flatnonzero(state.offer[b])}
    own = ET.fromstring(render_svg(state, b, seat=active)).find(".//s:g[@class='offer']", NS)
    assert set(cards_in(own)) == drawn
    other = ET.fromstring(render_svg(state, b, seat=(active + 1) % 3)).find(".//s:g[@class='offer']", NS)
    assert cards_in(other) == {} and "2 cards drawn by" in " ".join(texts(other))


def test_svg_festival_reveal_is_public() -> None:
    state, b = _first_game_in(Phase.FESTIVAL_PICK)
    revealed = {state.cards.names[k] for k in np.flatnonzero(state.offer[b])}
    offer = ET.fromstring(render_svg(state, b)).find(".//s:g[@class='offer']", NS)
    assert set(cards_in(offer)) == revealed and "Festival: revealed to all" in texts(offer)
    n = int(state.command_number[b])
    assert f"Command number {n}: Festival" in texts(ET.fromstring(render_svg(state, b)))


def test_svg_of_a_finished_game_shows_scores_and_winner() -> None:
    state = core.init(4, 2, seed=3)
    rng = np.random.default_rng(3)
    while not (state.terminated | state.truncated).all():
        core.step(state, (rng.random(state.legal_action_mask.shape) * state.legal_action_mask).argmax(1))
    b = int(np.flatnonzero(state.terminated)[0])
    root = ET.fromstring(render_svg(state, b))
    status = root.find(".//s:g[@class='status']", NS)
    winner = int(np.argmax(state.rewards[b]))
    scores = core.final_scores(state)[b]
    assert f"Game over: player_{winner} wins with {scores[winner]} points" in texts(status)
    for p in range(2):
        assert stat(status, f"player_{p}") == str(scores[p])
    assert f"game {b} of 4" in " ".join(texts(root))


def test_render_svg_argument_errors(table: core.State) -> None:
    with pytest.raises(ValueError, match=r"game must be an int from 0 to 0 \(the batch holds 1 games\), got 99"):
        render_svg(table, game=99)
    with pytest.raises(ValueError, match="seat must be None .* from 0 to 1, got 2"):
        render_svg(table, seat=2)
    with pytest.raises(TypeError, match="state must be an aos_env.core.State"):
        render_svg("not a state")


def test_state_shows_itself_in_jupyter(table: core.State) -> None:
    assert table._repr_svg_() == render_svg(table, 0, int(table.current_player[0]))


# ---- frames --------------------------------------------------------------------------------------


def test_rgb_array_frames() -> None:
    env = aos_env.env(num_players=3, render_mode="rgb_array")
    env.reset(seed=4)
    first = env.render()
    width, height = picture_size(3, with_hand=True)
    assert first.shape == (height, width, 3) and first.dtype == np.uint8
    assert tuple(first[4, 4]) == (0x3D, 0x33, 0x50)  # the header band
    title = first[10:34, 16:230]
    assert (title.min(axis=2) > 200).sum() > 300, "the title's white text is drawn (a font was found)"
    rng = np.random.default_rng(0)
    frames = [first]
    for _ in range(6):
        obs = env.observe(env.agent_selection)
        env.step(int(rng.choice(np.flatnonzero(obs["action_mask"]))))
        frames.append(env.render())
    assert all(f.shape == first.shape for f in frames)
    assert all(not np.array_equal(a, b) for a, b in itertools.pairwise(frames)), "every move changes the picture"


def test_pettingzoo_render_test() -> None:
    from pettingzoo.test import render_test

    render_test(lambda render_mode=None: aos_env.env(num_players=2, render_mode=render_mode))


class OneSeat(gymnasium.Env):
    """Seat 0 of the AEC env as a Gymnasium env (random opponents), to put RecordVideo around it."""

    metadata = {"render_modes": ["rgb_array"], "render_fps": 4}

    def __init__(self, max_turns: int) -> None:
        self.aec = aos_env.raw_env(num_players=2, render_mode="rgb_array", max_turns=max_turns)
        self.render_mode = "rgb_array"
        self.observation_space = self.aec.observation_space("player_0")["observation"]
        self.action_space = self.aec.action_space("player_0")
        self.rng = np.random.default_rng(0)

    def _others(self) -> None:
        while (
            self.aec.agent_selection != "player_0"
            and not self.aec.terminations["player_0"]
            and not self.aec.truncations["player_0"]
        ):
            mask = self.aec.observe(self.aec.agent_selection)["action_mask"]
            self.aec.step(int(self.rng.choice(np.flatnonzero(mask))))

    def reset(self, seed=None, options=None):
        super().reset(seed=seed)
        self.aec.reset(seed=seed)
        self._others()
        return self.aec.observe("player_0")["observation"], {}

    def step(self, action):
        self.aec.step(int(action))
        self._others()
        obs = self.aec.observe("player_0")["observation"]
        aec = self.aec
        return obs, aec.rewards["player_0"], aec.terminations["player_0"], aec.truncations["player_0"], {}

    def legal(self) -> int:
        return int(self.rng.choice(np.flatnonzero(self.aec.observe("player_0")["action_mask"])))

    def render(self):
        return self.aec.render()


def test_record_video_writes_an_mp4(tmp_path) -> None:
    from gymnasium.wrappers import RecordVideo  # writes with moviepy (the render extra)

    folder = tmp_path / "videos"
    env = RecordVideo(
        OneSeat(max_turns=4), video_folder=str(folder), episode_trigger=lambda episode: True, disable_logger=True
    )
    env.reset(seed=2)
    steps, done = 0, False
    while not done:
        _, _, terminated, truncated, _ = env.step(env.unwrapped.legal())
        done = terminated or truncated
        steps += 1
    env.close()
    videos = list(folder.glob("*.mp4"))
    assert steps >= 2 and len(videos) == 1 and videos[0].stat().st_size > 1000


def test_a_fixed_seat_keeps_frames_on_one_hand() -> None:
    """render_seat: every frame shows the same seat's hand (a video does not jump between seats)."""
    env = aos_env.env(num_players=3, render_mode="ansi", render_seat=2)
    env.reset(seed=4)
    rng = np.random.default_rng(0)
    seen = set()
    for _ in range(12):
        seen.add(env.agent_selection)
        assert "Your hand (player_2)" in env.render()
        obs = env.observe(env.agent_selection)
        env.step(int(rng.choice(np.flatnonzero(obs["action_mask"]))))
    assert len(seen) > 1, "the frames span more than one player's decisions"
    free = aos_env.env(num_players=3, render_mode="ansi")
    free.reset(seed=4)
    assert f"Your hand ({free.agent_selection})" in free.render()
    with pytest.raises(ValueError, match="render_seat"):
        aos_env.env(num_players=3, render_seat=3)


def test_svg_of_a_watched_game_says_no_you(table: core.State) -> None:
    """A replay of bots marks the seat whose hand is shown, and never calls anyone "you"."""
    watched = render_svg(table, 0, 1, you=None)
    root = ET.fromstring(watched)
    words = " ".join(texts(root))
    assert "hand shown" in words and "(you)" not in words and " you" not in words.replace("your", "")
    assert root.get("role") == "img" and root.get("aria-label", "").startswith("the table")
    assert "you" in " ".join(texts(ET.fromstring(render_svg(table, 0, 1))))
