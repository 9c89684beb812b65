"""The rules of :class:`~agents.training.config.TrainConfig` that tie a trainer's options together
(``--backend rllib``'s runners and games) or that a model file sets (the network's size); applied
by ``check_config``."""

from __future__ import annotations

from pathlib import Path
from typing import Any, Protocol

from .best import MAX_ANCHORS
from .kinds import OptionError, option_name


class Options(Protocol):
    """The options these rules read, read-only (``agents.training.config.TrainConfig`` has them; a protocol
    keeps the arrow one way: config uses these rules, the rules never import config)."""

    @property
    def backend(self) -> str: ...
    @property
    def players(self) -> int: ...
    @property
    def max_turns(self) -> int: ...
    @property
    def anchors(self) -> tuple[str, ...]: ...
    @property
    def address(self) -> str | None: ...
    @property
    def device(self) -> str: ...
    @property
    def num_envs(self) -> int | None: ...
    @property
    def num_env_runners(self) -> int | None: ...
    @property
    def envs_per_runner(self) -> int | None: ...
    @property
    def net_arch(self) -> tuple[int, ...]: ...
    @property
    def shared_trunk(self) -> bool | None: ...
    @property
    def init(self) -> Path | None: ...
    @property
    def resume(self) -> bool: ...
    @property
    def league(self) -> bool: ...
    @property
    def exploiter_every(self) -> int: ...
    @property
    def self_weight(self) -> float: ...
    @property
    def n_steps(self) -> int: ...
    @property
    def batch_size(self) -> int | None: ...


#: Games played at once without --num-envs.
DEFAULT_NUM_ENVS = 1024
#: The minibatch without --batch-size (or the rollout, if smaller).
DEFAULT_BATCH_SIZE = 2048
#: The options that only --backend rllib takes.
RLLIB_OPTIONS = ("num_env_runners", "envs_per_runner", "address")


def check_backend(c: Options) -> dict[str, Any]:
    """The RLlib options: only with --backend rllib. Returns the games' settings: ``num_envs`` (all
    games: for rllib, the runners' games together) and, for rllib, the runners and their games."""
    given = [option_name(n) for n in RLLIB_OPTIONS if getattr(c, n) is not None]
    if c.backend != "rllib":
        if given:
            raise OptionError(given[0], "only with --backend rllib")
        return {"num_envs": c.num_envs or DEFAULT_NUM_ENVS}
    if c.address is not None and c.address != "auto":
        host, sep, port = c.address.rpartition(":")
        if not sep or not host.strip() or not port.isdigit() or not 0 < int(port) < 65536:
            raise OptionError(
                "--address", f"must be host:port of a Ray head (e.g. 10.0.0.5:6379) or 'auto', got {c.address!r}"
            )
    runners = c.num_env_runners or 0
    if c.envs_per_runner is not None and c.num_envs is not None:
        raise OptionError("--envs-per-runner", "give --envs-per-runner or --num-envs, not both")
    per_runner = c.envs_per_runner
    if per_runner is None:
        per_runner = -(-(c.num_envs or DEFAULT_NUM_ENVS) // max(1, runners))  # rounded up
    return {"num_envs": per_runner * max(1, runners), "num_env_runners": runners, "envs_per_runner": per_runner}


def games_option(config: Options) -> str:
    """The option that sets how many games are played at once, for messages."""
    return "--envs-per-runner" if config.backend == "rllib" and config.envs_per_runner is not None else "--num-envs"


def shared_trunk(c: Options) -> bool:
    """--shared-trunk, or its default: on with sb3, off with rllib (whose bot files have two networks)."""
    return c.backend == "sb3" if c.shared_trunk is None else c.shared_trunk


def network_shape(c: Options) -> tuple[dict[str, list[int]], list[int]]:
    """The network --net-arch and --shared-trunk ask for: (the hidden sizes of the policy's and the
    value function's own layers, {"pi": [...], "vf": [...]}; the layers of the trunk they share)."""
    if shared_trunk(c):
        return {"pi": [], "vf": []}, list(c.net_arch)
    return {"pi": list(c.net_arch), "vf": list(c.net_arch)}, []


def parameters(c: Options) -> int:
    """The weights and biases of the network --net-arch and --shared-trunk ask for."""
    from agents.files.model_file import parameter_count

    return parameter_count(*network_shape(c))


def check_net_arch_size(c: Options) -> None:
    """Networks that a model file can hold (``agents.files.model_file.MAX_PARAMETERS``)."""
    from agents.files.model_file import MAX_PARAMETERS

    params = parameters(c)
    if params > MAX_PARAMETERS:
        arch = ",".join(map(str, c.net_arch))
        raise OptionError(
            "--net-arch",
            f"layers {arch} make networks of {params:,} parameters, more than the "
            f"{MAX_PARAMETERS:,} a model file may hold",
        )


def check_limits(c: Options) -> None:
    """Limits that depend on another option or on the evaluation: --max-turns gives every seat a
    turn, and at most ``MAX_ANCHORS`` anchors."""
    if c.max_turns < c.players:
        raise OptionError(
            "--max-turns",
            f"must be at least --players ({c.players}): every seat, the learner's too, needs a turn; got {c.max_turns}",
        )
    if len(c.anchors) > MAX_ANCHORS:
        raise OptionError("--anchors", f"takes at most {MAX_ANCHORS} agents, got {len(c.anchors)}")


def check_pairs(c: Options) -> None:
    """Options that only go with certain others: --init (a new sb3 run), --shared-trunk (sb3), --device
    with rllib (Ray assigns the GPU) and --exploiter-every (a league with self-play)."""
    if c.init is not None:
        if c.resume:
            raise OptionError(
                "--init", "starts a new run; --resume continues one from its own model (give one of them)"
            )
        if c.backend != "sb3":
            raise OptionError("--init", f"is for --backend sb3, got --backend {c.backend}")
    if c.shared_trunk and c.backend != "sb3":
        raise OptionError("--shared-trunk", f"is for --backend sb3, got --backend {c.backend}")
    if c.backend == "rllib" and c.device not in ("cpu", "cuda"):
        raise OptionError(
            "--device", f"must be cpu or cuda with --backend rllib (Ray assigns the GPU), got {c.device!r}"
        )
    if c.exploiter_every and not (c.league and c.self_weight > 0):
        raise OptionError("--exploiter-every", "needs --league and 'self' in --opponents")


def check_rollout(c: Options, games: int) -> int:
    """The rollout (``--n-steps`` x ``games``) has at least 2 steps, and a minibatch is a part of it
    (RLlib refuses a larger one, SB3 clips it). Returns the minibatch size: ``--batch-size``, or
    ``DEFAULT_BATCH_SIZE`` or the rollout, whichever is smaller."""
    rollout = c.n_steps * games
    if rollout < 2:  # PPO normalises the advantages over the rollout
        raise OptionError("--n-steps", f"the rollout (--n-steps x --num-envs = {rollout}) needs at least 2 steps")
    if c.batch_size is None:
        return min(DEFAULT_BATCH_SIZE, rollout)
    if c.batch_size > rollout:
        what = "games" if c.backend == "rllib" else "--num-envs"
        raise OptionError(
            "--batch-size", f"must be at most the rollout (--n-steps x {what} = {rollout}), got {c.batch_size}"
        )
    return c.batch_size
