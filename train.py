"""Train an Age of Summoners bot with PPO and self-play: ``python train.py --help``.

The training code is the package ``agents.training`` (importable: ``agents.training.main(argv)``,
or ``agents.training.train(TrainConfig(...))``); this file is the project's main command.
"""

from __future__ import annotations

import os
import sys

from agents.training import build_parser, check_args, main  # noqa: F401  (the command's names, for scripts and tests)

if __name__ == "__main__":
    os.environ.setdefault("PYTHONHASHSEED", "0")
    main(sys.argv[1:])
