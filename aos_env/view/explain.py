"""What an agent weighed at a decision: its legal actions with probabilities (or search values)
and its value estimate, for replays that explain.

An agent may say what it weighed in one of three ways, tried in this order:

1. a method ``weigh(obs, mask, state) -> {"by": ..., "actions": {action: number}, "value": v}``
   (the hook any agent can add; ``by`` is ``"policy"`` for probabilities, ``"search"`` for
   search values);
2. ``log_probs(obs, mask)`` and ``values(obs)``, as the numpy bot (``agents.bot.BotAgent``) has;
3. a Stable-Baselines3 policy in ``agent.policy`` (``agents.policy.PolicyAgent``, a train.py model):
   its action distribution and value head;
4. after ``act``, a search agent may leave ``last_search`` (B, 44): the mean value of each
   searched action (-inf where it searched none), as ``agents.mc.MonteCarloAgent`` does.

Agents that weigh nothing (random, greedy, a human) give None. What is recorded per decision
(:func:`weigh`) is a small JSON object::

    {"by": "policy", "value": 0.75, "actions": [[12, 0.949], [13, 0.051]]}

``actions``: at most :data:`MAX_WEIGHED` legal actions, the most likely (or best valued) first.
"""

from __future__ import annotations

import math
from typing import Any

import numpy as np

from .. import core

#: The most actions a decision records (the most likely first); the rest share what is left.
MAX_WEIGHED = 8
#: How many decimals the numbers keep (a replay is read by people; 3 decimals tell choices apart).
DECIMALS = 3
#: The kinds of weighing a replay may hold.
KINDS = ("policy", "search")


def _round(x: float) -> float:
    return round(float(x), DECIMALS)


def _pack(by: str, scores: dict[int, float], value: float | None) -> dict | None:
    """The recorded form: finite scores only, the best MAX_WEIGHED first."""
    items = [(int(a), float(s)) for a, s in scores.items() if math.isfinite(float(s))]
    if not items:
        return None
    items.sort(key=lambda t: (-t[1], t[0]))
    out: dict[str, Any] = {"by": by, "actions": [[a, _round(s)] for a, s in items[:MAX_WEIGHED]]}
    out["value"] = _round(value) if value is not None and math.isfinite(float(value)) else None
    return out


def weigh(agent: Any, obs: np.ndarray, mask: np.ndarray, state: core.State | None = None) -> dict | None:
    """What ``agent`` weighs at one decision (``obs`` (OBS_DIM,), ``mask`` (44,)), before it acts;
    None if it cannot say. Never raises for an agent that cannot explain itself: an explanation
    is a note, and a game must not stop for want of one."""
    obs = np.asarray(obs, dtype=np.float32)[None]
    mask = np.asarray(mask, dtype=bool)[None]
    legal = np.flatnonzero(mask[0])
    try:
        hook = getattr(agent, "weigh", None)
        if callable(hook):
            got = hook(obs[0], mask[0], state)
            if not isinstance(got, dict) or got.get("by") not in KINDS:
                return None
            scores = {int(a): float(s) for a, s in dict(got.get("actions", {})).items() if mask[0, int(a)]}
            return _pack(got["by"], scores, got.get("value"))
        if callable(getattr(agent, "log_probs", None)):
            probs = np.exp(np.asarray(agent.log_probs(obs, mask), dtype=np.float64)[0])
            value = None
            if callable(getattr(agent, "values", None)):
                try:
                    value = float(np.asarray(agent.values(obs))[0])
                except (ValueError, ArithmeticError):  # a bot without a value network for this game size
                    value = None
            return _pack("policy", {int(a): probs[a] for a in legal}, value)
        policy = getattr(agent, "policy", None)
        if policy is not None and callable(getattr(policy, "get_distribution", None)):
            return _weigh_sb3(policy, obs, mask, legal)
    except (ValueError, TypeError, ArithmeticError, RuntimeError, KeyError, IndexError):
        return None
    return None


def _weigh_sb3(policy: Any, obs: np.ndarray, mask: np.ndarray, legal: np.ndarray) -> dict | None:
    """A MaskablePPO policy's probabilities and value (torch is loaded already: the policy is torch)."""
    import torch

    with torch.no_grad():
        tensor, _ = policy.obs_to_tensor(obs)
        dist = policy.get_distribution(tensor, action_masks=mask)
        probs = dist.distribution.probs.cpu().numpy()[0]
        value = float(policy.predict_values(tensor).cpu().numpy().ravel()[0])
    return _pack("policy", {int(a): probs[a] for a in legal}, value)


def searched(agent: Any, mask: np.ndarray) -> dict | None:
    """After a search agent acted on one decision: the mean value of each action it searched
    (``last_search``), or None. The value is the best action's."""
    last = getattr(agent, "last_search", None)
    if last is None:
        return None
    row = np.asarray(last, dtype=np.float64)
    if row.ndim != 2 or row.shape != (1, core.NUM_ACTIONS):
        return None
    mask = np.asarray(mask, dtype=bool)
    scores = {int(a): row[0, a] for a in np.flatnonzero(mask) if np.isfinite(row[0, a])}
    if len(scores) < 2:  # one action (or a forced move): nothing was weighed
        return None
    return _pack("search", scores, max(scores.values()))


def weigh_on_env(agent: Any, env: Any) -> tuple[int, dict | None]:
    """The action ``agent`` takes for the acting player of an AEC env, and what it weighed."""
    from ..base.registry import act_on_env

    return weigh_and_act(agent, env, act_on_env)


def weigh_and_act(agent: Any, env: Any, act: Any) -> tuple[int, dict | None]:
    """``act(agent, env)`` (the action for the acting player of an AEC env) and what the agent
    weighed there: asked before it acts, or read from its search after (None for a forced move)."""
    obs = env.observe(env.agent_selection)
    mask = np.asarray(obs["action_mask"]).astype(bool)
    choice = int(mask.sum()) > 1
    before = weigh(agent, obs["observation"], mask, env.unwrapped.engine_state) if choice else None
    if hasattr(agent, "last_search"):
        agent.last_search = None
    action = int(act(agent, env))
    if before is None and choice:
        before = searched(agent, mask)
    return action, before


def can_weigh(agent: Any) -> bool:
    """Whether ``agent`` can say what it weighs before it acts (a hook, a numpy bot, an SB3 policy)."""
    policy = getattr(agent, "policy", None)
    return (
        callable(getattr(agent, "weigh", None))
        or callable(getattr(agent, "log_probs", None))
        or callable(getattr(policy, "get_distribution", None))
    )


def weigh_replay(replay: Any, agents: list) -> int:
    """Fill ``replay.weighed`` for the decisions of the seats whose agent (``agents[seat]``) can say
    what it weighed without acting (policies: their numbers do not depend on a random stream, so
    asking afterwards gives what they weighed when they chose). Returns how many were filled."""
    states = list(replay.states())
    weighed = list(replay.weighed) if replay.weighed else [None] * len(replay.actions)
    able = [can_weigh(a) for a in agents]
    filled = 0
    for i, (p, _) in enumerate(replay.actions):
        if not able[p] or weighed[i] is not None:
            continue
        state = states[i]
        if int(state.legal_action_mask[0].sum()) < 2:
            continue  # a forced move: nothing to weigh
        obs = core.observe(state, state.current_player)[0]
        weighed[i] = weigh(agents[p], obs, state.legal_action_mask[0], state)
        filled += weighed[i] is not None
    replay.weighed = weighed
    return filled


def check_weighed(item: Any) -> str | None:
    """What is wrong with one recorded weighing (None if nothing): null, or an object as :func:`_pack` writes."""
    if item is None:
        return None
    if not isinstance(item, dict) or item.get("by") not in KINDS:
        return f"must be null or an object with 'by' one of {', '.join(KINDS)}"
    value = item.get("value")
    if value is not None and (
        isinstance(value, bool) or not isinstance(value, (int, float)) or not math.isfinite(value)
    ):
        return f"value must be null or a finite number, got {value!r:.40}"
    actions = item.get("actions")
    if not isinstance(actions, list) or not 1 <= len(actions) <= core.NUM_ACTIONS:
        return f"actions must list 1..{core.NUM_ACTIONS} [action, number] pairs"
    for pair in actions:
        ok = (
            isinstance(pair, list)
            and len(pair) == 2
            and isinstance(pair[0], int)
            and not isinstance(pair[0], bool)
            and 0 <= pair[0] < core.NUM_ACTIONS
            and isinstance(pair[1], (int, float))
            and not isinstance(pair[1], bool)
            and math.isfinite(pair[1])
        )
        if not ok:
            return f"actions must be [action id 0..{core.NUM_ACTIONS - 1}, finite number] pairs, got {pair!r:.60}"
    return None
