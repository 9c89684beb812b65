"""What a training run is asked to do: :class:`TrainConfig`, one field per option of ``train.py``.

Each field carries its own documentation and its own rule (a :class:`Kind`: an int in a range, a
choice, a list of agent specs, ...) in its metadata. The command line is built from them
(``agents.training.cli``: ``--max-turns`` is the field ``max_turns``, its help is the field's
doc), and :func:`check_config` applies every rule once, with the rules that tie fields together,
raising :class:`OptionError` (an ``ArgumentError``) that names the option and what it allows.
What only the machine and the files can tell (a model to resume, an agent's file, a device,
memory) is checked by ``agents.training.start.prepare``.
"""

from __future__ import annotations

import dataclasses
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

from aos_env.base.checks import ArgumentError
from aos_env.base.threads import usable_cores

from . import rules
from .best import ANCHOR_STRIDE, MAX_ANCHORS
from .budget import UNBOUNDED_TIMESTEPS
from .kinds import (  # OptionError and option_name are imported from here too
    Choice,
    Duration,
    Flag,
    Float,
    IntKind,
    IntList,
    Kind,
    Mix,
    Names,
    OptionalText,
    OptionError,
    PathKind,
    Switch,
    Text,
    Truncation,
    option_name,
    run_name,
)
from .schedule import LR_SCHEDULES

#: --seed is at most this: stable-baselines3 seeds numpy's legacy generator, which takes 32-bit seeds.
MAX_TRAIN_SEED = 2**32 - 1
#: The trainers behind --backend (not to be confused with the engine backends, core.BACKENDS).
TRAINERS = ("sb3", "rllib")
#: --timesteps when neither it nor --budget is given.
DEFAULT_TIMESTEPS = 6_000_000
#: The weightings of --pfsp (agents.league.pfsp.MODES).
PFSP_MODES = ("hard", "variance", "even")
#: What a league's exploiter starts from (--exploiter-start).
EXPLOITER_STARTS = ("learner", "scratch")
#: The opponent spec that stands for the learner's own snapshots.
SELF = "self"

#: The option groups of ``train.py --help``, in order.
GROUPS = (
    "game and run",
    "opponents and self-play",
    "league",
    "network and PPO",
    "RLlib (--backend rllib)",
    "evaluation",
)
_RUN, _OPPONENTS, _LEAGUE, _PPO, _RLLIB, _EVAL = GROUPS


def setting(default: Any, kind: Kind, doc: str, group: str, **cli: Any) -> Any:
    """A field of :class:`TrainConfig`: its default, its rule, its documentation (which is also
    its ``--help`` text) and its option group; ``cli``: argparse's ``metavar`` where the option
    name alone would not say what to give."""
    return field(default=default, metadata={"kind": kind, "doc": doc, "group": group, **cli})


@dataclass(frozen=True)
class TrainConfig:
    """A training run: ``python train.py`` with every option a field of the same name.

    Build one in Python (``TrainConfig(timesteps=100_000, players=3)``) or from a command line
    (``agents.training.cli.config_from_args``), and train it with ``agents.training.train``.
    The fields' documentation is in ``TrainConfig.FIELDS`` (and ``python train.py --help``).
    """

    # ---- game and run
    backend: str = setting(
        "sb3",
        Choice(TRAINERS),
        "sb3: sb3-contrib's MaskablePPO in this process (the train extra); rllib: Ray RLlib's PPO "
        "with env runners (the rllib extra), see the RLlib options below",
        _RUN,
    )
    players: int = setting(2, IntKind(2, 4), "players per game, 2..4", _RUN)
    timesteps: int | None = setting(
        None,
        IntKind(1, optional=True),
        f"learner decisions to train for, at least 1 (with --resume: this many more); default: "
        f"{DEFAULT_TIMESTEPS:,}, or no limit with --budget (the clock ends the run); to evaluate a "
        "saved model without training, use python -m agents.evaluation.evaluate",
        _RUN,
    )
    budget: float | None = setting(
        None,
        Duration(),
        "wall time for the run, e.g. 90s, 15m, 2h or 1h30m (in Python: those, or seconds), counted "
        "from the start of this command (with --resume: of this session): training stops at the "
        "first step (rllib: iteration) after it, then the final evaluation runs; with --timesteps "
        "too, whichever comes first ends training (summary.json's stopped_by says which)",
        _RUN,
        metavar="DURATION",
    )
    num_envs: int | None = setting(
        None,
        IntKind(1, optional=True),
        f"games played in parallel by the batched env (more games amortise the env's per-call cost); "
        f"with --backend rllib, in all env runners together (default: {rules.DEFAULT_NUM_ENVS})",
        _RUN,
    )
    seed: int = setting(
        0,
        IntKind(0, MAX_TRAIN_SEED),
        "seed of the training games, the opponents, the network and the final evaluation's games "
        "(which start at seed 20,000,000 + --seed x 10,000,000, apart from the games that choose "
        "the best model; docs/api.md), 0..2**32-1",
        _RUN,
    )
    out: Path = setting(Path("runs"), PathKind(), "folder for runs", _RUN)
    name: str = setting("default", Text(run_name, "name"), "run name: output goes to <out>/<name>/", _RUN)
    resume: bool = setting(
        False,
        Flag(),
        "continue the run <out>/<name>/ from the newest of its model.zip and "
        "checkpoints/model_<steps>.zip (rllib: from its RLlib checkpoint rllib/). It is read with "
        "SB3's (or RLlib's) full loader, which unpickles the file and so can run code from it: "
        "resume only run folders you trained yourself (playing a model, as an agent or an "
        "opponent, reads it without unpickling)",
        _RUN,
    )
    overwrite: bool = setting(
        False,
        Flag(),
        "replace the run <out>/<name>/ if it exists (its model, checkpoints, summary, history, "
        "curve and TensorBoard logs are deleted when training starts); without --overwrite or "
        "--resume an existing run is never written over",
        _RUN,
    )
    max_turns: int = setting(200, IntKind(1), "turn limit of a game (all players' turns), at least --players", _RUN)
    device: str = setting(
        "cpu",
        Text(str, "device"),
        "torch device of the learner (cpu, cuda, cuda:1, ...; rllib: cpu or cuda, one GPU); it must "
        "exist on this machine (cuda only where torch.cuda.is_available())",
        _RUN,
    )
    threads: int | None = setting(
        None,
        IntKind(1, optional=True),
        "threads of torch and of the compiled engine's parallel kernels in the learner's process "
        "(default: the cores this process may use; rllib's env runners take one each, as Ray gives "
        "each one CPU)",
        _RUN,
    )
    no_progress: bool = setting(False, Flag(), "hide the progress bar", _RUN)

    # ---- opponents and self-play
    opponents: tuple[tuple[str, float], ...] = setting(
        (("greedy", 0.5), ("random", 0.1), (SELF, 0.4)),
        Mix(),
        "opponent mix, each 'spec@weight': spec is {spec_help}, or 'self' (the learner's own "
        "snapshots); weights are relative, >= 0, at least one > 0",
        _OPPONENTS,
    )
    snapshot_every: int = setting(
        250_000, IntKind(1), "add a frozen copy of the learner to the self-play pool every this many steps", _OPPONENTS
    )
    max_snapshots: int = setting(5, IntKind(1), "snapshots kept in the pool (oldest dropped)", _OPPONENTS)
    shaping: float = setting(
        0.02,
        Float(0),
        "reward per point of change in the learner's score lead (0 = only the final +1/-1; at 0.05 a 6M-step "
        "run learned to stall to the turn limit, docs/api.md)",
        _OPPONENTS,
    )
    truncation_reward: str | float | None = setting(
        "loss",
        Truncation(),
        "the learner's reward when its game reaches the turn limit: 'loss' (-1/(P-1), as a lost game: "
        "stalling never pays better than playing to win), 'zero' (the game's own 0, R7.5) or a number",
        _OPPONENTS,
    )

    # ---- league (docs/league.md)
    league: bool = setting(
        False,
        Switch(),
        "train in a league: the --opponents agents, the snapshots and the exploiters, drawn by prioritised "
        "fictitious self-play from the learner's recent win rates against them (rllib: in every env runner, "
        "from all runners' games); saved in league.json, continued by --resume (docs/league.md: off by "
        "default, as it did not beat the fixed mix in a 4M-step run). --no-league: the fixed --opponents weights",
        _LEAGUE,
    )
    pfsp: str = setting(
        "hard",
        Choice(PFSP_MODES),
        "the weight of a member the learner beats at rate p: hard (1-p)^power, variance p(1-p), even 1",
        _LEAGUE,
    )
    pfsp_power: float = setting(2.0, Float(0, low_open=True), "the power of --pfsp hard, > 0", _LEAGUE)
    pfsp_floor: float = setting(0.05, Float(0, 1), "a member's least weight, a fraction of the largest", _LEAGUE)
    league_window: int = setting(500, IntKind(1), "the last games against a member behind its win rate", _LEAGUE)
    exploiter_every: int = setting(
        0,
        IntKind(0),
        "train an exploiter every this many learner steps (0: never), against a frozen learner; it joins "
        "if the low end of its Wilson interval over --eval-games games is above 1/--players",
        _LEAGUE,
    )
    exploiter_steps: int = setting(100_000, IntKind(1), "training steps of each exploiter", _LEAGUE)
    max_exploiters: int = setting(3, IntKind(1), "exploiters kept in the league (oldest dropped)", _LEAGUE)
    exploiter_start: str = setting(
        "learner",
        Choice(EXPLOITER_STARTS),
        "what an exploiter starts from: learner (the frozen learner's weights: it starts even and learns its "
        "weaknesses) or scratch (random weights: at 400,000 steps they won 2-4% against a 6-12M-step learner)",
        _LEAGUE,
    )

    # ---- network and PPO
    init: Path | None = setting(
        None,
        PathKind(optional=True),
        "start the networks from a bot file's weights instead of at random (sb3 only; --net-arch "
        "must be the bot's hidden sizes); a bot of an older observation version is widened to this "
        "one, so the run starts from that bot's play (docs/bot.md)",
        _PPO,
        metavar="BOT.npz",
    )
    net_arch: tuple[int, ...] = setting(
        (256, 256),
        IntList(1),
        "hidden layer sizes of the policy and value networks (with --shared-trunk: of the one trunk both "
        "read), comma separated (e.g. 256,256)",
        _PPO,
    )
    shared_trunk: bool | None = setting(
        None,
        Switch(optional=True),
        "one network of --net-arch layers that the policy and value heads both read (agents.files.trunk), "
        "about half the work of two (docs/api.md); sb3 only. --no-shared-trunk: two networks (default: on "
        "with sb3, off with rllib)",
        _PPO,
    )
    learning_rate: float = setting(3e-4, Float(0, low_open=True), "Adam learning rate, > 0", _PPO)
    lr_schedule: str = setting(
        "linear",
        Choice(LR_SCHEDULES),
        "the learning rate over the run: linear from --learning-rate down to 0 at the run's end (its "
        "--timesteps or, with sb3, its --budget, whichever comes first), or constant (which, at the "
        "default rate, broke down into stalled games after 5.5M steps; docs/api.md)",
        _PPO,
    )
    n_steps: int = setting(16, IntKind(1), "steps per env per rollout (rollout = n_steps * num_envs, at least 2)", _PPO)
    batch_size: int | None = setting(
        None,
        IntKind(2, optional=True),
        f"minibatch size, at least 2 and at most the rollout (--n-steps x --num-envs); default: "
        f"{rules.DEFAULT_BATCH_SIZE}, or the rollout if it is smaller",
        _PPO,
    )
    n_epochs: int = setting(4, IntKind(1), "passes over each rollout", _PPO)
    gamma: float = setting(0.995, Float(0, 1), "discount factor, 0..1", _PPO)
    gae_lambda: float = setting(0.95, Float(0, 1), "GAE lambda, 0..1", _PPO)
    clip_range: float = setting(0.2, Float(0, low_open=True), "PPO clip range, > 0", _PPO)
    ent_coef: float = setting(0.01, Float(0), "entropy bonus, >= 0", _PPO)
    vf_coef: float = setting(0.5, Float(0), "value loss weight, >= 0", _PPO)
    max_grad_norm: float = setting(0.5, Float(0, low_open=True), "gradient clipping, > 0", _PPO)

    # ---- RLlib
    num_env_runners: int | None = setting(
        None,
        IntKind(0, optional=True),
        "Ray actors that sample games (one CPU each); 0 samples in this process between updates (default: 0)",
        _RLLIB,
    )
    envs_per_runner: int | None = setting(
        None,
        IntKind(1, optional=True),
        "games each env runner plays at once on its batched engine (default: --num-envs divided "
        "among the runners); give this or --num-envs, not both",
        _RLLIB,
    )
    address: str | None = setting(
        None,
        OptionalText(),
        "join a running Ray cluster (host:port of its head, or 'auto'; start one with ray start "
        "--head); default: a local Ray, started and stopped by this script",
        _RLLIB,
    )

    # ---- evaluation
    eval_every: int = setting(
        500_000,
        IntKind(1),
        "evaluate against the anchors, keep the best model and checkpoint every this many steps",
        _EVAL,
    )
    eval_games: int = setting(
        200,
        IntKind(1, ANCHOR_STRIDE),
        "games against each anchor at each evaluation during training (the same games each time: "
        f"they choose the best model), 1..{ANCHOR_STRIDE:,}",
        _EVAL,
    )
    final_eval_games: int = setting(
        1000,
        IntKind(1, ANCHOR_STRIDE),
        "games against each anchor at the end, of the final model and of the best one, on games that "
        f"follow --seed and that no choice has seen, 1..{ANCHOR_STRIDE:,}",
        _EVAL,
    )
    anchors: tuple[str, ...] = setting(
        ("random", "greedy"),
        Names(),
        f"fixed agents to evaluate against, comma separated agent specs (e.g. random,greedy,mc,bot-v2,bot), "
        f"at most {MAX_ANCHORS}; their win rates go to history.json, summary.json, TensorBoard "
        "(eval/<anchor>/win_rate) and learning_curve.png, and their mean chooses the best model "
        "(--eval-baselines is the older name)",
        _EVAL,
        aliases=("--eval-baselines",),
    )
    exploit_steps: int = setting(
        0,
        IntKind(0),
        "at the end, train an exploiter (python -m agents.training.exploit) against the final model for "
        "this many steps and report its win rate with a 95% Wilson interval as summary.json's exploitability "
        "(0: off)",
        _EVAL,
    )

    # set by check_config: the defaults that depend on other fields are filled in
    checked: bool = field(default=False, repr=False, compare=False, metadata={"internal": True})

    @property
    def run_dir(self) -> Path:
        """The run's folder, ``<out>/<name>``."""
        return Path(self.out) / self.name

    @property
    def self_weight(self) -> float:
        """The self-play share of the opponent mix (the weight of 'self', 0 without it)."""
        return sum(w for s, w in self.opponents if s == SELF)

    def options(self) -> dict[str, Any]:
        """{field: value} of every option, as summary.json's ``args`` shows them (paths as text)."""
        return {f.name: str(v) if isinstance(v, Path) else v for f in config_fields() for v in [getattr(self, f.name)]}


def config_fields() -> list[dataclasses.Field]:
    """The fields of :class:`TrainConfig` that are options (in ``--help``'s order)."""
    return [f for f in dataclasses.fields(TrainConfig) if not f.metadata.get("internal")]


def check_config(config: TrainConfig) -> TrainConfig:
    """Every field of ``config`` checked by its rule, then the rules between fields; returns the
    config with the defaults that depend on other fields filled in (``timesteps``: 6,000,000, or
    ``UNBOUNDED_TIMESTEPS`` with ``budget`` alone; ``num_envs``, ``batch_size`` and, with rllib,
    ``num_env_runners`` and ``envs_per_runner``; ``threads``: the usable cores; ``shared_trunk``: on with sb3)
    and ``checked`` set. A checked config is returned as it is. Raises :class:`OptionError` naming the bad option."""
    if not isinstance(config, TrainConfig):
        raise ArgumentError(f"config must be a TrainConfig, got {type(config).__name__}")
    if config.checked:
        return config
    values = {}
    for f in config_fields():
        option = option_name(f.name)
        try:
            values[f.name] = f.metadata["kind"].check(option, getattr(config, f.name))
        except ArgumentError as e:
            raise OptionError(option, str(e).removeprefix(option).removeprefix(":").strip()) from None
    c = dataclasses.replace(config, **values)
    rules.check_limits(c)
    timesteps = c.timesteps
    if timesteps is None:  # with --budget alone, the clock ends the run
        timesteps = DEFAULT_TIMESTEPS if c.budget is None else UNBOUNDED_TIMESTEPS
    filled = {**rules.check_backend(c), "shared_trunk": rules.shared_trunk(c)}
    batch_size = rules.check_rollout(c, filled["num_envs"])
    rules.check_net_arch_size(c)
    rules.check_pairs(c)
    if sum(w for _, w in c.opponents) <= 0:
        given = " ".join(f"{s}@{w:g}" for s, w in c.opponents)
        raise OptionError("--opponents", f"at least one weight must be > 0, got {given}")
    threads = usable_cores() if c.threads is None else c.threads
    return dataclasses.replace(c, timesteps=timesteps, batch_size=batch_size, threads=threads, checked=True, **filled)


#: Every option's documentation: {field: doc} (the help of ``python train.py --help``).
TrainConfig.FIELDS = {f.name: f.metadata["doc"] for f in config_fields()}  # type: ignore[attr-defined]
