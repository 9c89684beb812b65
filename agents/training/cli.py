"""``python train.py``'s command line, built from :class:`~agents.training.config.TrainConfig`: one
option per field (``--max-turns`` for ``max_turns``), the field's doc as its help, its rule as
argparse's ``type=``. A bad setting is a usage message (exit status 2), never a traceback.
"""

from __future__ import annotations

import argparse
import sys

from aos_env.base.checks import arg_type

from .config import GROUPS, OptionError, TrainConfig, config_fields, option_name
from .signals import Interrupted, StopSignal
from .start import Prepared, prepare, train

DESCRIPTION = (
    "Train an Age of Summoners bot with PPO and self-play: MaskablePPO (sb3-contrib, the default) "
    "or Ray RLlib's PPO (--backend rllib, on a local Ray or a Ray cluster)."
)


class DefaultsHelpFormatter(argparse.HelpFormatter):
    """argparse's ArgumentDefaultsHelpFormatter, without the defaults that say nothing (None, False:
    an option whose help says what happens without it)."""

    def _get_help_string(self, action: argparse.Action) -> str:
        text = action.help or ""
        if action.default in (None, False, argparse.SUPPRESS) or "%(default)" in text:
            return text
        if action.option_strings or action.nargs in (argparse.OPTIONAL, argparse.ZERO_OR_MORE):
            return text + " (default: %(default)s)"
        return text


def build_parser(prog: str | None = None) -> argparse.ArgumentParser:
    """The parser of ``train.py``: every field of TrainConfig, by group, with its default in its help."""
    from agents.registry import SPEC_HELP  # the agent specs in a sentence, for --opponents

    parser = argparse.ArgumentParser(prog=prog or "train.py", description=DESCRIPTION)
    groups = {name: parser.add_argument_group(name) for name in GROUPS}
    for f in config_fields():
        kind, meta = f.metadata["kind"], f.metadata
        shown = kind.show(f.default)
        help_text = meta["doc"].replace("{spec_help}", SPEC_HELP) + (f" (default: {shown})" if shown else "")
        extra = dict(kind.cli)
        if "action" not in extra:  # a flag (--x, or --x/--no-x) takes no value
            extra["type"] = arg_type(kind.parse, type(kind).__name__.lower())
            if "metavar" in meta:
                extra["metavar"] = meta["metavar"]
        names = (option_name(f.name), *meta.get("aliases", ()))  # an older spelling still works
        groups[meta["group"]].add_argument(
            *names, dest=f.name, default=f.default, help=help_text.replace("%", "%%"), **extra
        )
    return parser


def config_from_args(args: argparse.Namespace) -> TrainConfig:
    """The TrainConfig of parsed arguments (not checked yet: ``check_config`` or ``prepare``)."""
    values = {f.name: getattr(args, f.name) for f in config_fields() if hasattr(args, f.name)}
    if isinstance(values.get("opponents"), list):
        values["opponents"] = tuple(values["opponents"])
    return TrainConfig(**values)


def check_args(parser: argparse.ArgumentParser, args: argparse.Namespace) -> Prepared:
    """Everything checked before anything is written (``prepare``), a problem being a usage error
    (``parser.error``: exit status 2). Returns the checked config, the opponent pool built from the
    specs (without 'self': its snapshots join the pool during training) and the model an sb3
    ``--resume`` continues."""
    try:
        return prepare(config_from_args(args))
    except OptionError as e:
        parser.error(e.usage)


def run(parser: argparse.ArgumentParser, config: TrainConfig) -> dict:
    """Train ``config`` as a command does: a bad setting is ``parser.error`` (exit status 2).

    SIGINT or SIGTERM stops the run: its model and its summary (``"interrupted": true``) are saved
    and the process exits with status 128 + the signal's number (a second signal aborts at once). A
    file that cannot be written (a full disk) ends the run with exit status 1 and a message, the
    files written before it whole."""
    with StopSignal() as stop:
        try:
            return train(config, stop)
        except OptionError as e:
            parser.error(e.usage)
        except Interrupted:  # before anything was trained
            print(f"{stop.name}: stopped before training started; nothing was saved", file=sys.stderr, flush=True)
            raise SystemExit(stop.exit_status) from None
        except OSError as e:
            target = f" ({e.filename})" if e.filename else ""
            parser.exit(
                1,
                f"{parser.prog}: error: {e.strerror or e}{target}: the run stopped; the files it wrote "
                "before are whole (every file is written to a temporary name and renamed into place)\n",
            )


def main(argv: list[str] | None = None, prog: str | None = None) -> dict:
    """Train as ``python train.py`` with the command-line arguments ``argv`` (default: sys.argv's);
    returns the run's summary (what summary.json holds). A bad argument is a usage error (SystemExit 2)."""
    parser = build_parser(prog)
    return run(parser, config_from_args(parser.parse_args(argv)))
