"""GreedyAgent gives exactly the recorded decisions: seeded games of mixed random/greedy play
(2, 3 and 4 players, and 2 players on a changed card file), replayed step by step.

``tests/greedy_decisions.npz`` holds, for every decision of those games (every seat's, the random
players' too), the action the greedy agent took when it was recorded. The greedy seats play the
recorded actions, so one mismatch does not change the games after it. At every step each
observation is also scored once more with its phase one-hot replaced by a random phase (any of
``core.OBS_PHASES``) under a random mask (the "probes"), so that every phase's scoring, rare ones
(R8.3 shortages) included, meets many positions. A fingerprint of the observations of each step
tells a change of the games (engine or observation layout) apart from a change of the agent.

History: the first recording (122,880 decisions and as many probes) came from the numpy
implementation that the compiled kernel (agents/players/_greedy_kernel.py) replaced; the kernel matched it
on all of them. It was re-recorded once, when the Prayer threshold was fixed to count whole cards
(a hand of 2 read as 2.00000003 cards, so Prayer took (a) where the heuristic says (b)): on the
first recording's games the fixed kernel differed in exactly the 192 Prayer decisions with 2 cards
in hand and the 385 probes relabelled Prayer with 2 cards in hand. It was re-recorded again for
observation version 3 (aos-env 0.3: Nightmare and Homunculus optional, so the games and the
observation changed; the agent takes both effects, as before).

Re-record only on purpose (the games changed, or a heuristic changed)::

    python tests/test_greedy.py --record
"""

from __future__ import annotations

import re
import sys
from pathlib import Path

import numpy as np
import pytest

from agents import GreedyAgent
from aos_env import core
from aos_env.core.cards import DEFAULT_CARD_FILE, CardSet, parse_cards

try:
    import tomllib
except ModuleNotFoundError:  # pragma: no cover - Python 3.10
    import tomli as tomllib

RECORDING = Path(__file__).with_name("greedy_decisions.npz")
#: name -> (players, games, steps, seed, changed card file)
RUNS = {
    "p2": (2, 256, 150, 2, False),
    "p3": (3, 256, 150, 3, False),
    "p4": (4, 256, 150, 4, False),
    "cards": (2, 64, 120, 5, True),
}
NO_DECISION = -1  # a finished game at that step


def changed_cards() -> CardSet:
    """The shipped cards with Imp (AS001) costing KK*, worth 4 points and 3 VP in Conquest: a card
    set the greedy agent values differently from the default one."""
    text = DEFAULT_CARD_FILE.read_text()
    text, n = re.subn(
        r'(id = "AS001"(?:.|\n)*?cost = )"K\*"((?:.|\n)*?points = )1((?:.|\n)*?effect = )\{ vp = 1 \}',
        r'\g<1>"KK*"\g<2>4\g<3>{ vp = 3 }',
        text,
        count=1,
    )
    assert n == 1, "the shipped Imp changed: update changed_cards()"
    return parse_cards(tomllib.loads(text), source="changed Imp")


def play(name: str, agent: GreedyAgent, expected: np.ndarray | None = None) -> dict[str, np.ndarray]:
    """Play run ``name``. Each seat of each game is greedy or random (drawn per game); at every step
    ``agent`` acts on every game's current observation, and the greedy seats play ``expected[step]``
    (the agent's own actions when None). Returns the agent's actions, its actions on the
    relabelled observations ("probe", see the module docstring), the phase positions
    (OBS_PHASES) of both, and the per-step observation fingerprints."""
    players, games, steps, seed, custom = RUNS[name]
    rng = np.random.default_rng(seed)
    probe_rng = np.random.default_rng(seed + 1)
    state = core.init(games, players, seed=seed, cards=changed_cards() if custom else None)
    is_greedy = rng.random((games, players)) < 0.5
    next_seed = seed * 1_000_003 + games
    rows = np.arange(games)
    phase_slice = core.obs_slices()["phase"]
    got = np.full((steps, games), NO_DECISION, dtype=np.int8)
    phase = np.full((steps, games), NO_DECISION, dtype=np.int8)
    probe = np.zeros((steps, games), dtype=np.int8)
    probe_phase = probe_rng.integers(len(core.OBS_PHASES), size=(steps, games)).astype(np.int8)
    fingerprint = np.zeros(steps)
    for i in range(steps):
        live = ~(state.terminated | state.truncated)
        obs = core.observe(state, state.current_player)
        mask = state.legal_action_mask.copy()
        acts = np.asarray(agent.act(obs, mask))
        got[i, live] = acts[live]
        phase[i, live] = obs[live, phase_slice].argmax(1)
        fingerprint[i] = obs[live].astype(np.float64).sum()
        relabelled = obs.copy()
        relabelled[:, phase_slice] = 0
        relabelled[rows, phase_slice.start + probe_phase[i]] = 1
        probe[i] = agent.act(relabelled, probe_rng.random(mask.shape) < 0.5)
        random_acts = (rng.random(mask.shape) * mask).argmax(1)
        greedy_acts = acts if expected is None else expected[i].astype(np.int64)
        core.step(state, np.where(is_greedy[rows, state.current_player] & live, greedy_acts, random_acts))
        done = np.nonzero(state.terminated | state.truncated)[0]
        if done.size:
            core.reset(state, done, seed=next_seed)
            next_seed += done.size
    return {"actions": got, "phase": phase, "probe": probe, "probe_phase": probe_phase, "fingerprint": fingerprint}


def record() -> None:
    out = {}
    for name, (_, _, _, _, custom) in RUNS.items():
        res = play(name, GreedyAgent(cards=changed_cards() if custom else None))
        for key in ("actions", "probe", "fingerprint"):
            out[f"{name}.{key}"] = res[key]
        print(f"{name}: {(res['actions'] != NO_DECISION).sum()} decisions, {res['probe'].size} probes")
    np.savez_compressed(RECORDING, obs_version=core.OBS_VERSION, **out)
    print(f"wrote {RECORDING}")


@pytest.mark.one_backend
@pytest.mark.parametrize("name", list(RUNS))
def test_greedy_plays_the_recorded_decisions(name: str) -> None:
    ref = np.load(RECORDING)
    assert int(ref["obs_version"]) == core.OBS_VERSION, "the observation changed: re-record (see the docstring)"
    expected = ref[f"{name}.actions"]
    custom = RUNS[name][4]
    res = play(name, GreedyAgent(cards=changed_cards() if custom else None), expected)
    assert np.array_equal(res["fingerprint"], ref[f"{name}.fingerprint"]), (
        "the games differ from the recording (the engine or the observation changed): re-record"
    )
    decided = expected != NO_DECISION
    assert decided.sum() > 0.9 * expected.size
    wrong = decided & (res["actions"] != expected)
    phases = [core.OBS_PHASES[p].name for p in res["phase"][wrong]]
    assert not wrong.any(), f"{wrong.sum()} of {decided.sum()} decisions differ, in phases {sorted(set(phases))}"
    wrong = res["probe"] != ref[f"{name}.probe"]
    phases = [core.OBS_PHASES[p].name for p in res["probe_phase"][wrong]]
    assert not wrong.any(), f"{wrong.sum()} of {wrong.size} probes differ, in phases {sorted(set(phases))}"


if __name__ == "__main__":
    if sys.argv[1:] != ["--record"]:
        sys.exit(f"usage: python {sys.argv[0]} --record   (writes {RECORDING.name}; see the module docstring)")
    record()


def test_one_observation_and_other_dtypes_give_the_batch_actions() -> None:
    """A row alone (the AEC env's case), float64 and whole-number observations, and a strided
    batch give the actions of the float32 batch."""
    state = core.init(64, 3, seed=11)
    agent = GreedyAgent()
    for _ in range(30):
        core.step(state, agent.act(core.observe(state, state.current_player), state.legal_action_mask))
    obs, mask = core.observe(state, state.current_player), state.legal_action_mask.copy()
    batch = agent.act(obs, mask)
    assert [agent.act(obs[i], mask[i]) for i in range(8)] == batch[:8].tolist()
    assert np.array_equal(agent.act(obs.astype(np.float64), mask), batch)
    assert np.array_equal(agent.act(obs[::2], mask[::2]), batch[::2])
    ints = np.rint(obs * 3).astype(np.int64)  # any numbers are scored, not only real observations
    assert np.array_equal(agent.act(ints, mask), agent.act(ints.astype(np.float64), mask))


def test_the_kernel_leaves_numba_cache_folder_alone() -> None:
    """The kernel caches its machine code in its own folder and gives numba's setting back (the
    engine's functions, compiled later, must still go to the engine's folder)."""
    import numba

    from agents.players import _greedy_base, _greedy_kernel

    assert numba.config.CACHE_DIR != _greedy_base.CACHE_DIR
    # the kernel is two files (the scoring, and what it reads): both cache in the one folder
    for function in (_greedy_kernel.greedy_actions, _greedy_kernel.score_phase, _greedy_base.action_worths):
        assert function.stats.cache_path.startswith(_greedy_base.CACHE_DIR), function


@pytest.mark.parametrize(
    ("phase", "field", "count", "option"),
    [
        (core.Phase.ALCHEMY, "seat0.hand_size", 3, core.OPTION_A),
        (core.Phase.ALCHEMY, "seat0.hand_size", 4, core.OPTION_B),
        (core.Phase.PRAYER, "seat0.hand_size", 2, core.OPTION_B),
        (core.Phase.PRAYER, "seat0.hand_size", 3, core.OPTION_A),
        (core.Phase.PILGRIMAGE, "seat0.faith", 2, core.OPTION_B),
        (core.Phase.PILGRIMAGE, "seat0.faith", 3, core.OPTION_A),
    ],
)
def test_option_thresholds_count_whole_cards_and_faith(phase, field, count, option) -> None:
    """Alchemy draws with 3 cards or fewer, Prayer takes (b) with 2 or fewer, Pilgrimage takes VP
    from 3 faith: on the count itself, whatever float32 makes of count / scale."""
    state = core.init(1, 2, seed=0)
    obs = core.observe(state, state.current_player)[0]
    sl, scale = core.obs_slices(), core.obs_value(np.ones(core.OBS_DIM), field)[0]
    obs[sl["phase"]] = 0
    obs[sl["phase"].start + core.OBS_PHASES.index(phase)] = 1
    obs[sl[field]] = np.float32(count / scale)
    mask = np.zeros(core.NUM_ACTIONS, dtype=bool)
    mask[[core.OPTION_A, core.OPTION_B]] = True
    assert GreedyAgent().act(obs, mask) == option
