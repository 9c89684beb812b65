"""The players: every agent that chooses actions (``act(obs, mask, state=None)``, see ``base``).

- ``base``: the ``Agent`` protocol, ``BaseAgent`` and the helpers that ask an agent for an env's or
  a state's action (``act_on_env``, ``act_on_state``).
- ``random_agent``, ``greedy`` (its compiled kernel in ``_greedy_kernel``), ``mc`` (Monte-Carlo
  search), ``bot`` (a trained policy on numpy alone) and ``policy`` (a ``train.py`` model, torch).

Build them by name with ``agents.make_agent``; this package imports no module of its own, so that
importing one player loads only what that player needs.
"""
