"""BotAgent: a policy trained by ``train.py`` that plays with numpy alone (no torch).

    from agents import make_agent
    bot = make_agent("bot")                    # the shipped bot, for 2, 3 or 4 players
    bot = make_agent("runs/x/bot.npz")         # a policy exported with `python -m agents.bot export`
    actions = bot.act(obs, mask)

A bot file is an ``.npz`` holding the policy network of a MaskablePPO model (and its value
network, which search agents can use to value positions) as plain arrays, with the observation
version and the player count it was trained for. ``python -m agents.bot export MODEL.zip OUT.npz``
writes one from a saved model (that needs the ``train`` extra); playing needs only numpy.

The shipped bot lives in ``agents/data/bot_{2,3,4}p.npz``: ``make_agent("bot")`` loads all of them
and plays each observation with the network of its game's player count.
"""

from __future__ import annotations

import argparse
import json
import sys
from pathlib import Path

import numpy as np

from aos_env import core
from aos_env.checks import ArgumentError, check_bool, check_file
from aos_env.core.obs_layout import G

from .base import BaseAgent

DATA = Path(__file__).resolve().parent / "data"
SHIPPED = {p: DATA / f"bot_{p}p.npz" for p in (2, 3, 4)}
FORMAT = "aos-bot"
FORMAT_VERSION = 1
_ACTIVATIONS = {"tanh": np.tanh, "relu": lambda x: np.maximum(x, 0.0)}
_NUM_PLAYERS = G["num_players"]  # one-hot: 2, 3, 4 players


class MLP:
    """A feed-forward network: hidden layers with one activation, then a linear output layer."""

    def __init__(self, weights: list[np.ndarray], biases: list[np.ndarray], activation: str) -> None:
        if activation not in _ACTIVATIONS:
            raise ArgumentError(f"activation must be one of {', '.join(_ACTIVATIONS)}, got {activation!r}")
        self.weights = [np.ascontiguousarray(w, dtype=np.float32) for w in weights]
        self.biases = [np.ascontiguousarray(b, dtype=np.float32) for b in biases]
        self.activation = activation
        self._act = _ACTIVATIONS[activation]

    def __call__(self, x: np.ndarray) -> np.ndarray:
        h = np.asarray(x, dtype=np.float32)
        last = len(self.weights) - 1
        for i, (w, b) in enumerate(zip(self.weights, self.biases)):
            h = h @ w + b
            if i < last:
                h = self._act(h)
        return h


class BotNet:
    """One exported model: the policy (logits over the 44 actions) and, if present, the value."""

    def __init__(self, path) -> None:
        p = check_file("bot", path)
        try:
            data = np.load(p, allow_pickle=False)
            meta = json.loads(str(data["meta"]))
        except (OSError, ValueError, KeyError) as e:
            raise ArgumentError(f"bot {str(path)!r} is not a bot file (python -m agents.bot export writes one): {e}") from None
        if meta.get("format") != FORMAT or meta.get("format_version") != FORMAT_VERSION:
            raise ArgumentError(f"bot {str(path)!r}: not a {FORMAT} file of version {FORMAT_VERSION}")
        if meta.get("obs_version") != core.OBS_VERSION or meta.get("obs_dim") != core.OBS_DIM:
            raise ArgumentError(
                f"bot {str(path)!r} reads observations of version {meta.get('obs_version')} "
                f"({meta.get('obs_dim')} numbers); this aos_env has version {core.OBS_VERSION} ({core.OBS_DIM}): "
                "train or export it again")
        self.path, self.meta = p, meta
        self.num_players = int(meta["num_players"])
        self.policy = MLP(*_layers(data, "pi"), meta["activation"])
        self.value = MLP(*_layers(data, "vf"), meta["activation"]) if "vf_w0" in data else None
        if self.policy.weights[-1].shape[1] != core.NUM_ACTIONS:
            raise ArgumentError(f"bot {str(path)!r} chooses among {self.policy.weights[-1].shape[1]} actions, "
                                f"this env has {core.NUM_ACTIONS}")


def _layers(data, prefix: str) -> tuple[list[np.ndarray], list[np.ndarray]]:
    n = sum(1 for k in data.files if k.startswith(f"{prefix}_w"))
    return [data[f"{prefix}_w{i}"] for i in range(n)], [data[f"{prefix}_b{i}"] for i in range(n)]


class BotAgent(BaseAgent):
    """A trained policy on numpy: the most likely legal action (``deterministic=False``: sampled).

    ``path``: a bot file (``.npz``); by default the shipped bots, one per player count, each row
    played by the network of its game's player count.
    """

    name = "bot"

    def __init__(self, path=None, seed: int | None = 0, deterministic: bool = True) -> None:
        super().__init__(seed)
        self.deterministic = check_bool("deterministic", deterministic)
        if path is None:
            missing = [str(f) for f in SHIPPED.values() if not f.is_file()]
            if missing:
                raise FileNotFoundError(f"the shipped bot files are missing: {', '.join(missing)}")
            self.nets = {p: BotNet(f) for p, f in SHIPPED.items()}
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
                raise ArgumentError(f"bot {self.name!r} plays {', '.join(map(str, sorted(self.nets)))}-player games, "
                                    f"got a {p}-player observation")
            rows = np.flatnonzero(players == p)
            out[rows] = np.where(mask[rows], net.policy(obs[rows]), -np.inf)
        return out

    def values(self, obs: np.ndarray) -> np.ndarray:
        """(n,) the value network's estimate of each observed position (the observer's return)."""
        players = _players(obs)
        out = np.zeros(obs.shape[0], dtype=np.float32)
        for p in np.unique(players):
            net = self.nets.get(int(p))
            if net is None or net.value is None:
                raise ArgumentError(f"bot {self.name!r} has no value network for {p}-player games")
            rows = np.flatnonzero(players == p)
            out[rows] = net.value(obs[rows])[:, 0]
        return out

    def act_batch(self, obs: np.ndarray, mask: np.ndarray, state: core.State | None = None) -> np.ndarray:
        out = np.zeros(mask.shape[0], dtype=np.int64)
        live = np.flatnonzero(mask.any(1))
        if not live.size:
            return out
        logits = self.logits(obs[live], mask[live])
        if self.deterministic:
            out[live] = logits.argmax(1)
        else:
            z = logits - logits.max(1, keepdims=True)
            p = np.exp(z)
            p /= p.sum(1, keepdims=True)
            u = self.rng.random(live.size)[:, None]
            out[live] = np.minimum((p.cumsum(1) < u).sum(1), mask.shape[1] - 1)
        return out


def _players(obs: np.ndarray) -> np.ndarray:
    """(n,) the player count of each observation's game, from its ``num_players`` one-hot."""
    return obs[:, _NUM_PLAYERS].argmax(1) + 2


# ---- export: a saved MaskablePPO model -> a bot file ---------------------------------------------


def export(model, out, num_players: int, info: dict | None = None, dtype=np.float32) -> Path:
    """Write the policy and value networks of a MaskablePPO ``model`` (or a path to its .zip) to a
    bot file ``out``. ``num_players``: the game size it was trained for; ``info``: anything to keep
    with it (the training command, its results)."""
    import torch.nn as nn

    if not hasattr(model, "policy"):
        from sb3_contrib import MaskablePPO

        model = MaskablePPO.load(str(model), device="cpu")
    pol = model.policy
    acts = {type(m).__name__ for m in pol.mlp_extractor.modules() if not isinstance(m, (nn.Linear, nn.Sequential))}
    acts.discard("MlpExtractor")
    if len(acts) != 1 or next(iter(acts)).lower() not in _ACTIVATIONS:
        raise ArgumentError(f"export: the networks must use one activation of {', '.join(_ACTIVATIONS)}, found {acts}")
    arrays: dict[str, np.ndarray] = {}
    for prefix, body, head in (("pi", pol.mlp_extractor.policy_net, pol.action_net),
                               ("vf", pol.mlp_extractor.value_net, pol.value_net)):
        linears = [m for m in body.modules() if isinstance(m, nn.Linear)] + [head]
        for i, lin in enumerate(linears):
            arrays[f"{prefix}_w{i}"] = lin.weight.detach().cpu().numpy().T.astype(dtype)
            arrays[f"{prefix}_b{i}"] = lin.bias.detach().cpu().numpy().astype(dtype)
    meta = {"format": FORMAT, "format_version": FORMAT_VERSION, "obs_version": core.OBS_VERSION,
            "obs_dim": core.OBS_DIM, "num_players": int(num_players), "activation": next(iter(acts)).lower(),
            "info": info or {}}
    out = Path(out)
    out.parent.mkdir(parents=True, exist_ok=True)
    np.savez_compressed(out, meta=np.array(json.dumps(meta)), **arrays)
    return out


def main(argv: list[str] | None = None) -> int:
    p = argparse.ArgumentParser(prog="python -m agents.bot",
                                description="Export a model saved by train.py as a numpy-only bot file.")
    sub = p.add_subparsers(dest="command", required=True)
    e = sub.add_parser("export", help="write MODEL.zip's policy and value networks to OUT.npz")
    e.add_argument("model", type=Path, help="a model saved by train.py (runs/<name>/model.zip)")
    e.add_argument("out", type=Path, help="the bot file to write (.npz)")
    e.add_argument("--players", type=int, choices=(2, 3, 4), required=True, help="the game size it was trained for")
    e.add_argument("--float16", action="store_true", help="store the weights as float16 (half the size)")
    args = p.parse_args(argv)
    try:
        path = export(args.model, args.out, args.players, dtype=np.float16 if args.float16 else np.float32)
    except (ArgumentError, FileNotFoundError) as err:
        p.error(str(err))
    print(f"wrote {path} ({path.stat().st_size:,} bytes)")
    return 0


if __name__ == "__main__":
    sys.exit(main())
