"""Starting a run: :func:`prepare` checks all that a run needs before anything is written (the
config's rules, then what only this machine and the files can tell: memory, the run folder, the
files and agents named, the device) and builds the opponent pool; :func:`train` then trains with
the trainer that ``--backend`` names."""

from __future__ import annotations

import dataclasses
import json
import shutil
import time
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
from aos_env.base.files import write_text
from aos_env.base.threads import set_threads
from aos_env.envs.opponents import OpponentPool

from . import rules
from .config import SELF, OptionError, TrainConfig, check_config
from .rules import games_option
from .run_folder import (
    check_not_in_run,
    check_run_folder,
    check_spec_not_in_run,
    check_writable,
    clear_run,
)
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
    assert c.num_envs is not None and c.batch_size is not None  # check_config filled them in
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
    run_dir = c.run_dir
    check_writable(run_dir)
    resume_from, saved = check_run_folder(c)
    if saved:
        shape = "a shared trunk" if saved["shared_trunk"] else "two networks"
        print(f"note: the run continues with its own network, {shape} of {','.join(map(str, saved['net_arch']))}")
        c = dataclasses.replace(c, **saved)
    _check_train_memory(c)  # of the network that trains: a resumed run's own
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
    _check_anchors(c)
    if c.exploit_steps:
        _check_exploit(c)
    if not pool.weights() or sum(pool.weights().values()) <= 0:  # pure self-play: random until the first snapshot
        from agents import make_agent

        pool.add("random", make_agent("random", seed=c.seed), _PLACEHOLDER_WEIGHT)
    return Prepared(c, pool, resume_from)


def _check_train_memory(c: TrainConfig) -> None:
    """Networks that fit in memory while training: weights, gradients, Adam's state, the frozen
    copies and the activations."""
    assert c.num_envs is not None and c.batch_size is not None  # a checked config has them
    params = rules.parameters(c)
    copies = c.max_snapshots + 2  # the self-play snapshots, the evaluated copy, a snapshot being made
    if c.league and c.exploiter_every:  # the league's exploiters, and one being trained with its own optimiser
        copies += c.max_exploiters + 1 + _TRAIN_BYTES_PER_PARAMETER // _SNAPSHOT_BYTES_PER_PARAMETER
    rows = c.num_envs + c.batch_size  # a rollout step's forward pass, a minibatch's forward and backward
    need = (
        params * (_TRAIN_BYTES_PER_PARAMETER + copies * _SNAPSHOT_BYTES_PER_PARAMETER)
        + rows * (1 if c.shared_trunk else 2) * sum(c.net_arch) * _ACTIVATION_BYTES
    )
    memory = total_memory()
    snapshots = c.max_snapshots * params * _SNAPSHOT_BYTES_PER_PARAMETER
    if memory is not None and need > memory * MEMORY_FRACTION and snapshots > (need - snapshots):
        fit = max(0, int((memory * MEMORY_FRACTION - (need - snapshots)) // (params * _SNAPSHOT_BYTES_PER_PARAMETER)))
        raise OptionError(
            "--max-snapshots",
            f"{c.max_snapshots:,} frozen copies of the network ({params:,} parameters, "
            f"{format_bytes(params * _SNAPSHOT_BYTES_PER_PARAMETER)} each) would need about {format_bytes(need)} "
            f"of memory with the learner; this machine has {format_bytes(memory)} and a run may use "
            f"{MEMORY_FRACTION:.0%} of it: give --max-snapshots at most {fit:,}",
        )
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

    assert c.init is not None  # called for --init only
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


def _check_anchors(c: TrainConfig) -> None:
    """Every --anchors agent can be built (and is no file of this run)."""
    from agents import make_agent

    for i, spec in enumerate(c.anchors):
        check_spec_not_in_run("--anchors", spec, c.run_dir)
        try:
            make_agent(spec, seed=i)
        except Exception as e:
            raise OptionError("--anchors", _load_error(e, spec)) from None


def _check_exploit(c: TrainConfig) -> None:
    """--exploit-steps: the exploiter's run (sb3, in the run's exploit/ folder) can be trained."""
    try:
        import sb3_contrib  # noqa: F401
    except ImportError as e:
        need = f'trains the exploiter with sb3 ({e}): pip install -e ".[train]"'
        raise OptionError("--exploit-steps", need) from None
    try:  # the target (the final model) does not exist yet: a stand-in checks the rest
        check_config(exploit_run_config(c, "random"))
    except OptionError as e:
        raise OptionError("--exploit-steps", f"the exploiter's run cannot start: {e}") from None


def train(config: TrainConfig, stop: StopSignal | None = None) -> dict:
    """Train the run ``config`` describes and return its summary (what summary.json holds).

    Everything is checked first (:func:`prepare`: an :class:`~agents.training.config.OptionError`
    before anything is written); ``--overwrite`` then clears the old run's files. ``stop``: the
    :class:`StopSignal` whose SIGINT or SIGTERM stops the run, saving its model and summary (the
    process then exits with 128 + the signal's number, as ``train.py`` does)."""
    ready = prepare(config)
    c = ready.config
    assert c.threads is not None, "a checked config (check_config fills --threads in)"
    set_threads(c.threads)
    if c.overwrite:
        clear_run(c.run_dir)
    created = _first_missing(c.run_dir)
    try:
        if c.backend == "rllib":
            from .rllib import train_rllib

            summary = train_rllib(c, ready.pool, stop)
        else:
            from .sb3 import train_sb3

            summary = train_sb3(c, ready.pool, stop, resume_from=ready.resume_from)
    except ArgumentError:  # found once the trainer started (a model that does not load, a cluster too small)
        if created is not None:
            _remove_if_empty(created)
        raise
    if c.exploit_steps:
        from .run_folder import SUMMARY_FILE

        summary["exploitability"] = exploitability(c, Path(summary["model"]), stop)
        write_text(c.run_dir / SUMMARY_FILE, json.dumps(summary, indent=2))
        e = summary["exploitability"]
        print(
            f"exploitability: an exploiter of {e['timesteps']:,} steps wins {e['win_rate']:.1%} "
            f"[{e['ci95'][0]:.1%}, {e['ci95'][1]:.1%}] against the final model (chance {e['chance']:.0%})",
            flush=True,
        )
    return summary


def _first_missing(run_dir: Path) -> Path | None:
    """The outermost folder of ``run_dir`` (itself or a parent) that does not exist yet: what this run creates."""
    missing = None
    for p in (run_dir, *run_dir.parents):
        if p.exists():
            return missing
        missing = p
    return missing


def _remove_if_empty(folder: Path) -> None:
    """Remove ``folder`` (one this run created) if it holds no file: an early error leaves no empty run behind."""
    if folder.is_dir() and not any(p.is_file() or p.is_symlink() for p in folder.rglob("*")):
        shutil.rmtree(folder, ignore_errors=True)


def exploitability(config: TrainConfig, target: Path, stop: StopSignal | None = None) -> dict:
    """``train.py --exploit-steps N``: an exploiter trained in this process for N steps against the
    run's final model ``target``, in the run's folder ``exploit/`` (replaced by each run), with the
    run's games per evaluation, seed, games at once, layers, device and threads. Returns its result
    (``exploit_result``)."""
    from .exploiter import exploit_result

    c = config
    run_config = exploit_run_config(c, str(target))
    print(f"exploitability: training an exploiter against {target} for {c.exploit_steps:,} steps", flush=True)
    started = time.time()
    return exploit_result(train(run_config, stop), str(target), started=started)


def exploit_run_config(c: TrainConfig, target: str) -> TrainConfig:
    """The run of ``--exploit-steps``: an exploiter of ``target`` in the run's folder ``exploit/``
    (replaced by each run: a resumed run measures its new final model), with the run's games per
    evaluation, seed, final games, games at once, layers, turn limit, device and threads."""
    from .exploiter import exploit_config
    from .run_folder import EXPLOIT_DIR

    return exploit_config(
        target,
        players=c.players,
        timesteps=c.exploit_steps,
        seed=c.seed,
        games=c.final_eval_games,
        out=c.run_dir,
        name=EXPLOIT_DIR,
        curve_games=c.eval_games,
        num_envs=c.num_envs if c.backend == "sb3" else None,
        net_arch=c.net_arch,
        max_turns=c.max_turns,
        device=c.device if c.backend == "sb3" else "cpu",
        threads=c.threads,
        no_progress=c.no_progress,
        overwrite=True,
    )
