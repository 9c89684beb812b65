"""Export a model saved by ``train.py`` as a numpy-only bot file (see ``agents.players.bot``).

    python -m agents.files.export runs/default/model.zip bot.npz --players 2
    python -m agents.files.export agents/data/bot_2p.npz bot_3p.npz --players 3   # a bot file for another table size

Needs the ``train`` extra (torch, sb3-contrib) to read the model; the bot file then plays with
numpy alone: ``make_agent("bot.npz")``. The model is read by ``agents.files.model_file.load_policy``,
which runs no code from the file (safe for a model from someone else); ``--players`` defaults to
the game size the model file records.
"""

from __future__ import annotations

import argparse
import json
import os
from pathlib import Path

import numpy as np

from aos_env import core
from aos_env.base.checks import ArgumentError, check_file, check_int, check_output_file
from aos_env.base.files import same_file
from aos_env.base.outputs import check_output
from aos_env.core.constants import MAX_PLAYERS, MIN_PLAYERS

from .bot_file import ACTIVATIONS, bot_meta, read_bot_file, read_networks, write_bot_file

#: A run's summary.json is a few kB; a larger one is not read.
MAX_SUMMARY_BYTES = 1 << 20


def export(model, out, num_players: int, info: dict | None = None, dtype=np.float32) -> Path:
    """Write the policy and value networks of a MaskablePPO ``model`` (a live model, its policy, or
    a path to a .zip saved by train.py) to a bot file ``out``. ``num_players``: the game size it was
    trained for; ``info``: anything to keep with it (the training command, its results). A path is
    read by ``agents.files.model_file.load_policy``, which runs no code from the file."""
    out = _bot_path(out)
    if isinstance(model, (str, os.PathLike)) and same_file(model, out):
        raise ArgumentError(f"out {str(out)!r} is the model file itself: give another path for the bot file")
    pol = _policy(model)
    acts = _activations(pol)
    if len(acts) != 1 or next(iter(acts)) not in ACTIVATIONS:
        raise ArgumentError(f"export: the networks must use one activation of {', '.join(ACTIVATIONS)}, found {acts}")
    arrays: dict[str, np.ndarray] = {}
    for prefix, linears in _linears(pol).items():  # a shared trunk goes into both networks
        for i, lin in enumerate(linears):
            with np.errstate(over="ignore"):  # a weight float16 cannot hold becomes inf, refused below
                arrays[f"{prefix}_w{i}"] = lin.weight.detach().cpu().numpy().T.astype(dtype)
                arrays[f"{prefix}_b{i}"] = lin.bias.detach().cpu().numpy().astype(dtype)
    bad = [name for name, arr in arrays.items() if not np.isfinite(arr).all()]
    if bad:  # the loader refuses such a file: write none (float16 turns weights above 65504 into inf)
        hint = "; float16 holds at most 65504: try without --float16" if np.dtype(dtype) == np.float16 else ""
        raise ArgumentError(f"export: {bad[0]} holds NaN or infinite weights{hint}")
    return write_bot_file(out, bot_meta(int(num_players), next(iter(acts)).lower(), info), arrays)


def retarget(bot, out, num_players: int, info: dict | None = None) -> Path:
    """Write the bot file ``bot`` again as a bot for ``num_players`` players: the same networks
    (the observation has the same layout at every table size), its meta saying the new size, and
    its info recording where it came from (``retargeted_from``: the file's name, its table size and
    its info) beside ``info``. The file is checked as ``make_agent`` checks it; nothing is unpickled."""
    num_players = check_int("num_players", num_players, MIN_PLAYERS, MAX_PLAYERS)
    out = _bot_path(out)
    src = check_file("bot", bot)
    if same_file(src, out):
        raise ArgumentError(f"out {str(out)!r} is the bot file itself: give another path")
    read_networks(src, str(src))  # the whole file checked: format, versions, shapes, finite weights
    meta, arrays = read_bot_file(src, str(src))
    before = {"file": src.name, "num_players": meta["num_players"], "info": meta.get("info", {})}
    meta = {**meta, "num_players": num_players, "info": {**(info or {}), "retargeted_from": before}}
    return write_bot_file(out, meta, arrays)


def _bot_path(out) -> Path:
    """The bot file to write: a path ending in .npz whose folders can be created."""
    out = check_output_file("out", out)
    if out.suffix.lower() != ".npz":
        raise ArgumentError(f"out must be a path ending in .npz (numpy adds it otherwise), got {str(out)!r}")
    return out


def _policy(model):
    """The policy of a live model, a policy itself, or the policy of a model file (read safely)."""
    if hasattr(model, "mlp_extractor"):
        return model
    if hasattr(model, "policy"):
        return model.policy
    from .model_file import load_policy

    return load_policy(model)


def _activations(policy) -> set[str]:
    """The activations (lower-case class names) of a MaskablePPO policy's networks and trunk."""
    import torch.nn as nn

    from .trunk import Trunk

    trunk = getattr(policy, "features_extractor", None)
    parts = [policy.mlp_extractor] + ([trunk] if isinstance(trunk, Trunk) else [])
    skip = (nn.Linear, nn.Sequential, Trunk)
    return {type(m).__name__.lower() for p in parts for m in p.modules() if not isinstance(m, skip)} - {"mlpextractor"}


def _linears(policy) -> dict[str, list]:
    """The Linear layers of a MaskablePPO policy's two networks, input first: {"pi": [...], "vf": [...]};
    the layers of a shared trunk (``agents.files.trunk``) begin both lists."""
    import torch.nn as nn

    from .trunk import trunk_of

    trunk = trunk_of(policy)
    return {
        prefix: trunk + [m for m in body.modules() if isinstance(m, nn.Linear)] + [head]
        for prefix, body, head in (
            ("pi", policy.mlp_extractor.policy_net, policy.action_net),
            ("vf", policy.mlp_extractor.value_net, policy.value_net),
        )
    }


def warm_start(policy, bot) -> dict:
    """Copy the networks of a bot file into a MaskablePPO ``policy`` of the same shape (train.py's
    ``--init``): the policy then plays as the bot did. A bot of an older observation version is
    widened to this one: each input it read keeps its weights (``obs_layout.to_version`` is a 0/1
    matrix from the new entries to the old), so a new decision shown to it as an old one (a
    Homunculus flip as a Research flip) starts with that one's weights and an entry it has no
    counterpart for (Nightmare's question) starts at zero. A policy with a shared trunk
    (``--shared-trunk``) takes its trunk from the bot's policy network, whose first layers have the
    trunk's sizes. Returns the bot's meta."""
    import torch

    from aos_env.core.obs_layout import to_version

    net = read_networks(check_file("bot", bot), f"bot {str(bot)!r}")
    if net.value is None:
        raise ArgumentError(f"init: bot {str(bot)!r} has no value network to start from")
    layers = _linears(policy)
    widen = to_version(np.eye(core.OBS_DIM, dtype=np.float32), net.obs_version)  # (OBS_DIM, the bot's dim)
    act = _activations(policy) & set(ACTIVATIONS)
    if act != {net.meta["activation"]}:
        raise ArgumentError(f"init: bot {str(bot)!r} uses {net.meta['activation']}, the model {', '.join(act) or '?'}")
    # the value network first: with a shared trunk the policy's layers are written last into it, so
    # the policy plays as the bot did (the value head then starts on the policy's trunk)
    for prefix, (bot_weights, biases) in (("vf", net.value), ("pi", net.policy)):
        weights = [widen @ bot_weights[0].astype(np.float32)] + bot_weights[1:]
        want = [tuple(lin.weight.shape[::-1]) for lin in layers[prefix]]
        if [w.shape for w in weights] != want:
            raise ArgumentError(
                f"init: bot {str(bot)!r} has layers {[w.shape for w in bot_weights]}, the model "
                f"{want}: give --net-arch the bot's hidden sizes"
            )
        with torch.no_grad():
            for lin, w, b in zip(layers[prefix], weights, biases, strict=True):
                lin.weight.copy_(torch.from_numpy(np.array(w.T, dtype=np.float32)))
                lin.bias.copy_(
                    torch.from_numpy(np.array(b, dtype=np.float32))
                )  # a copy: the bot's arrays are read-only
    return net.meta


def run_info(model: Path) -> dict:
    """What train.py recorded about the run that saved ``model``: its options, steps and final
    evaluation (from the run's ``summary.json``). For a checkpoint (``<run>/checkpoints/model_<steps>.zip``)
    the steps are the checkpoint's, and the final evaluation, which is of another model, is left out."""
    model = Path(model)
    checkpoint = model.parent.name == "checkpoints"
    summary = (model.parent.parent if checkpoint else model.parent) / "summary.json"
    info: dict = {"model": model.name}
    if summary.is_file():
        try:
            if summary.stat().st_size > MAX_SUMMARY_BYTES:
                raise ArgumentError(f"{summary}: the run's summary holds more than {MAX_SUMMARY_BYTES:,} bytes")
            run = json.loads(summary.read_text(encoding="utf-8"))
        except (ValueError, RecursionError, UnicodeDecodeError) as e:  # ArgumentError is a ValueError
            if isinstance(e, ArgumentError):
                raise
            raise ArgumentError(
                f"{summary}: the run's summary is not JSON ({type(e).__name__}: {str(e)[:80]})"
            ) from None
        if not isinstance(run, dict):
            raise ArgumentError(f"{summary}: the run's summary must be a JSON object, got {type(run).__name__}")
        for key, kind in (("args", dict), ("final_evaluation", dict), ("timesteps", int)):
            if run.get(key) is not None and not isinstance(run[key], kind):
                raise ArgumentError(f"{summary}: its {key!r} must be a {kind.__name__}, got {run[key]!r:.60}")
        info.update(args=run.get("args") or {}, timesteps=run.get("timesteps"))
        if not checkpoint:
            info["final_evaluation"] = run.get("final_evaluation") or {}
    if checkpoint and model.stem.rpartition("_")[2].isdigit():
        info["timesteps"] = int(model.stem.rpartition("_")[2])
    return info


def main(argv: list[str] | None = None) -> int:
    p = argparse.ArgumentParser(
        prog="python -m agents.files.export",
        description="Write the policy and value networks of a model saved by train.py to a numpy-only "
        "bot file (.npz); or write a bot file again for another table size.",
    )
    p.add_argument(
        "model",
        type=Path,
        help="a model saved by train.py (runs/<name>/model.zip), or a bot file (.npz) to write again for --players",
    )
    p.add_argument(
        "out", type=Path, help="the bot file to write (.npz); an existing file is replaced only with --overwrite"
    )
    p.add_argument(
        "--players",
        type=int,
        choices=(2, 3, 4),
        default=None,
        help="for a model: the game size it was trained for (default: the one the model file records); "
        "for a bot file: the table size the new file plays at (required)",
    )
    p.add_argument(
        "--note", default=None, help="for a bot file: a note kept in the new file's info (why, how it was measured)"
    )
    p.add_argument("--overwrite", action="store_true", help="replace OUT if it exists")
    p.add_argument("--float16", action="store_true", help="store the weights as float16 (half the size)")
    args = p.parse_args(argv)
    from .model_file import read_meta

    try:
        _bot_path(args.out)
        check_output("argument out:", args.out, args.overwrite)  # a dangling link too: nothing is replaced
        if args.model.suffix.lower() == ".npz":
            if args.players is None:
                p.error("argument --players: required for a bot file (the table size the new file plays at)")
            path = retarget(args.model, args.out, args.players, info={"note": args.note} if args.note else None)
            print(f"wrote {path} ({path.stat().st_size:,} bytes), for {args.players} players")
            return 0
        if args.note is not None:
            p.error("argument --note: only for a bot file (a model's info comes from its run)")
        info = run_info(args.model)
        trained_for = read_meta(args.model)["num_players"]  # the model checked whole; nothing unpickled
        if trained_for is None:  # saved by SB3's own model.save, which does not record the table size
            if args.players is None:
                p.error(
                    f"argument --players: required for {str(args.model)!r}, a model saved by SB3's own "
                    "save, which does not record the game size it was trained for"
                )
            trained_for = args.players
        if args.players is not None and args.players != trained_for:
            p.error(
                f"argument --players: the model {str(args.model)!r} was trained for {trained_for} players, "
                f"got --players {args.players}"
            )
        path = export(args.model, args.out, trained_for, info=info, dtype=np.float16 if args.float16 else np.float32)
    except (ValueError, FileNotFoundError) as err:  # ArgumentError, or a summary.json that is not JSON
        p.error(str(err))
    print(f"wrote {path} ({path.stat().st_size:,} bytes)")
    return 0


if __name__ == "__main__":
    from aos_env.base.cli import run_cli

    run_cli(main, "python -m agents.files.export")
