"""What docs/api.md promises: batch independence, seeding, clear errors that leave the state unchanged."""

from __future__ import annotations

import numpy as np
import pytest
from helpers import action_id

from aos_env import core
from aos_env.core import Phase
from aos_env.tools.positions import position


def arrays(state: core.State) -> dict[str, np.ndarray]:
    return {name: getattr(state, name).copy() for name in core.FIELD_NAMES}


def assert_same(a: dict, b: dict, where: str = "") -> None:
    for name in a:
        np.testing.assert_array_equal(a[name], b[name], err_msg=f"{where}: field {name}")


def policy(state: core.State, step: int, seeds: np.ndarray) -> np.ndarray:
    """A random legal action that depends only on (game seed, step): the same in any batch."""
    out = np.zeros(state.batch_size, dtype=np.int64)
    for i in range(state.batch_size):
        legal = np.nonzero(state.legal_action_mask[i])[0]
        if legal.size:
            out[i] = legal[np.random.default_rng([int(seeds[i]), step]).integers(legal.size)]
    return out


@pytest.mark.parametrize("players", [2, 3, 4])
def test_batch_of_64_equals_64_single_games(players: int) -> None:
    B, seed = 64, 100
    seeds = seed + np.arange(B)
    batch = core.init(B, players, seed=seed)
    singles = [core.init(1, players, seed=int(s)) for s in seeds]
    for step in range(150):
        acts = policy(batch, step, seeds)
        for b, single in enumerate(singles):
            assert_same(arrays(single), {k: v[b : b + 1] for k, v in arrays(batch).items()}, f"game {b} step {step}")
            core.step(single, acts[b : b + 1])
        core.step(batch, acts)


def test_seed_array_and_int_seed_agree() -> None:
    a = core.init(5, 3, seed=42)
    b = core.init(5, 3, seed=np.arange(42, 47))
    assert_same(arrays(a), arrays(b))
    c = core.init(5, 3, seed=43)
    assert not np.array_equal(a.hand, c.hand)


def test_same_seed_same_game() -> None:
    a, b = core.init(8, 4, seed=9), core.init(8, 4, seed=9)
    for step in range(50):
        acts = policy(a, step, np.arange(8))
        core.step(a, acts)
        core.step(b, acts)
    assert_same(arrays(a), arrays(b))


def test_init_deals_per_R2() -> None:
    """R2.2-R2.5: 6 cards in hand, 2 mana with the second as head, faith 1, no VP."""
    state = core.init(50, 4, seed=3)
    assert (state.hand.sum(2) + state.spirits.sum(2) >= 5).all()
    assert (state.vp == 0).all() and (state.declarer == -1).all() and (state.turn == 0).all()
    others = np.arange(4)[None, :] != state.active_player[:, None]
    assert (state.hand.sum(2)[others] == 6).all()
    assert (state.mana.sum(2)[others] == 2).all()
    assert (state.faith[others] == 1).all()
    assert (state.head[others] >= 0).all()
    assert len(set(state.active_player.tolist())) == 4, "start player is random"


@pytest.mark.parametrize("bad", [1, 5, 0, 2.0, True, "3"])
def test_init_rejects_bad_player_count(bad) -> None:
    with pytest.raises(ValueError, match="num_players"):
        core.init(2, bad)


def test_init_rejects_bad_arguments() -> None:
    with pytest.raises(ValueError, match="num_envs"):
        core.init(0, 2)
    with pytest.raises(ValueError, match="seed"):
        core.init(3, 2, seed=np.arange(4))
    with pytest.raises(ValueError, match="max_turns"):
        core.init(3, 2, max_turns=0)


def test_step_errors_leave_state_unchanged() -> None:
    state = core.init(4, 3, seed=1)
    before = arrays(state)
    good = np.argmax(state.legal_action_mask, axis=1)
    cases = [
        (good[:3], "shape"),
        (good.reshape(2, 2), "shape"),
        (good.astype(np.float64), "integers"),
        (good.astype(bool), "integers"),
        (np.full(4, 99), "not an action id"),
        (np.full(4, -1), "not an action id"),
    ]
    illegal = good.copy()
    illegal[2] = int(np.nonzero(~state.legal_action_mask[2])[0][0])
    cases.append((illegal, "game 2"))
    for acts, msg in cases:
        with pytest.raises(ValueError, match=msg):
            core.step(state, acts)
        assert_same(before, arrays(state), f"after rejecting {msg}")
    # the refused calls left a working state: it takes its legal actions as a fresh one does
    fresh = core.init(4, 3, seed=1)
    core.step(state, good)
    core.step(fresh, good)
    assert_same(arrays(fresh), arrays(state), "stepping after the refused calls")
    assert any(not np.array_equal(v, before[name]) for name, v in arrays(state).items()), "the step changed nothing"


def test_illegal_action_message_names_action_phase_and_legal_actions() -> None:
    state = position(2, players=[{"hand": ["Imp", "Angel"]}, {}])
    with pytest.raises(ValueError) as err:
        core.step(state, [action_id("ACT")])
    text = str(err.value)
    assert "ACT" in text and "COMMAND" in text and "CARD_0" in text and "CARD_21" in text


def test_finished_games_ignore_actions() -> None:
    state = core.init(3, 2, seed=0, max_turns=1)
    rng = np.random.default_rng(0)
    while not state.truncated.all():
        a = (rng.random(state.legal_action_mask.shape) * state.legal_action_mask).argmax(1)
        core.step(state, a)
    before = arrays(state)
    core.step(state, np.array([7, 99, -5]))
    after = arrays(state)
    assert_same(before, after)


def test_observe_player_argument() -> None:
    state = core.init(3, 3, seed=0)
    assert core.observe(state, 0).shape == (3, core.OBS_DIM)
    assert core.observe(state, state.current_player).dtype == np.float32
    with pytest.raises(ValueError, match="player"):
        core.observe(state, 3)


def test_refresh_rejects_broken_positions_without_change() -> None:
    state = core.init(2, 2, seed=0)
    state.hand[0, 0, 0] += 1  # one card too many
    before = arrays(state)
    with pytest.raises(ValueError, match="Imp"):
        core.refresh(state)
    assert_same(before, arrays(state))
    state.hand[0, 0, 0] -= 1
    state.faith[1, 1] = 11
    with pytest.raises(ValueError, match="faith"):
        core.refresh(state)


def test_refresh_only_at_turn_start() -> None:
    state = position(2, players=[{"hand": ["Imp", "Angel"], "head": "Angel"}, {}])
    core.step(state, [action_id("Imp")])  # Angel + Imp = 6: Prayer
    assert Phase(int(state.phase[0])) == Phase.PRAYER
    with pytest.raises(ValueError, match="PRAYER"):
        core.refresh(state)


def test_refresh_does_not_advance_single_choice() -> None:
    """refresh leaves a decision with one legal action for the caller (docs/api.md)."""
    state = position(2, players=[{"hand": ["Imp"]}, {}])
    assert Phase(int(state.phase[0])) == Phase.COMMAND
    assert state.legal_action_mask[0].sum() == 1


def test_reset_restarts_chosen_games_like_init() -> None:
    state = core.init(5, 3, seed=0)
    rng = np.random.default_rng(0)
    for _ in range(30):
        core.step(state, (rng.random(state.legal_action_mask.shape) * state.legal_action_mask).argmax(1))
    untouched = arrays(state.take(np.array([0, 2, 3])))
    core.reset(state, np.array([1, 4]), seed=np.array([77, 78]))
    assert_same(untouched, arrays(state.take(np.array([0, 2, 3]))), "other games unchanged")
    assert_same(arrays(core.init(2, 3, seed=77)), arrays(state.take(np.array([1, 4]))), "restarted like init")


def test_step_a_subset_of_games() -> None:
    state = core.init(4, 2, seed=3)
    other = arrays(state.take(np.array([0, 2])))
    acts = np.argmax(state.legal_action_mask[[1, 3]], axis=1)
    core.step(state, acts, games=np.array([1, 3]))
    assert_same(other, arrays(state.take(np.array([0, 2]))), "games not stepped are unchanged")
    ref = core.init(4, 2, seed=3)
    core.step(ref, np.argmax(ref.legal_action_mask, axis=1))
    assert_same(arrays(ref.take(np.array([1, 3]))), arrays(state.take(np.array([1, 3]))))
    with pytest.raises(ValueError, match="shape"):
        core.step(state, acts, games=np.array([0, 1, 2]))
    with pytest.raises(ValueError, match="games"):
        core.step(state, acts, games=np.array([1, 9]))


def test_state_declares_every_field_as_an_annotation() -> None:
    """``State``'s class annotations name the fields of ``FIELDS``, in its order and with its
    dtypes, so that readers and type checkers see ``state.hand`` (the fields are attached at
    run time as views into the records)."""
    import typing

    from aos_env.core.state import FIELDS, State

    hints = typing.get_type_hints(State)
    declared = [name for name in State.__annotations__ if name in core.FIELD_NAMES]
    assert declared == list(core.FIELD_NAMES)
    assert [n for n in State.__annotations__ if n not in core.FIELD_NAMES] == [
        "num_players", "max_turns", "cards", "backend", "records", "_every", "_batch", "_tables",
    ]  # fmt: skip
    state = core.init(1, 2, seed=0, backend="numpy")
    for f in FIELDS:
        dtype_arg = typing.get_args(hints[f.name])[1]  # NDArray[T] is ndarray[shape, dtype[T]]
        (scalar,) = typing.get_args(dtype_arg)
        assert scalar is np.dtype(f.dtype).type, f"State.{f.name}: annotated {scalar}, FIELDS says {f.dtype}"
        assert getattr(state, f.name).dtype == np.dtype(scalar), f.name


def test_one_splitmix64_the_compiled_rng_is_its_twin() -> None:
    """SplitMix64 is written once (``core.rng``): the compiled engine compiles that very ``mix64``,
    and its scalar functions give the numpy reference's numbers bit for bit."""
    from aos_env.core import rng
    from aos_env.core.nb_engine import rng as nb_rng

    assert nb_rng.mix64.py_func is rng.mix64
    seeds = np.array([0, 1, 2, 12345, 2**62, 2**63 - 1], dtype=np.int64)
    # SplitMix64 from state 0: its published first outputs
    assert rng.splitmix64(np.array([0], dtype=np.uint64))[0] == np.uint64(0xE220A8397B1DCDAF)
    assert rng.splitmix64(rng.GOLDEN)[()] == np.uint64(0x6E789E6AA1B965F4)
    z = rng.splitmix64(seeds.view(np.uint64))
    with np.errstate(over="ignore"):
        assert [nb_rng.mix64(x + rng.GOLDEN) for x in seeds.view(np.uint64)] == list(z)
    assert [nb_rng.seed_key(int(s)) for s in seeds] == list(rng.seed_keys(seeds))
    high = np.array([1, 2, 3, 7, 110, 2**31 - 1], dtype=np.int64)
    assert [nb_rng.scale(np.uint64(x), int(h)) for x, h in zip(z, high, strict=True)] == list(rng.scale(z, high))
    # whole streams: the compiled engine's games draw what the numpy engine's draw
    state = core.init(len(seeds), 2, seed=seeds, backend="numba")
    np.testing.assert_array_equal(state.rng_key, rng.seed_keys(seeds))


def test_truncate_goes_through_each_states_engine(monkeypatch) -> None:
    """``core.truncate`` ends a numba state's games with the compiled engine (the numpy engine is
    not called for it), with the same result as the numpy engine's."""
    from aos_env.core import np_engine

    calls = []
    real = np_engine.truncate
    monkeypatch.setattr(np_engine, "truncate", lambda s, g: calls.append(s.backend) or real(s, g))
    states = [core.init(4, 3, seed=5, backend=backend) for backend in ("numpy", "numba")]
    for state in states:
        state.rewards[:] = 0.5
        core.truncate(state, [1, 3])
        core.truncate(state, [3])  # finished: left as it is
    assert calls == ["numpy"]
    ref, fast = states
    assert fast.truncated.tolist() == [False, True, False, True]
    assert fast.rewards[[1, 3]].tolist() == [[0.0] * 3] * 2 and (fast.rewards[[0, 2]] == 0.5).all()
    for name in core.FIELD_NAMES:
        np.testing.assert_array_equal(getattr(ref, name), getattr(fast, name), err_msg=name)
