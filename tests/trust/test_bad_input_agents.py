"""Bad input (issue 14): agent constructors, ``make_agent`` specs and saved models.

Every case raises (ValueError, or FileNotFoundError for a missing file) with a message
that names the bad option or spec, and builds no agent.
"""

from __future__ import annotations

import json
import re
import zipfile
from pathlib import Path

import numpy as np
import pytest
from bad_values import ints, not_ints, not_numbers
from hypothesis import given, settings
from hypothesis import strategies as st

from agents import GreedyAgent, MonteCarloAgent, PolicyAgent, RandomAgent, make_agent
from agents.files.model_file import MEMBER as MODEL_MEMBER
from agents.registry import NAMES, OPTIONS
from aos_env import core
from aos_env.base import checks

FAST = settings(max_examples=60, deadline=None)


def rejects(spec: str, *fragments: str, error: type = ValueError) -> str:
    """make_agent(spec) raises ``error`` naming every fragment; returns the message."""
    with pytest.raises(error) as err:
        make_agent(spec)
    for f in fragments:
        assert f in str(err.value), (f, str(err.value))
    return str(err.value)


# ---- constructors -------------------------------------------------------------------------


@FAST
@given(not_ints.filter(lambda v: v is not None) | st.sampled_from([-1, 2**63, -(2**70)]))
def test_seed_of_every_agent(seed) -> None:
    for cls in (RandomAgent, GreedyAgent, MonteCarloAgent):
        with pytest.raises(ValueError, match=r"^seed must be an int 0\.\.2\*\*63-1 or None"):
            cls(seed=seed)
    with pytest.raises(ValueError, match=r"^seed must be"):
        RandomAgent().reset(seed=seed)


@FAST
@given(ints(0, 2**63 - 1) | st.none())
def test_valid_seeds_are_python_or_numpy_ints(seed) -> None:
    agent = RandomAgent(seed=seed)
    assert agent.seed == (None if seed is None else int(seed))


@FAST
@given(not_ints | st.integers(max_value=0))
def test_mc_rollouts(value) -> None:
    with pytest.raises(ValueError, match=r"^rollouts must be an int >= 1, got "):
        MonteCarloAgent(rollouts=value)


@FAST
@given(not_ints.filter(lambda v: v is not None) | st.integers(max_value=0))
def test_mc_max_rollout_turns(value) -> None:
    with pytest.raises(ValueError, match=r"^max_rollout_turns must be an int >= 1 or None, got "):
        MonteCarloAgent(max_rollout_turns=value)


@FAST
@given(not_numbers | st.text(max_size=8).filter(lambda t: t not in ("greedy", "random", "bot")))
def test_mc_rollout_policy(value) -> None:
    with pytest.raises(ValueError, match=r"^rollout_policy must be one of 'greedy', 'random', 'bot'"):
        MonteCarloAgent(rollout_policy=value)


def test_mc_valid_controls() -> None:
    mc = MonteCarloAgent(
        rollouts=np.int16(3), max_rollout_turns=np.uint8(2), rollout_policy=RandomAgent(), seed=np.int64(4)
    )
    assert (mc.rollouts, mc.max_rollout_turns, mc.seed) == (3, 2, 4) and type(mc.rollouts) is int


def test_mc_rollouts_within_memory() -> None:
    with pytest.raises(ValueError, match=r"^rollouts=1000000000000 would need about .* use rollouts <= "):
        MonteCarloAgent(rollouts=10**12)


@pytest.mark.parametrize("cards", ["cards.toml", 3, {}])
def test_greedy_cards(cards) -> None:
    with pytest.raises(ValueError, match="^cards must be a CardSet"):
        GreedyAgent(cards=cards)


@pytest.mark.parametrize(
    "obs_shape,mask_shape,fragment",
    [
        ((core.OBS_DIM,), (43,), "mask must be"),
        ((2, core.OBS_DIM), (2, 43), "mask must be"),
        ((2, core.OBS_DIM), (44,), "one row per mask row"),
        ((3, core.OBS_DIM), (2, 44), "one row per mask row"),
        ((2, 5), (2, 44), "obs must be numbers of shape"),
        ((2, 2, 44), (2, 2, 44), "mask must be"),
        ((2, 0), (2, 44), "obs must be"),  # greedy reads the observation
    ],
)
def test_act_checks_its_arrays(obs_shape, mask_shape, fragment) -> None:
    with pytest.raises(ValueError, match=re.escape(fragment)):
        GreedyAgent().act(np.zeros(obs_shape, np.float32), np.ones(mask_shape, bool))


def test_act_checks_the_state_and_dtypes() -> None:
    state = core.init(2, 2, seed=0)
    obs, mask = core.observe(state, state.current_player), state.legal_action_mask
    with pytest.raises(ValueError, match="state must be None or a core.State of 2 games"):
        GreedyAgent().act(obs, mask, state.take(np.array([0])))
    with pytest.raises(ValueError, match="state must be"):
        GreedyAgent().act(obs, mask, "state")
    with pytest.raises(ValueError, match="mask must be a bool array"):
        GreedyAgent().act(obs, mask.astype(str))
    with pytest.raises(ValueError, match="obs must be numbers"):
        GreedyAgent().act(obs.astype(str), mask)
    assert RandomAgent().act(np.zeros((2, 0)), mask).shape == (2,)  # the mask-only agent takes an empty obs


# ---- make_agent specs -----------------------------------------------------------------------

int_texts_not_valid = st.one_of(
    st.sampled_from(["2.5", "1e3", "abc", "", "²", "٣", "0x10", "true", "none", "3 4"]),
    st.floats(allow_nan=True).map(repr).filter(lambda t: not t.lstrip("-").isdigit()),
)


@FAST
@given(int_texts_not_valid)
def test_int_options_are_never_truncated(text) -> None:
    spec = f"mc:rollouts={text}"
    msg = rejects(spec, f"agent {spec!r}", "rollouts must be an int")
    assert "got" in msg


@FAST
@given(st.integers(max_value=0).map(str))
def test_int_option_ranges(text) -> None:
    rejects(f"mc:rollouts={text}", "rollouts must be an int >= 1")
    rejects(f"mc:max_rollout_turns={text}", "max_rollout_turns must be an int >= 1 or None")


@FAST
@given(
    st.text(alphabet="abcdefghijklmnopqrstuvwxyz_", min_size=1, max_size=12).filter(lambda k: k not in OPTIONS["mc"])
)
def test_unknown_options_list_the_allowed_ones(key) -> None:
    rejects(f"mc:{key}=1", f"unknown option {key!r}", "its options are rollouts, rollout_policy, max_rollout_turns")
    rejects(f"greedy:{key}=1", f"unknown option {key!r}", "it takes no options")
    rejects(f"random:{key}=1", f"unknown option {key!r}", "it takes no options")


@pytest.mark.parametrize(
    "spec,fragment",
    [
        ("mc:rollouts", "options are key=value"),
        ("mc:=3", "options are key=value"),
        ("mc:rollouts=3,rollouts=4", "given twice"),
        ("mc:rollout_policy=", "rollout_policy must not be empty"),
        ("mc:rollout_policy=mc", "rollout_policy must be one of 'greedy', 'random', 'bot', got 'mc'"),
        ("mc:max_rollout_turns=2.0", "max_rollout_turns must be an int or none"),
        ("x.zip:deterministic=maybe", "deterministic must be true or false"),
        ("x.zip:temperature=1", "unknown option 'temperature' for a model; its options are deterministic, device"),
    ],
)
def test_malformed_options(spec, fragment) -> None:
    rejects(spec, fragment)


@FAST
@given(
    st.text(min_size=1, max_size=10).filter(
        lambda t: (
            t.strip().lower() not in NAMES
            and ":" not in t
            and "/" not in t
            and t.strip()
            and not t.lower().endswith((".zip", ".npz"))
        )
    )
)
def test_unknown_agent_names_list_the_known_ones(name) -> None:
    rejects(
        name,
        "unknown agent",
        "use one of random, greedy, mc, bot, bot-v2, search, a path to a model .zip or to a bot file .npz",
    )


def test_a_typo_gets_a_suggestion() -> None:
    rejects("gredy", "did you mean 'greedy'")


@pytest.mark.parametrize("spec", [None, 3, ["greedy"], "", "   ", b"greedy"])
def test_spec_must_be_a_string(spec) -> None:
    rejects(spec, "an agent spec must be a non-empty string")


def test_valid_specs_with_typed_options() -> None:
    mc = make_agent("MC: rollouts = 2, max_rollout_turns = none, rollout_policy = random,", seed=np.int64(3))
    assert (mc.rollouts, mc.max_rollout_turns, mc.seed) == (2, None, 3) and isinstance(mc.rollout_policy, RandomAgent)


# ---- saved models ---------------------------------------------------------------------------


@pytest.fixture(scope="module")
def models(tmp_path_factory) -> dict[str, Path]:
    """Saved MaskablePPO models of the wrong observation and action sizes (with the JSON member that
    train.py writes, saying so), and broken files."""
    import gymnasium as gym
    from sb3_contrib import MaskablePPO

    class Dummy(gym.Env):
        def __init__(self, obs: int, actions: int) -> None:
            self.observation_space = gym.spaces.Box(0, 1, (obs,), np.float32)
            self.action_space = gym.spaces.Discrete(actions)

    d = tmp_path_factory.mktemp("models")
    out = {}
    for name, (obs, actions) in {"obs10": (10, core.NUM_ACTIONS), "act7": (core.OBS_DIM, 7)}.items():
        MaskablePPO("MlpPolicy", Dummy(obs, actions), n_steps=8, batch_size=8, policy_kwargs={"net_arch": [4]}).save(
            d / name
        )
        out[name] = d / f"{name}.zip"
        meta = {
            "format": "aos-model",
            "format_version": 1,
            "obs_version": core.OBS_VERSION,
            "obs_dim": obs,
            "num_actions": actions,
            "num_players": 2,
            "net_arch": {"pi": [4], "vf": [4]},
            "activation": "tanh",
        }
        with zipfile.ZipFile(out[name], "a") as z:
            z.writestr(MODEL_MEMBER, json.dumps(meta))
    with zipfile.ZipFile(d / "other.zip", "w") as z:
        z.writestr("readme.txt", "not a model")
    out["other"] = d / "other.zip"
    (d / "text.zip").write_text("hello")
    out["text"] = d / "text.zip"
    with zipfile.ZipFile(d / "fake.zip", "w") as z:  # the right members, nonsense inside
        z.writestr("data", "{not json")
        z.writestr("policy.pth", "nope")
    out["fake"] = d / "fake.zip"
    return out


def test_missing_model_is_reported_by_its_own_path(tmp_path: Path) -> None:
    path = str(tmp_path / "x.zip")
    msg = rejects(path, repr(path), error=FileNotFoundError)
    assert ".zip.zip" not in msg
    with pytest.raises(FileNotFoundError, match=re.escape(repr(path))):
        PolicyAgent(path)


@pytest.mark.parametrize(
    "which,fragment",
    [
        ("other", f"is a zip file but not a model saved by train.py or SB3: it has neither {MODEL_MEMBER}"),
        ("text", "is not a zip file"),
        ("fake", "its SB3 data member is not readable JSON"),
        ("obs10", f"was trained for observation size 10, this env has {core.OBS_DIM}"),
        ("act7", "was trained for number of actions 7, this env has 44"),
    ],
)
def test_a_file_that_is_not_a_model_of_this_env(models, which, fragment) -> None:
    rejects(str(models[which]), str(models[which]), fragment)


def test_policy_agent_arguments(models) -> None:
    with pytest.raises(ValueError, match="give either a model path or a policy"):
        PolicyAgent()
    with pytest.raises(ValueError, match="^deterministic must be True or False, got 'yes'"):
        PolicyAgent(models["obs10"], deterministic="yes")
    with pytest.raises(ValueError, match="^device must be a torch device"):
        PolicyAgent(models["obs10"], device="bogus")
    with pytest.raises(ValueError, match="^policy must be a MaskablePPO policy"):
        PolicyAgent(policy="policy")
    for bad in (3, True, ["x.zip"]):
        with pytest.raises(ValueError, match="^model must be a path"):
            PolicyAgent(bad)


# ---- tournaments ----------------------------------------------------------------------------


@pytest.mark.parametrize(
    "kwargs,name",
    [
        ({"agents": []}, "agents"),
        ({"agents": "greedy"}, "agents"),
        ({"agents": [RandomAgent(), "greedy"]}, "agents[1]"),
        ({"num_players": 5}, "num_players"),
        ({"num_players": 2.0}, "num_players"),
        ({"games": 0}, "games"),
        ({"games": True}, "games"),
        ({"seed": -1}, "seed"),
        ({"seed": 2**63 - 2}, "seed"),
        ({"seed": 1.5}, "seed"),
        ({"batch_size": 0}, "batch_size"),
        ({"batch_size": -1}, "batch_size"),
        ({"batch_size": 2 * 10**6, "games": 2 * 10**6}, "batch_size"),
        ({"games": 10**12}, "games"),
        ({"max_turns": 0}, "max_turns"),
        ({"names": ["a"]}, "names"),
        ({"names": ["a", "a"]}, "names"),
        ({"names": "ab"}, "names"),
    ],
)
def test_play_games_arguments(monkeypatch, kwargs, name) -> None:
    from agents.evaluation.matches import play_games

    monkeypatch.setattr(checks, "total_memory", lambda: 8 * 10**9)  # the memory cases do not depend on this machine

    args = dict(
        agents=[RandomAgent(seed=1), RandomAgent(seed=2)], num_players=2, games=4, seed=0, batch_size=2, names=None
    )
    args.update(kwargs)
    with pytest.raises(ValueError, match=rf"^{re.escape(name)}(=\d+)? (must|would)"):
        play_games(**args)
    assert (
        play_games(
            **dict(
                args,
                **{k: v for k, v in dict(num_players=np.int8(2), games=np.int64(2), batch_size=np.uint8(2)).items()},
                agents=[RandomAgent(), RandomAgent()],
                seed=0,
                names=None,
                max_turns=200,
            )
        ).seeds.size
        == 2
    )
