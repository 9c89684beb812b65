"""Train an Age of Summoners bot with PPO and self-play: ``python train.py --help``.

The training code is the package ``agents.training`` (importable: ``agents.training.main(argv)``,
or ``agents.training.train(TrainConfig(...))``); this file is the project's main command.
"""

from __future__ import annotations

import os
import sys

from agents.training import build_parser, check_args, main  # noqa: F401  (the command's names, for scripts and tests)

if __name__ == "__main__":
    from aos_env.base.cli import run_cli

    os.environ.setdefault("PYTHONHASHSEED", "0")
    # exit status: 0 done, 2 a bad option (a usage message), 1 a file that cannot be written,
    # 128 + the signal's number after SIGINT or SIGTERM stopped the run (its model and summary saved),
    # 130 for a Ctrl-C before training started
    run_cli(main, "train.py", sys.argv[1:])
