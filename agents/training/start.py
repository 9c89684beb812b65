"""Starting a run: :func:`prepare` checks all that a run needs before anything is written (the
config's rules, then what only this machine and the files can tell: memory, the run folder, the
files and agents named, the device) and builds the opponent pool; :func:`train` then trains with
the trainer that ``--backend`` names."""

from __future__ import annotations

from dataclasses import dataclass
from pathlib import Path

from aos_env.base.checks import (
    MEMORY_FRACTION,
    ArgumentError,
    check_batch_memory,
    check_output_folder,
    format_bytes,
    total_memory,
)
from aos_env.envs.opponents import OpponentPool

from .config import SELF, OptionError, TrainConfig, check_config, games_option
from .run_folder import check_not_in_run, check_run_folder, check_spec_not_in_run, check_writable, clear_run
from .signals import StopSignal

#: Bytes per network parameter while training: float32 weights, their gradients and Adam's two moments.
_TRAIN_BYTES_PER_PARAMETER = 4 * 4
#: Bytes per parameter of each frozen copy of the network (self-play snapshots, the evaluated copy).
_SNAPSHOT_BYTES_PER_PARAMETER = 4
#: Activations kept per hidden unit and row of a batch: float32 forward values and their gradients.
_ACTIVATION_BYTES = 2 * 4
#: The weight of the random opponent that a pure self-play run plays until its first snapshot.
_PLACEHOLDER_WEIGHT = 1e-6


@dataclass(frozen=True)
class Prepared:
    """A run ready to train: its checked config, its opponent pool (without 'self': the learner's
    snapshots join it while training) and the model an sb3 ``--resume`` continues from."""

    config: TrainConfig
    pool: OpponentPool
    resume_from: Path | None = None


def prepare(config: TrainConfig) -> Prepared:
    """Check everything before anything is written: :func:`~agents.training.config.check_config`,
    then the machine and the files. Raises :class:`~agents.training.config.OptionError`."""
    c = check_config(config)
    if c.backend == "rllib":
        try:
            import ray  # noqa: F401
            import ray.rllib  # noqa: F401
        except ImportError as e:
            raise OptionError("--backend", f'rllib needs Ray RLlib ({e}): pip install -e ".[rllib]"') from None
    from aos_env import core
    from aos_env.envs.learner import BYTES_PER_GAME

    # rollout-buffer memory per learner step: observation, mask and a few floats, float32, and about as
    # much again while the minibatches are gathered
    rollout_bytes = 2 * 4 * (core.OBS_DIM + core.NUM_ACTIONS + 8)
    games = games_option(config)
    try:
        check_batch_memory(
            games,
            c.num_envs,
            BYTES_PER_GAME + c.n_steps * rollout_bytes,
            unit=f"game, with its {c.n_steps} rollout steps",
        )
    except ArgumentError as e:  # its message names the option
        raise OptionError(games, str(e), whole=True) from None
    try:
        check_output_folder("--out", c.out)
    except ArgumentError as e:
        raise OptionError("--out", str(e), whole=True) from None
    _check_train_memory(c)
    run_dir = c.run_dir
    check_writable(run_dir)
    resume_from = check_run_folder(c)
    if c.init is not None:
        _check_init(c)
    from agents.files.model_file import check_device

    try:
        check_device("--device", c.device)
    except ArgumentError as e:
        raise OptionError("--device", str(e).removeprefix("--device ")) from None
    for spec, _ in c.opponents:
        check_spec_not_in_run("--opponents", spec, run_dir)
    try:
        pool = OpponentPool.from_specs(c.opponents, seed=c.seed, reserved=(SELF,), name="--opponents")
    except (ArgumentError, FileNotFoundError) as e:
        raise OptionError("--opponents", str(e).removeprefix("--opponents").removeprefix(":").strip()) from None
    _check_baselines(c)
    if not pool.weights() or sum(pool.weights().values()) <= 0:  # pure self-play: random until the first snapshot
        from agents import make_agent

        pool.add("random", make_agent("random", seed=c.seed), _PLACEHOLDER_WEIGHT)
    return Prepared(c, pool, resume_from)


def _check_train_memory(c: TrainConfig) -> None:
    """Networks that fit in memory while training: weights, gradients, Adam's state, the frozen
    copies and the activations."""
    from agents.files.model_file import parameter_count

    params = parameter_count({"pi": list(c.net_arch), "vf": list(c.net_arch)})
    copies = c.max_snapshots + 2  # the self-play snapshots, the evaluated copy, a snapshot being made
    if c.league and c.exploiter_every:  # the league's exploiters, and one being trained with its own optimiser
        copies += c.max_exploiters + 1 + _TRAIN_BYTES_PER_PARAMETER // _SNAPSHOT_BYTES_PER_PARAMETER
    rows = c.num_envs + c.batch_size  # a rollout step's forward pass, a minibatch's forward and backward
    need = (
        params * (_TRAIN_BYTES_PER_PARAMETER + copies * _SNAPSHOT_BYTES_PER_PARAMETER)
        + rows * 2 * sum(c.net_arch) * _ACTIVATION_BYTES
    )
    memory = total_memory()
    if memory is not None and need > memory * MEMORY_FRACTION:
        raise OptionError(
            "--net-arch",
            f"layers {','.join(map(str, c.net_arch))} ({params:,} parameters) would need about "
            f"{format_bytes(need)} of memory to train; this machine has {format_bytes(memory)} and a run "
            f"may use {MEMORY_FRACTION:.0%} of it: give smaller layers",
        )


def _load_error(e: Exception, spec: str | None = None) -> str:
    """An agent's or a file's load error as a message: ours say what is wrong; another reader's
    (numpy's BadZipFile, EOFError, ...) gets its type and the spec."""
    if isinstance(e, (ArgumentError, FileNotFoundError)):
        return str(e)
    where = f"agent {spec!r}: " if spec else ""
    return f"{where}cannot be loaded ({type(e).__name__}: {e})"


def _check_init(c: TrainConfig) -> None:
    """--init: a bot file outside the run's folder, whose hidden layers are --net-arch."""
    from agents.players.bot import BotNet

    check_not_in_run("--init", c.init, c.run_dir)
    try:
        hidden = [w.shape[1] for w in BotNet(c.init).policy.weights[:-1]]
    except Exception as e:  # ArgumentError, or whatever a broken .npz raises in numpy's reader
        raise OptionError("--init", _load_error(e)) from None
    if hidden != list(c.net_arch):
        sizes = ",".join(map(str, hidden))
        raise OptionError(
            "--init",
            f"the bot's hidden layers are {sizes}; give --net-arch {sizes} (got {','.join(map(str, c.net_arch))})",
        )


def _check_baselines(c: TrainConfig) -> None:
    """Every --eval-baselines agent can be built (and is no file of this run)."""
    from agents import make_agent

    for i, spec in enumerate(c.eval_baselines):
        check_spec_not_in_run("--eval-baselines", spec, c.run_dir)
        try:
            make_agent(spec, seed=i)
        except Exception as e:
            raise OptionError("--eval-baselines", _load_error(e, spec)) from None


def set_threads(threads: int) -> None:
    """Threads for torch and for the numba engine's parallel kernels. Between two engine calls the env
    runs Python (the opponents, the bookkeeping) and the network trains; numba's OpenMP workers spin
    meanwhile, and on 2 cores that made the training env about three times slower."""
    import torch

    torch.set_num_threads(threads)
    try:
        import numba
    except ImportError:  # the numpy engine needs no threads of its own
        return
    numba.set_num_threads(min(threads, numba.config.NUMBA_NUM_THREADS))


def train(config: TrainConfig, stop: StopSignal | None = None) -> dict:
    """Train the run ``config`` describes and return its summary (what summary.json holds).

    Everything is checked first (:func:`prepare`: an :class:`~agents.training.config.OptionError`
    before anything is written); ``--overwrite`` then clears the old run's files. ``stop``: the
    :class:`StopSignal` whose SIGINT or SIGTERM stops the run, saving its model and summary (the
    process then exits with 128 + the signal's number, as ``train.py`` does)."""
    ready = prepare(config)
    c = ready.config
    set_threads(c.threads)
    if c.overwrite:
        clear_run(c.run_dir)
    if c.backend == "rllib":
        from .rllib import train_rllib

        return train_rllib(c, ready.pool, stop)
    from .sb3 import train_sb3

    return train_sb3(c, ready.pool, stop, resume_from=ready.resume_from)
