"""Prioritised fictitious self-play (PFSP): how often the learner meets each member of the league.

Each member's weight comes from the learner's recent win rate ``p`` against it (AlphaStar,
Vinyals et al. 2019):

- ``hard``: ``f(p) = (1 - p) ** power`` (power 2 by default): the members the learner loses to
  are drawn most, the ones it always beats almost never;
- ``variance``: ``f(p) = p (1 - p)``: the members it beats about half the time, the most
  informative games;
- ``even``: ``f(p) = 1``: every member alike (plain fictitious self-play).

A member not played yet counts as ``p = PRIOR`` (0.5). The values are scaled so that the largest
is 1 and then lifted to at least ``floor`` (``w = floor + (1 - floor) f / max f``), so that no
member starves: a member the learner beats today is still met now and then, and its win rate
stays measured. If every ``f`` is 0 (all members beaten), all weigh the same.
"""

from __future__ import annotations

from collections.abc import Mapping

from aos_env.base.checks import ArgumentError, check_choice, check_float, fail

#: The weightings of ``--pfsp``.
MODES = ("hard", "variance", "even")
#: AlphaStar's exponent of the ``hard`` weighting.
DEFAULT_POWER = 2.0
#: The win rate assumed against a member without games yet.
PRIOR = 0.5
#: The least weight of a member, as a fraction of the heaviest one.
DEFAULT_FLOOR = 0.05


def priority(p: float, mode: str = "hard", power: float = DEFAULT_POWER) -> float:
    """``f(p)`` of the weighting ``mode`` for a win rate ``p`` in [0, 1] (see the module docstring)."""
    p = check_float("p", p, 0, 1)
    mode = check_choice("mode", mode, MODES)
    power = check_float("power", power, 0, low_open=True)
    if mode == "hard":
        return float((1.0 - p) ** power)
    if mode == "variance":
        return p * (1.0 - p)
    return 1.0


def pfsp_weights(
    win_rates: Mapping[str, float | None],
    mode: str = "hard",
    power: float = DEFAULT_POWER,
    floor: float = DEFAULT_FLOOR,
) -> dict[str, float]:
    """``{name: weight}`` in [floor, 1] from ``{name: win rate}`` (None: not played yet, ``PRIOR``).

    The weights are relative (``OpponentPool.set_weights`` takes them as they are); every argument
    is checked before anything is computed."""
    if not isinstance(win_rates, Mapping):
        raise fail("win_rates", "a dict {name: win rate in [0, 1] or None}", win_rates)
    mode = check_choice("mode", mode, MODES)
    power = check_float("power", power, 0, low_open=True)
    floor = check_float("floor", floor, 0, 1)
    rates = {}
    for name, p in win_rates.items():
        if not isinstance(name, str) or not name:
            raise fail("win_rates", "a dict with non-empty names", name)
        rates[name] = PRIOR if p is None else check_float(f"win_rates[{name!r}]", p, 0, 1)
    if not rates:
        raise ArgumentError("win_rates must name at least one member, got {}")
    f = {n: priority(p, mode, power) for n, p in rates.items()}
    top = max(f.values())
    if top <= 0:
        return {n: 1.0 for n in f}
    return {n: floor + (1.0 - floor) * v / top for n, v in f.items()}
