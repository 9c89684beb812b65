"""The opponent pool of the learner envs: named agents with draw weights, and the agent specs
(``"greedy@0.5 random@0.5"``) that fill it.

``OpponentPool`` is what every learner env (``aos_env.envs.learner.LearnerEnv`` and the
Gymnasium, SB3 and RLlib views of it) draws the other seats from; ``train.py`` fills it from
``--opponents`` and adds the learner's frozen snapshots as it trains. Weights can be changed at
any time (``set_weight``, ``set_weights``), so a trainer can steer the draw, e.g. towards the
opponents the learner loses to. A spec ``i`` of a mix is built with
``make_agent(spec, seed=opponent_seed(seed, i))``, in every env and in train.py alike.
"""

from __future__ import annotations

from collections.abc import Collection, Iterator, Mapping
from typing import Any

import numpy as np

from ..base.checks import (
    ArgumentError,
    check_choice,
    check_float,
    check_optional_seed,
    check_string,
    fail,
    parse_float_text,
)

#: Spec ``i`` of an opponent mix plays with seed ``seed + OPPONENT_SEED_STEP * i`` (as train.py always did).
OPPONENT_SEED_STEP = 11
#: The forms ``parse_specs`` takes, for its messages.
_SPEC_FORMS = "agent specs: 'greedy', 'greedy@0.5 random@0.5', a list of spec@weight, or a dict {spec: weight}"


class OpponentError(ValueError):
    """An opponent agent returned something that is not a legal action (or raised); the env was left
    as it was before the step."""


def opponent_seed(seed: int | None, index: int) -> int | None:
    """The seed of spec ``index`` of a mix seeded with ``seed`` (None: fresh entropy for each)."""
    return None if seed is None else seed + OPPONENT_SEED_STEP * index


# ---- specs -------------------------------------------------------------------------------------


def parse_mix_item(text: str, name: str = "value") -> tuple[str, float]:
    """``"greedy@0.5"`` -> ``("greedy", 0.5)``; ``"random"`` -> ``("random", 1.0)`` (the spec is not built).
    ``name``: the argument's name in messages (train.py's argparse strips "value")."""
    if not isinstance(text, str):
        raise fail(name, "spec@weight strings such as 'greedy@0.5'", text)
    spec, sep, weight = text.rpartition("@")
    if not sep:
        spec, weight = text, "1"
    if not spec.strip():
        raise ArgumentError(f"{name} must be spec@weight (e.g. greedy@0.5), got {text!r}")
    try:
        w = parse_float_text("weight", weight.strip(), 0)
    except ArgumentError as e:
        raise ArgumentError(f"{name} {text!r}: {e} (use spec@weight, e.g. greedy@0.5)") from None
    return spec.strip(), w


def _pair(item: Any, name: str) -> tuple[str, float]:
    """One item of a list: ``"spec@weight"`` or a ``(spec, weight)`` pair."""
    if isinstance(item, tuple) and len(item) == 2 and isinstance(item[0], str):
        spec = check_string(f"{name} (a spec)", item[0]).strip()
        return spec, check_float(f"{name}[{spec!r}]", item[1], 0)
    return parse_mix_item(item, name)


def parse_specs(opponents: Any, name: str = "opponents") -> list[tuple[str, float]]:
    """``[(spec, weight), ...]`` from the forms an opponent mix is given in (no agent is built):

    - a string of ``spec@weight`` items separated by spaces: ``"greedy@0.5 random@0.5"``,
      ``"greedy"`` (weight 1), ``"mc:rollouts=8@2"``;
    - a list of such items, or of ``(spec, weight)`` pairs: ``["greedy@0.5", "random"]``;
    - a dict ``{spec: weight}``.

    Every weight is a finite number >= 0 and no spec is given twice (ArgumentError naming ``name``).
    """
    if isinstance(opponents, str):
        if not opponents.strip():
            raise fail(name, _SPEC_FORMS, opponents)
        items = [parse_mix_item(t, name) for t in opponents.split()]
    elif isinstance(opponents, (list, tuple)):
        if not opponents:
            raise fail(name, _SPEC_FORMS, opponents)
        items = [_pair(t, name) for t in opponents]
    elif isinstance(opponents, Mapping):
        if not opponents:
            raise fail(name, _SPEC_FORMS, opponents)
        items = []
        for spec, w in opponents.items():
            check_string(f"{name} (a spec)", spec)
            items.append((spec, check_float(f"{name}[{spec!r}]", w, 0)))
    else:
        raise fail(name, _SPEC_FORMS, opponents)
    seen: set[str] = set()
    for spec, _ in items:
        if spec in seen:
            raise ArgumentError(f"{name}: {spec!r} is given twice")
        seen.add(spec)
    return items


# ---- the pool -----------------------------------------------------------------------------------


class OpponentPool:
    """Named opponent agents with draw weights: each new game draws, for every seat but the
    learner's, an opponent with probability proportional to its weight.

    Every change is checked before it is made: names are non-empty strings, agents have
    ``act(obs, mask, state)``, weights are finite and >= 0, and the pool never loses its last
    opponent of weight > 0. A removed (or replaced) opponent is no longer drawn, but the games
    it is playing keep it until they end.
    """

    def __init__(self, opponents: Mapping[str, tuple[Any, float]] | None = None) -> None:
        self._names: list[str | None] = []  # None: a removed opponent's slot (its agent may still play)
        self._agents: list[Any] = []
        self._weights = np.zeros(0)
        if opponents is not None:
            if not isinstance(opponents, Mapping):
                raise fail("opponents", "a dict {name: (agent, weight)}", opponents)
            for name, entry in opponents.items():
                if not isinstance(entry, tuple) or len(entry) != 2:
                    raise fail(f"opponents[{name!r}]", "an (agent, weight) pair", entry)
                self.add(name, *entry)

    @classmethod
    def from_specs(
        cls, opponents: Any, seed: int | None = 0, *, reserved: Collection[str] = (), name: str = "opponents"
    ) -> OpponentPool:
        """A pool from agent specs, as ``train.py --opponents`` takes them: any form of
        :func:`parse_specs`, a dict ``{name: (agent, weight)}``, or an ``OpponentPool`` (returned
        as it is).

        Spec ``i`` is built with ``make_agent(spec, seed=opponent_seed(seed, i))``; an agent that
        cannot be built is an ArgumentError naming its spec (FileNotFoundError for a missing file).
        ``reserved``: specs that a trainer fills itself (train.py's ``self``, the learner's own
        snapshots): they keep their place in the count of seeds but build nothing, and the pool
        may then have no opponent of weight > 0 yet. Any other ``self`` is an error.
        """
        if isinstance(opponents, OpponentPool):
            return opponents
        seed = check_optional_seed("seed", seed)
        if isinstance(opponents, Mapping) and opponents and all(isinstance(v, tuple) for v in opponents.values()):
            pool = cls(opponents)
            pool.check_drawable(name)
            return pool
        items = parse_specs(opponents, name)
        from ..base.registry import make_agent  # agents by name, without importing the agents package

        pool = cls()
        for i, (spec, w) in enumerate(items):
            if spec in reserved:
                continue
            if spec == "self":
                raise ArgumentError(
                    f"{name}: 'self' (the learner's own snapshots) is train.py's; add snapshots "
                    "with env.opponents.add(name, agent, weight)"
                )
            try:
                agent = make_agent(spec, seed=opponent_seed(seed, i))
            except (ArgumentError, FileNotFoundError):
                raise
            except Exception as e:  # what a broken file raises in its reader (BadZipFile, EOFError, ...)
                raise ArgumentError(f"{name}: agent {spec!r} cannot be loaded ({type(e).__name__}: {e})") from e
            pool.add(spec, agent, w)
        if not any(spec in reserved for spec, _ in items):
            pool.check_drawable(name)
        return pool

    # -- changes -----------------------------------------------------------------------------------

    def add(self, name: str, agent: Any, weight: float = 1.0) -> None:
        """Add an opponent (or replace the one of that name: games it is playing keep the old agent)."""
        check_string("name", name)
        if isinstance(agent, type) or not callable(getattr(agent, "act", None)):  # an instance, not a class
            raise fail("agent", "an agent with act(obs, mask, state) (agents.make_agent, agents.BaseAgent)", agent)
        weight = check_float("weight", weight, 0)
        if name in self and weight <= 0 and self._weights.sum() - self._weights[self._slot(name)] <= 0:
            raise ArgumentError(f"weight: replacing {name!r} with weight 0 would leave no opponent of weight > 0")
        if name in self:
            self._retire(self._slot(name))
        free = [i for i, a in enumerate(self._agents) if a is None]
        if free:
            i = free[0]
            self._names[i], self._agents[i], self._weights[i] = name, agent, weight
        else:
            self._names.append(name)
            self._agents.append(agent)
            self._weights = np.append(self._weights, weight)

    def remove(self, name: str) -> None:
        """Stop drawing this opponent for new games (the games it is playing keep it)."""
        i = self._slot(check_choice("name", name, self.names))
        if self._weights.sum() - self._weights[i] <= 0:
            raise ArgumentError(f"name: removing {name!r} would leave no opponent of weight > 0 (add another first)")
        self._retire(i)

    def set_weight(self, name: str, weight: float) -> None:
        """Draw ``name`` with this weight from now on."""
        i = self._slot(check_choice("name", name, self.names))
        weight = check_float("weight", weight, 0)
        if weight <= 0 and self._weights.sum() - self._weights[i] <= 0:
            raise ArgumentError(f"weight: {name!r} is the only opponent of weight > 0; its weight must stay > 0")
        self._weights[i] = weight

    def set_weights(self, weights: Mapping[str, float]) -> None:
        """Draw each opponent named in ``weights`` with its new weight (the others keep theirs): all
        of them checked first, then changed together, so that a trainer can move the whole draw
        at once (e.g. from the learner's win rates) without passing through a pool of weight 0."""
        if not isinstance(weights, Mapping):
            raise fail("weights", "a dict {name: weight}", weights)
        new = self._weights.copy()
        for name, weight in weights.items():
            new[self._slot(check_choice("name", name, self.names))] = check_float(f"weights[{name!r}]", weight, 0)
        if new.sum() <= 0:
            raise ArgumentError(f"weights: {dict(weights)} would leave no opponent of weight > 0")
        self._weights = new

    def _retire(self, i: int) -> None:
        self._names[i] = None
        self._weights[i] = 0.0

    def release(self, in_use: np.ndarray) -> None:
        """Forget removed opponents that no game in ``in_use`` (slot ids) plays any more."""
        for i, name in enumerate(self._names):
            if name is None and self._agents[i] is not None and not (in_use == i).any():
                self._agents[i] = None

    # -- reading -----------------------------------------------------------------------------------

    @property
    def names(self) -> list[str]:
        return [n for n in self._names if n is not None]

    def weights(self) -> dict[str, float]:
        """{name: weight} of the opponents that new games draw from."""
        return {n: float(w) for n, w in zip(self._names, self._weights, strict=True) if n is not None}

    def agents(self) -> dict[str, Any]:
        return {n: a for n, a in zip(self._names, self._agents, strict=True) if n is not None}

    def __contains__(self, name: object) -> bool:
        return isinstance(name, str) and name in self._names

    def __len__(self) -> int:
        return len(self.names)

    def __iter__(self) -> Iterator[str]:
        return iter(self.names)

    def __repr__(self) -> str:
        return "OpponentPool(" + ", ".join(f"{n}@{w:g}" for n, w in self.weights().items()) + ")"

    def _slot(self, name: str) -> int:
        return self._names.index(name)

    def slot_name(self, slot: int) -> str:
        """The name of a slot's opponent (a removed one keeps a name with '(removed)')."""
        name = self._names[slot]
        return name if name is not None else f"{self._agents[slot].name} (removed)"

    def slot_agent(self, slot: int) -> Any:
        return self._agents[slot]

    def check_drawable(self, name: str = "opponents") -> None:
        if not len(self) or self._weights.sum() <= 0:
            given = " ".join(f"{n}@{w:g}" for n, w in self.weights().items()) or "no opponents"
            raise ArgumentError(f"{name} must have at least one opponent of weight > 0, got {given}")

    def draw(self, rng: np.random.Generator, size: tuple[int, ...]) -> np.ndarray:
        """Slot ids of ``size`` opponents drawn by weight (use ``slot_agent`` / ``slot_name``)."""
        return self.pick(rng.random(size))

    def pick(self, u: np.ndarray) -> np.ndarray:
        """Slot ids of opponents chosen by weight with uniforms ``u`` in [0, 1) (any shape): slot ``i``
        for ``u`` in its share of the cumulative weights, so that slots of weight 0 are never chosen."""
        cum = np.cumsum(self._weights)
        slots = np.searchsorted(cum / cum[-1], u, side="right")
        return np.minimum(slots, int(np.flatnonzero(self._weights > 0)[-1]))  # rounding at the top end

    def reseed(self, rng: np.random.Generator) -> None:
        """Give every agent that has ``reset(seed=...)`` a new seed drawn from ``rng``."""
        seeds = rng.integers(0, 2**62, size=len(self._agents))
        for agent, s in zip(self._agents, seeds, strict=True):
            if agent is not None and callable(getattr(agent, "reset", None)):
                agent.reset(seed=int(s))

    def rng_states(self) -> list:
        """The agents' numpy random streams, to be put back with ``set_rng_states`` (rollback)."""
        return [
            a.rng.bit_generator.state if isinstance(getattr(a, "rng", None), np.random.Generator) else None
            for a in self._agents
        ]

    def set_rng_states(self, states: list) -> None:
        # strict=False: agents added since the states were taken have none to put back
        for a, s in zip(self._agents, states, strict=False):
            if s is not None:
                a.rng.bit_generator.state = s
