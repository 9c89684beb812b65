"""``core.step_game`` / ``core.observe_game``: one game of a batch at a time (the AEC env's path).
They play the same games as ``core.step`` / ``core.observe``, on both engines; an illegal action
changes nothing; bad arguments are refused with the state unchanged. ``core.resolve_backend`` is
the one place a backend name is checked."""

from __future__ import annotations

import numpy as np
import pytest

from aos_env import core


def _arrays(state: core.State) -> dict[str, np.ndarray]:
    return {name: np.array(getattr(state, name), copy=True) for name in core.FIELD_NAMES}


def _same(a: dict, b: dict) -> bool:
    return all(np.array_equal(a[k], b[k]) for k in a)


@pytest.mark.parametrize("players", [2, 4])
def test_step_game_plays_the_games_of_step(players: int) -> None:
    batch, by_game = core.init(5, players, seed=3), core.init(5, players, seed=3)
    rng = np.random.default_rng(0)
    for _ in range(300):
        if by_game.terminated.all() | by_game.truncated.all():
            break
        game = int(rng.integers(5))
        if by_game.terminated[game] or by_game.truncated[game]:
            continue
        legal = np.flatnonzero(by_game.legal_action_mask[game])
        a = int(rng.choice(legal))
        rep = core.step_game(by_game, game, a)
        core.step(batch, np.array([a]), games=np.array([game]))
        assert _same(_arrays(batch), _arrays(by_game))
        assert rep.legal and rep == core.StepReport(
            True,
            int(batch.current_player[game]),
            int(batch.phase[game]),
            int(batch.command_number[game]),
            int(batch.turn[game]),
            int(batch.active_player[game]),
            bool(batch.terminated[game] or batch.truncated[game]),
        )
        p = int(rng.integers(players))
        obs, mask = core.observe_game(by_game, game, p, acting=True)
        assert np.array_equal(obs, core.observe(batch, p, games=np.array([game]))[0])
        assert np.array_equal(mask, batch.legal_action_mask[game].astype(np.int8)) and mask.dtype == np.int8
        obs2, quiet = core.observe_game(by_game, game, p, acting=False)
        assert np.array_equal(obs2, obs) and not quiet.any()


def test_an_illegal_action_changes_nothing() -> None:
    state = core.init(3, 3, seed=1)
    before = _arrays(state)
    illegal = int(np.flatnonzero(~state.legal_action_mask[1])[0])
    for a in (illegal, core.NUM_ACTIONS, -1, 2**40):
        rep = core.step_game(state, 1, a)
        assert not rep.legal and rep.current_player == int(state.current_player[1])
        assert _same(before, _arrays(state))
    assert f"game 1: action {illegal} " in core.describe_illegal(state, 1, illegal)
    assert "is not legal" in core.describe_illegal(state, 1, illegal)


def test_a_finished_game_ignores_the_action_as_step_does() -> None:
    state, batch = core.init(2, 2, seed=0), core.init(2, 2, seed=0)
    for s in (state, batch):
        core.truncate(s, np.array([0]))
        s.rewards[0] = 0.5  # as a game's last step leaves them: the next step sets them to 0
    for a in range(core.NUM_ACTIONS):
        assert core.step_game(state, 0, a).over
        core.step(batch, np.array([a]), games=np.array([0]))
        assert _same(_arrays(batch), _arrays(state))
    assert not state.rewards[0].any()


@pytest.mark.parametrize(
    "call, arg, allowed",
    [
        (lambda s, v: core.step_game(s, v, 0), -1, "game"),
        (lambda s, v: core.step_game(s, v, 0), 3, "game"),
        (lambda s, v: core.step_game(s, v, 0), 1.0, "game"),
        (lambda s, v: core.step_game(s, v, 0), True, "game"),
        (lambda s, v: core.step_game(s, 0, v), 1.5, "action"),
        (lambda s, v: core.step_game(s, 0, v), "3", "action"),
        (lambda s, v: core.observe_game(s, v, 0), 3, "game"),
        (lambda s, v: core.observe_game(s, 0, v), 2, "player"),
        (lambda s, v: core.observe_game(s, 0, v), -1, "player"),
    ],
)
def test_bad_arguments_are_refused_with_the_state_unchanged(call, arg, allowed: str) -> None:
    state = core.init(3, 2, seed=2)
    before = _arrays(state)
    with pytest.raises(ValueError, match=allowed):
        call(state, arg)
    assert _same(before, _arrays(state))


def test_not_a_state() -> None:
    with pytest.raises(TypeError, match="core.State"):
        core.step_game(object(), 0, 0)
    with pytest.raises(TypeError, match="core.State"):
        core.observe_game(None, 0, 0)


def test_numpy_integers_are_accepted() -> None:
    a, b = core.init(2, 2, seed=5), core.init(2, 2, seed=5)
    act = int(np.flatnonzero(a.legal_action_mask[1])[0])
    assert core.step_game(a, np.int64(1), np.int32(act)) == core.step_game(b, 1, act)


def test_resolve_backend(monkeypatch) -> None:
    assert core.resolve_backend("numpy") == "numpy" and core.resolve_backend("numba") == "numba"
    monkeypatch.setenv(core.BACKEND_ENV, "numpy")
    assert core.resolve_backend(None) == "numpy"
    monkeypatch.delenv(core.BACKEND_ENV)
    assert core.resolve_backend() == "numba"
    with pytest.raises(ValueError, match="backend"):
        core.resolve_backend("jax")


# ---- core.game_handle: the same calls with the state and the game checked once ---------------------

import copy  # noqa: E402
import pickle  # noqa: E402


@pytest.mark.parametrize("batch, game", [(1, 0), (4, 2)])
def test_a_handle_plays_the_games_of_step_game(batch: int, game: int) -> None:
    by_handle, by_call = core.init(batch, 3, seed=8), core.init(batch, 3, seed=8)
    handle = core.game_handle(by_handle, game)
    rng = np.random.default_rng(1)
    for _ in range(400):
        if by_call.terminated[game] or by_call.truncated[game]:
            break
        a = int(rng.choice(np.flatnonzero(by_call.legal_action_mask[game])))
        assert handle.step(a) == core.step_game(by_call, game, a)
        assert _same(_arrays(by_handle), _arrays(by_call))
        p = int(rng.integers(3))
        for acting in (True, False):
            obs, mask = handle.observe(p, acting)
            want_obs, want_mask = core.observe_game(by_call, game, p, acting)
            assert np.array_equal(obs, want_obs) and np.array_equal(mask, want_mask)
    illegal = (
        int(np.flatnonzero(~by_call.legal_action_mask[game])[0]) if (~by_call.legal_action_mask[game]).any() else 0
    )
    assert handle.step(illegal) == core.step_game(by_call, game, illegal)


def test_a_handle_refuses_what_the_calls_refuse() -> None:
    state = core.init(2, 2, seed=3)
    with pytest.raises(ValueError, match="game"):
        core.game_handle(state, 2)
    with pytest.raises(TypeError, match="core.State"):
        core.game_handle("state", 0)
    handle = core.game_handle(state, 1)
    before = _arrays(state)
    for call, words in (
        (lambda: handle.step(1.5), "action"),
        (lambda: handle.observe(2), "player"),
        (lambda: handle.observe(-1), "player"),
    ):
        with pytest.raises(ValueError, match=words):
            call()
    assert not handle.step(core.NUM_ACTIONS).legal and not handle.step(-3).legal
    assert _same(before, _arrays(state))


def test_a_copy_of_a_handle_plays_on_the_copy_of_its_state() -> None:
    state = core.init(2, 2, seed=4)
    handle = core.game_handle(state, 1)
    for twin in (copy.deepcopy(handle), pickle.loads(pickle.dumps(handle))):
        assert twin.state is not state and twin.game == 1
        a = int(np.flatnonzero(twin.state.legal_action_mask[1])[0])
        before = _arrays(state)
        assert twin.step(a).legal
        assert _same(before, _arrays(state)), "the copy stepped the original"
        assert not _same(_arrays(twin.state), before)
