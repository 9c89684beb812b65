"""The rules of :class:`~agents.training.config.TrainConfig`'s fields: each kind checks a value
given in Python (``check``) and reads one from the command line (``parse``), with the same bounds,
so that a rule is written once for both.

``check(option, value)`` returns the value in its stored form (a tuple for a list, a ``Path``
for a path) or raises ``ArgumentError`` starting with ``option``; ``parse(text)`` raises one
starting with "value", which argparse's ``type=`` wrapper (``aos_env.base.checks.arg_type``)
turns into ``argument --x: ...``.
"""

from __future__ import annotations

import argparse
import os
from collections.abc import Callable
from pathlib import Path
from typing import Any

import numpy as np

from aos_env.base.checks import (
    ArgumentError,
    check_bool,
    check_choice,
    check_float,
    check_int,
    check_optional_int,
    check_string,
    fail,
    int_list_arg,
    name_list_arg,
    parse_float_text,
    parse_int_text,
)
from aos_env.envs.opponents import parse_mix_item, parse_specs


class OptionError(ArgumentError):
    """A bad setting: ``option`` is its train.py option (``--max-turns`` for the field
    ``max_turns``); ``usage`` is the message as train.py prints it after ``error:``."""

    def __init__(self, option: str, reason: str, *, whole: bool = False) -> None:
        self.option = option
        self.usage = reason if whole else f"argument {option}: {reason}"
        super().__init__(reason if whole else f"{option} {reason}")


def option_name(name: str) -> str:
    """The command-line option of a field: ``max_turns`` -> ``--max-turns``."""
    return "--" + name.replace("_", "-")


class Kind:
    """A field's rule. ``cli``: argparse's keywords beside ``type`` (``nargs``, ``choices``, ``action``)."""

    cli: dict[str, Any] = {}

    def check(self, option: str, value: Any) -> Any:
        raise NotImplementedError

    def parse(self, text: str) -> Any:
        return self.check("value", text)

    def show(self, value: Any) -> str | None:
        """A default as ``--help`` shows it (None: not shown, e.g. a default filled in later)."""
        return None if value is None else str(value)


class IntKind(Kind):
    """An int in ``low..high``; ``optional``: or None (a default that depends on other fields)."""

    def __init__(self, low: int | None = None, high: int | None = None, *, optional: bool = False) -> None:
        self.low, self.high, self.optional = low, high, optional

    def check(self, option: str, value: Any) -> int | None:
        if self.optional:
            return check_optional_int(option, value, self.low, self.high)
        return check_int(option, value, self.low, self.high)

    def parse(self, text: str) -> int:
        return parse_int_text("value", text, self.low, self.high)


class Float(Kind):
    """A finite number in ``[low, high]`` (``low_open``: ``> low``)."""

    def __init__(self, low: float | None = None, high: float | None = None, *, low_open: bool = False) -> None:
        self.low, self.high, self.low_open = low, high, low_open

    def check(self, option: str, value: Any) -> float:
        return check_float(option, value, self.low, self.high, low_open=self.low_open)

    def parse(self, text: str) -> float:
        return parse_float_text("value", text, self.low, self.high, low_open=self.low_open)

    def show(self, value: Any) -> str | None:
        return f"{value:g}"


class Duration(Kind):
    """A time budget in seconds, or None (no budget): ``90s``, ``15m``, ``2h`` or ``1h30m`` on the
    command line; in Python, those strings or a number of seconds."""

    def check(self, option: str, value: Any) -> float | None:
        from .budget import DURATION_FORMS, check_seconds, parse_duration

        if value is None:
            return None
        if isinstance(value, str):
            try:
                return parse_duration(value)
            except ArgumentError as e:
                raise ArgumentError(option + str(e).removeprefix("value")) from None
        if isinstance(value, bool) or not isinstance(value, (int, float, np.integer, np.floating)):
            raise fail(option, DURATION_FORMS + " (or a number of seconds)", value)
        return check_seconds(option, float(value))

    def parse(self, text: str) -> float:
        from .budget import parse_duration

        return parse_duration(text)

    def show(self, value: Any) -> str | None:
        from .budget import format_duration

        return None if value is None else format_duration(value)


class Choice(Kind):
    """One of ``choices`` (argparse lists them in the usage line)."""

    def __init__(self, choices: tuple[str, ...]) -> None:
        self.choices = choices
        self.cli = {"choices": choices}

    def check(self, option: str, value: Any) -> str:
        return check_choice(option, value, self.choices)

    def parse(self, text: str) -> str:
        return text  # argparse checks the choices itself


class Flag(Kind):
    """True or False; on the command line, an option without a value."""

    cli = {"action": "store_true"}

    def check(self, option: str, value: Any) -> bool:
        return check_bool(option, value)

    def show(self, value: Any) -> str | None:
        return None


class _OnOff(argparse.BooleanOptionalAction):
    """``--x`` / ``--no-x``; its help is given whole (Python 3.9 to 3.12 would add its own default)."""

    def __init__(self, *args: Any, help: str | None = None, **kwargs: Any) -> None:
        super().__init__(*args, **kwargs)
        self.help = help


class Switch(Kind):
    """True or False; on the command line ``--x`` (on) or ``--no-x`` (off). ``optional``: or None (a
    default that depends on other fields, which its documentation says)."""

    cli = {"action": _OnOff}

    def __init__(self, *, optional: bool = False) -> None:
        self.optional = optional

    def check(self, option: str, value: Any) -> bool | None:
        if not self.optional:
            return check_bool(option, value)
        if value is not None and not isinstance(value, (bool, np.bool_)):
            raise fail(option, "True, False or None (its default)", value)
        return None if value is None else bool(value)

    def show(self, value: Any) -> str | None:
        return None if value is None else "on" if value else "off"


def run_name(text: str) -> str:
    """A run's folder name (``--name``): not empty, not ``.`` or ``..``, no path separator."""
    if not text.strip() or text in (".", "..") or "/" in text or "\\" in text:
        raise ArgumentError(f"value must be a folder name (not empty, no '/'), got {text!r}")
    return text


class Text(Kind):
    """A non-empty string that ``rule(text)`` accepts (it raises ``ArgumentError("value ...")``)."""

    def __init__(self, rule: Callable[[str], str], label: str) -> None:
        self.rule, self.label = rule, label

    def check(self, option: str, value: Any) -> str:
        check_string(option, value)
        try:
            return self.rule(value)
        except ArgumentError as e:
            raise ArgumentError(option + str(e).removeprefix("value")) from None

    def parse(self, text: str) -> str:
        return self.rule(text)


class OptionalText(Kind):
    """A string or None (its form is checked where it is used)."""

    def check(self, option: str, value: Any) -> str | None:
        return None if value is None else check_string(option, value, nonempty=False)

    def parse(self, text: str) -> str:
        return text


class PathKind(Kind):
    """A path (``str`` or ``os.PathLike``, kept as ``Path``); ``optional``: or None."""

    def __init__(self, *, optional: bool = False) -> None:
        self.optional = optional

    def check(self, option: str, value: Any) -> Path | None:
        if value is None and self.optional:
            return None
        if not isinstance(value, (str, os.PathLike)) or (isinstance(value, str) and not value.strip()):
            raise fail(option, "a path (str or os.PathLike)" + (" or None" if self.optional else ""), value)
        return Path(value)

    def parse(self, text: str) -> Path:
        return Path(text)


class IntList(Kind):
    """Ints >= ``low``, at least one (``256,256`` on the command line), kept as a tuple."""

    def __init__(self, low: int) -> None:
        self.low = low
        self._parse = int_list_arg(low)

    def check(self, option: str, value: Any) -> tuple[int, ...]:
        allowed = f"a list of ints >= {self.low} (at least one)"
        if isinstance(value, np.ndarray):
            value = value.tolist()
        if not isinstance(value, (list, tuple)) or not value:
            raise fail(option, allowed, value)
        return tuple(check_int(f"{option}[{i}]", v, self.low) for i, v in enumerate(value))

    def parse(self, text: str) -> tuple[int, ...]:
        return tuple(self._parse(text))

    def show(self, value: Any) -> str | None:
        return ",".join(map(str, value))


class Names(Kind):
    """Agent specs, at least one, none twice (``random,greedy`` on the command line), as a tuple.
    In Python a spec may hold commas (``mc:rollouts=8,leaf_value=score``)."""

    def check(self, option: str, value: Any) -> tuple[str, ...]:
        allowed = "a list of agent specs (non-empty strings), at least one, none twice"
        if (
            not isinstance(value, (list, tuple))
            or not value
            or not all(isinstance(v, str) and v.strip() for v in value)
        ):
            raise fail(option, allowed, value)
        if len(set(value)) != len(value):
            raise fail(option, allowed, value)
        return tuple(value)

    def parse(self, text: str) -> tuple[str, ...]:
        return tuple(name_list_arg(text))

    def show(self, value: Any) -> str | None:
        return ",".join(value)


class Mix(Kind):
    """An opponent mix: ``(spec, weight)`` pairs (``greedy@0.5 random@0.5`` on the command line, or
    any form of ``aos_env.envs.opponents.parse_specs``), kept as a tuple of pairs."""

    cli = {"nargs": "+"}

    def check(self, option: str, value: Any) -> tuple[tuple[str, float], ...]:
        return tuple(parse_specs(value, option))

    def parse(self, text: str) -> tuple[str, float]:
        return parse_mix_item(text)

    def show(self, value: Any) -> str | None:
        return " ".join(f"{s}@{w:g}" for s, w in value)


class Truncation(Kind):
    """The reward of a game that reaches the turn limit: ``"loss"``, None (the game's own 0; ``zero``
    on the command line) or a finite number."""

    def check(self, option: str, value: Any) -> str | float | None:
        if value is None or value == "loss":
            return value
        if value == "zero":
            return None
        if isinstance(value, str):
            raise fail(option, "'loss', 'zero' or None (the game's own 0), or a finite number", value)
        return check_float(option, value)

    def parse(self, text: str) -> str | float | None:
        if text in ("loss", "zero"):
            return None if text == "zero" else text
        try:
            value = float(text)
        except ValueError:
            raise ArgumentError(f"value must be loss, zero or a number, got {text!r}") from None
        if not np.isfinite(value):
            raise ArgumentError(f"value must be a finite number, got {text!r}")
        return value
