"""Training: ``python train.py`` (PPO with self-play) and its pieces, importable.

``train.py`` is the command; this package is its code::

    from agents.training import TrainConfig, train

    summary = train(TrainConfig(timesteps=100_000, players=3, name="three"))

Two trainers (``--backend``): ``sb3`` (sb3-contrib's MaskablePPO in this process, the default,
``agents.training.sb3``) and ``rllib`` (Ray RLlib's PPO with env runners that each step a batch of
games, on a local Ray or a Ray cluster, ``agents.training.rllib``). Both take a checked
:class:`TrainConfig` and the opponent pool that :func:`prepare` builds.

The learner plays one seat in many games at once on the batched engine; the other seats are
played by opponents drawn from a pool (``aos_env.envs.opponents.OpponentPool``): the agents of
``--opponents`` and frozen snapshots of the learner itself, added as training goes
(``agents.training.selfplay``). Every ``--eval-every`` steps the current policy plays
``--eval-games`` games against each of ``--anchors`` (the same games each time); the win rates
(with 95% confidence intervals) go to TensorBoard, ``history.json``, ``summary.json`` and
``learning_curve.png``, a checkpoint is saved, and the best model so far is kept
(``agents.training.best``). ``--budget`` ends a run on time (``agents.training.budget``); at the
end the final and the best model play games that follow ``--seed`` and that no choice has seen.

Output in ``runs/<name>/`` (``agents.training.run_folder``): ``model.zip`` (sb3, the final model; load it with
``agents.PolicyAgent("runs/<name>/model.zip")``) or ``bot.npz`` (rllib: the policy as a numpy bot
file, ``make_agent("runs/<name>/bot.npz")``) and ``rllib/`` (the RLlib checkpoint that
``--resume`` continues), ``best_model.zip`` (``best_bot.npz``), ``checkpoints/``, ``summary.json``, ``history.json``,
``learning_curve.png``, ``tb/`` (``tensorboard --logdir runs``).

The rooms: ``config`` (TrainConfig, its rules, ``check_config``), ``kinds`` (the fields' rules),
``cli`` (the command line built from the config), ``start`` (``prepare`` and ``train``),
``run_folder`` (the folder, resume and overwrite, history and summary), ``best`` (the evaluations'
seeds and the best model), ``budget`` (``--budget``), ``signals`` (Ctrl-C and SIGTERM), ``plots``,
``selfplay``, ``sb3``, ``rllib`` and ``rllib_ppo``, and ``exploit`` (an exploiter against a frozen
agent: ``python -m agents.training.exploit``, and ``--exploit-steps``).
"""

from .cli import build_parser, check_args, config_from_args, main, run
from .config import MAX_TRAIN_SEED, TRAINERS, OptionError, TrainConfig, check_config
from .rules import DEFAULT_BATCH_SIZE, DEFAULT_NUM_ENVS
from .run_folder import RUN_FILES, Run, clear_run, newest_model, run_holds
from .signals import Interrupted, StopSignal
from .start import Prepared, prepare, set_threads, train

__all__ = [
    "TRAINERS",
    "DEFAULT_BATCH_SIZE",
    "DEFAULT_NUM_ENVS",
    "MAX_TRAIN_SEED",
    "RUN_FILES",
    "TrainConfig",
    "OptionError",
    "Prepared",
    "Run",
    "StopSignal",
    "Interrupted",
    "build_parser",
    "check_args",
    "check_config",
    "clear_run",
    "config_from_args",
    "main",
    "newest_model",
    "prepare",
    "run",
    "run_holds",
    "set_threads",
    "train",
]
