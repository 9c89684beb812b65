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
            True, int(batch.current_player[game]), int(batch.phase[game]), int(batch.command_number[game]),
            int(batch.turn[game]), int(batch.active_player[game]), bool(batch.terminated[game] or batch.truncated[game]))
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
    assert "not legal" in core.describe_illegal(state, 1, illegal) or core.describe_illegal(state, 1, illegal)


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


@pytest.mark.parametrize("call, arg, allowed", [
    (lambda s, v: core.step_game(s, v, 0), -1, "game"),
    (lambda s, v: core.step_game(s, v, 0), 3, "game"),
    (lambda s, v: core.step_game(s, v, 0), 1.0, "game"),
    (lambda s, v: core.step_game(s, v, 0), True, "game"),
    (lambda s, v: core.step_game(s, 0, v), 1.5, "action"),
    (lambda s, v: core.step_game(s, 0, v), "3", "action"),
    (lambda s, v: core.observe_game(s, v, 0), 3, "game"),
    (lambda s, v: core.observe_game(s, 0, v), 2, "player"),
    (lambda s, v: core.observe_game(s, 0, v), -1, "player"),
])
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
