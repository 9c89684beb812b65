"""BotAgent: a policy trained by ``train.py`` that plays with numpy alone (no torch).

    from agents import make_agent
    bot = make_agent("bot")                    # the shipped bot, for 2, 3 or 4 players
    bot = make_agent("runs/x/bot.npz")         # a policy exported with `python -m agents.files.export`
    actions = bot.act(obs, mask)

A bot file is an ``.npz`` holding the policy network of a MaskablePPO model (and its value
network, which search agents can use to value positions) as plain arrays, with the observation
version and the player count it was trained for. ``python -m agents.files.export MODEL.zip OUT.npz``
writes one from a saved model (that needs the ``train`` extra); playing needs only numpy.

The shipped bot lives in ``agents/data/bot_{2,3,4}p.npz``: ``make_agent("bot")`` loads all of them
and plays each observation with the network of its game's player count. The previous shipped
bot, trained on observation version 2, is ``make_agent("bot-v2")`` (``agents/data/bot_v2_{2,3,4}p.npz``).

**Bots of an older observation version keep playing.** A bot file records the observation
version it was trained on. One of an older version (``core.obs_layout.OLDER_VERSIONS``) reads
each observation rewritten in its own layout (``obs_layout.to_version``), and a question it
never saw gets the answer the game gave before the question existed (``OLD_VERSION_ANSWERS``):
it takes the effect. At a Homunculus flip it chooses among the mana as at a Research flip and
never declines (NO is not offered to it); at Nightmare's question it says YES.
"""

from __future__ import annotations

from pathlib import Path

import numpy as np

from aos_env import core
from aos_env.base.checks import ArgumentError, check_bool, check_file
from aos_env.core.obs_layout import G, to_version

from ..files.bot_file import ACTIVATIONS, read_networks
from .base import BaseAgent, choose_from_logits

DATA = Path(__file__).resolve().parent.parent / "data"
SHIPPED = {p: DATA / f"bot_{p}p.npz" for p in (2, 3, 4)}
#: The previous shipped bot (observation version 2), kept as a rated opponent: ``make_agent("bot-v2")``.
SHIPPED_V2 = {p: DATA / f"bot_v2_{p}p.npz" for p in (2, 3, 4)}
_NUM_PLAYERS = G["num_players"]  # one-hot: 2, 3, 4 players
_PHASE = G["phase"]
#: A bot of an older observation version at a decision it never saw: (the phase, its answer, or
#: None where it chooses as before among the legal actions less the ones listed). The answer is
#: what the game did before the decision existed: take the effect.
OLD_VERSION_ANSWERS: dict[core.Phase, tuple[int | None, tuple[int, ...]]] = {
    core.Phase.NIGHTMARE: (core.YES, ()),
    core.Phase.HOMUNCULUS_FLIP: (None, (core.NO,)),
}
_OBS_PHASE_POS = {p: core.OBS_PHASES.index(p) for p in OLD_VERSION_ANSWERS}


class MLP:
    """A feed-forward network: hidden layers with one activation, then a linear output layer."""

    def __init__(self, weights: list[np.ndarray], biases: list[np.ndarray], activation: str) -> None:
        if activation not in ACTIVATIONS:
            raise ArgumentError(f"activation must be one of {', '.join(ACTIVATIONS)}, got {activation!r}")
        self.weights = [np.ascontiguousarray(w, dtype=np.float32) for w in weights]
        self.biases = [np.ascontiguousarray(b, dtype=np.float32) for b in biases]
        self.activation = activation
        self._act = ACTIVATIONS[activation]

    def __call__(self, x: np.ndarray) -> np.ndarray:
        h = np.asarray(x, dtype=np.float32)
        last = len(self.weights) - 1
        with np.errstate(over="ignore", invalid="ignore"):  # an overflow is handled where actions are chosen
            for i, (w, b) in enumerate(zip(self.weights, self.biases, strict=True)):
                h = h @ w + b
                if i < last:
                    h = self._act(h)
        return h


class BotNet:
    """One exported model: the policy (logits over the 44 actions) and, if present, the value.

    The file is checked whole when it is loaded (``agents.files.bot_file.read_networks``): a file
    that is not a bot file of this env is an ArgumentError naming it, never an error at the first
    move, and nothing in it is unpickled."""

    def __init__(self, path) -> None:
        p = check_file("bot", path)
        nets = read_networks(p, f"bot {str(path)!r}")
        self.path, self.meta = p, nets.meta
        self.obs_version = nets.obs_version
        self.num_players = nets.meta["num_players"]
        self.policy = MLP(*nets.policy, nets.meta["activation"])
        self.value = MLP(*nets.value, nets.meta["activation"]) if nets.value is not None else None

    def inputs(self, obs: np.ndarray) -> np.ndarray:
        """Observations (n, OBS_DIM) in the layout this network reads."""
        return to_version(obs, self.obs_version)

    def logits(self, obs: np.ndarray, mask: np.ndarray) -> np.ndarray:
        """(n, 44) masked logits: -inf where an action is illegal. A network of an older
        observation version gets ``OLD_VERSION_ANSWERS`` at the decisions it never saw."""
        if self.obs_version == core.OBS_VERSION:
            return np.where(mask, self.policy(obs), -np.inf).astype(np.float32)
        mask = np.array(mask, dtype=bool)
        answered = np.zeros(mask.shape[0], dtype=bool)
        for phase, (answer, hidden) in OLD_VERSION_ANSWERS.items():
            rows = obs[:, _PHASE.start + _OBS_PHASE_POS[phase]] > 0.5
            if not rows.any():
                continue
            if answer is not None:
                mask[rows] = False
                mask[rows, answer] = True
                answered |= rows
            else:
                keep = mask[rows]
                keep[:, list(hidden)] = False
                mask[rows] = np.where(keep.any(1, keepdims=True), keep, mask[rows])
        out = np.full(mask.shape, -np.inf, dtype=np.float32)
        asked = np.flatnonzero(~answered)
        if asked.size:
            out[asked] = np.where(mask[asked], self.policy(self.inputs(obs[asked])), -np.inf)
        out[answered] = np.where(mask[answered], 0.0, -np.inf)
        return out

    def values(self, obs: np.ndarray) -> np.ndarray:
        """(n,) the value network's estimate of each position (the observer's return)."""
        if self.value is None:
            raise ArgumentError(f"bot {str(self.path)!r} has no value network")
        return self.value(self.inputs(obs))[:, 0]


class BotAgent(BaseAgent):
    """A trained policy on numpy: the most likely legal action (``deterministic=False``: sampled).

    ``path``: a bot file (``.npz``); by default the shipped bots, one per player count, each row
    played by the network of its game's player count.
    """

    name = "bot"

    def __init__(
        self, path=None, seed: int | None = 0, deterministic: bool = True, shipped: dict | None = None
    ) -> None:
        super().__init__(seed)
        self.deterministic = check_bool("deterministic", deterministic)
        if path is None:
            files = SHIPPED if shipped is None else shipped
            missing = [str(f) for f in files.values() if not f.is_file()]
            if missing:
                raise FileNotFoundError(f"the shipped bot files are missing: {', '.join(missing)}")
            self.nets = {p: BotNet(f) for p, f in files.items()}
        else:
            net = BotNet(path)
            self.nets = {net.num_players: net}
            self.name = str(path)

    def logits(self, obs: np.ndarray, mask: np.ndarray) -> np.ndarray:
        """(n, 44) masked logits: -inf where an action is illegal."""
        players = _players(obs)
        out = np.full(mask.shape, -np.inf, dtype=np.float32)
        for p in np.unique(players):
            net = self.nets.get(int(p))
            if net is None:
                raise ArgumentError(
                    f"bot {self.name!r} plays {', '.join(map(str, sorted(self.nets)))}-player games, "
                    f"got a {p}-player observation"
                )
            rows = np.flatnonzero(players == p)
            out[rows] = net.logits(obs[rows], mask[rows])
        return out

    def log_probs(self, obs: np.ndarray, mask: np.ndarray) -> np.ndarray:
        """(n, 44) the policy's log-probabilities of the legal actions (-inf where illegal)."""
        z = self.logits(obs, mask)
        z = z - z.max(1, keepdims=True)
        with np.errstate(divide="ignore"):
            return z - np.log(np.exp(z).sum(1, keepdims=True))

    def values(self, obs: np.ndarray) -> np.ndarray:
        """(n,) the value network's estimate of each observed position (the observer's return)."""
        players = _players(obs)
        out = np.zeros(obs.shape[0], dtype=np.float32)
        for p in np.unique(players):
            net = self.nets.get(int(p))
            if net is None or net.value is None:
                raise ArgumentError(f"bot {self.name!r} has no value network for {p}-player games")
            rows = np.flatnonzero(players == p)
            out[rows] = net.values(obs[rows])
        return out

    def act_batch(self, obs: np.ndarray, mask: np.ndarray, state: core.State | None = None) -> np.ndarray:
        out = np.zeros(mask.shape[0], dtype=np.int64)
        live = np.flatnonzero(mask.any(1))
        if not live.size:
            return out
        out[live] = choose_from_logits(self.logits(obs[live], mask[live]), mask[live], self.deterministic, self.rng)
        return out


def _players(obs: np.ndarray) -> np.ndarray:
    """(n,) the player count of each observation's game, from its ``num_players`` one-hot."""
    return obs[:, _NUM_PLAYERS].argmax(1) + 2
