"""The declarative game definition: one table per concern, both engines wired from it.

- the phase table (``core.phases.PHASES``) names every phase's handlers, and both engines dispatch
  exactly as it says (the numpy engine's tables, the numba engine's generated dispatch source);
- both engines fill the observation with ``obs_layout``'s scales;
- the R6 action table, the R7.4 tie-break and the end of a truncated game have one home each;
- importing and running the engine leaves ``numba.config`` as it was, and a second process reuses
  the compiled cache.
"""

from __future__ import annotations

import ast
import importlib
import inspect
import json
import os
import subprocess
import sys
import textwrap
from pathlib import Path

import numpy as np
import pytest

from aos_env import core
from aos_env.base.checks import ArgumentError
from aos_env.core import api, constants, obs_layout, phases, scores
from aos_env.core.phases import MASK_FUNCTIONS, OWN_MASK, PHASES, Kind, Mask, Phase
from aos_env.core.state import STAT_ICONS, STAT_SPECIAL
from aos_env.tools.positions import position

ROOT = Path(__file__).resolve().parents[1]
pytestmark = pytest.mark.one_backend  # each test runs both engines itself


def _np(module: str):
    return importlib.import_module(f"aos_env.core.np_engine.{module}")


def _nb(module: str):
    return importlib.import_module(f"aos_env.core.nb_engine.{module}")


def _defines(module, name: str) -> bool:
    """Whether ``module`` defines function ``name`` (not only imports it)."""
    fn = getattr(module, name, None)
    fn = getattr(fn, "py_func", fn)  # a numba dispatcher: its Python function
    return fn is not None and getattr(fn, "__module__", None) == module.__name__


def _handlers() -> list[tuple[Phase, str, str, str]]:
    """Every (phase, role, module, function) the table names."""
    out = []
    for p, info in PHASES.items():
        if info.kind is Kind.INTERNAL:
            out.append((p, "run", info.module, info.run))
        elif info.kind is Kind.DECISION:
            out.append((p, "apply", info.module, info.apply))
            module, fn = MASK_FUNCTIONS.get(info.mask, (info.module, info.mask_fn))
            if info.mask in OWN_MASK or info.mask in MASK_FUNCTIONS:
                out.append((p, "mask", module, fn))
            if info.forced:
                out.append((p, "forced", info.module, info.forced))
    return out


# ---- the phase table drives both engines ---------------------------------------------------------


def test_every_phase_has_a_row_of_its_kind() -> None:
    assert set(PHASES) == set(Phase)
    assert [p for p in Phase if PHASES[p].kind is Kind.GAME_OVER] == [Phase.GAME_OVER]
    for p, info in PHASES.items():
        assert info.decision == (info.kind is Kind.DECISION) == bool(info.question), p
        if info.kind is Kind.DECISION:
            assert info.mask in Mask and info.apply and info.module, p
        if info.kind is Kind.INTERNAL:
            assert info.run and info.obs == -1 and not info.question, p
    assert [PHASES[p].obs for p in core.OBS_PHASES] == list(range(len(core.OBS_PHASES)))
    assert phases.FORCED_PART == tuple(p for p in Phase if PHASES[p].forced)


@pytest.mark.parametrize("engine", ["np", "nb"])
def test_every_handler_the_table_names_exists_in_both_engines(engine: str) -> None:
    """The same function in the same module with the same name, in each engine."""
    get = _np if engine == "np" else _nb
    missing = [f"{m}.{fn} ({role} of {p.name})" for p, role, m, fn in _handlers() if not _defines(get(m), fn)]
    assert not missing, f"{engine}_engine lacks {missing}"


def test_numba_handlers_take_the_uniform_arguments() -> None:
    """The generated dispatch calls every handler the same way: (r, t, P, ...)."""
    tails = {"run": ["max_turns"], "forced": [], "mask": ["mask"]}
    for p, role, m, fn in _handlers():
        params = list(inspect.signature(getattr(_nb(m), fn).py_func).parameters)
        assert params[:3] == ["r", "t", "P"], f"nb_engine.{m}.{fn}{tuple(params)}"
        if role == "apply":
            assert len(params) == 4, f"nb_engine.{m}.{fn}{tuple(params)}"
        else:
            assert params[3:] == tails[role], f"nb_engine.{m}.{fn}{tuple(params)}"


def test_numpy_dispatch_tables_come_from_the_table() -> None:
    from aos_env.core.np_engine import engine as E

    assert set(E.DECISIONS) == set(phases.DECISIONS)
    assert set(E.INTERNAL) == set(phases.INTERNAL)
    assert set(E.FORCED_PART) == set(phases.FORCED_PART)
    for p in phases.INTERNAL:
        assert E.INTERNAL[p] is getattr(_np(PHASES[p].module), PHASES[p].run), p
        assert E._RUN[p] is E.INTERNAL[p]
    for p in phases.FORCED_PART:
        assert E.FORCED_PART[p] is getattr(_np(PHASES[p].module), PHASES[p].forced), p
        assert E._FORCED[p] is E.FORCED_PART[p]
    assert [p for p in Phase if E._FORCED[p] is not None] == list(phases.FORCED_PART)
    for p in phases.DECISIONS:
        info = PHASES[p]
        apply = E.DECISIONS[p][1]
        if info.mask is not Mask.UNITS:  # UNITS: wrapped to hand over the unit
            assert apply is getattr(_np(info.module), info.apply), p


def _calls_by_phase(source: str) -> dict[str, dict[str, list[str]]]:
    """function name -> phase name -> the calls (``module.function``) of its branch, from the source."""
    out: dict[str, dict[str, list[str]]] = {}
    for fn in ast.parse(source).body:
        if not isinstance(fn, ast.FunctionDef):
            continue
        branches: dict[str, list[str]] = {}
        for node in ast.walk(fn):
            if isinstance(node, ast.If):
                names = [c.attr for c in ast.walk(node.test) if isinstance(c, ast.Attribute)]
                calls = [ast.unparse(c.func) for stmt in node.body for c in ast.walk(stmt) if isinstance(c, ast.Call)]
                for name in names:
                    assert name not in branches, f"{fn.name}: {name} in two branches"
                    branches[name] = calls
        if fn.name == "has_forced_part":
            ret = fn.body[-1]
            branches = {c.attr: [] for c in ast.walk(ret) if isinstance(c, ast.Attribute)}
        out[fn.name] = branches
    return out


def test_numba_dispatch_source_says_what_the_table_says() -> None:
    """Each phase is in the generated dispatch exactly where its row puts it, calling the
    functions its row names."""
    from aos_env.core.nb_engine import engine

    found = _calls_by_phase(engine.DISPATCH_SOURCE)
    want: dict[str, dict[str, list[str]]] = {
        f: {} for f in ("run_internal", "has_forced_part", "forced_part", "fill_mask", "apply_decision")
    }
    for p, role, m, fn in _handlers():
        call = [f"{m}.{fn}"]
        if role == "run":
            want["run_internal"][p.name] = call
        elif role == "apply":
            want["apply_decision"][p.name] = call
        elif role == "mask":
            want["fill_mask"][p.name] = call
        else:
            want["forced_part"][p.name] = call
            want["has_forced_part"][p.name] = []
    for p in phases.DECISIONS:
        if PHASES[p].mask in (Mask.YES_NO, Mask.OPTIONS):
            want["fill_mask"][p.name] = []  # the fixed masks are written in place
    assert found == want


def test_a_change_to_a_phase_is_one_row(monkeypatch) -> None:
    """Renaming a handler in the row changes both engines' wiring (here: the generated source)."""
    from aos_env.core.nb_engine import engine

    row = PHASES[Phase.KEEP]
    changed = dict(PHASES)
    changed[Phase.KEEP] = type(row)(**{**row.__dict__, "apply": "apply_keep_differently"})
    monkeypatch.setattr(engine, "PHASES", changed)
    source = engine.dispatch_source()
    assert _calls_by_phase(source)["apply_decision"]["KEEP"] == ["turn.apply_keep_differently"]
    assert source.replace("apply_keep_differently", "apply_keep") == engine.DISPATCH_SOURCE


def test_compiled_forced_part_and_internal_flags_follow_the_table() -> None:
    from aos_env.core.nb_engine import engine

    assert [p for p in Phase if engine.has_forced_part(int(p))] == list(phases.FORCED_PART)
    assert [p for p in Phase if engine._IS_INTERNAL[p]] == list(phases.INTERNAL)


def test_the_same_jobs_have_the_same_names_in_both_engines() -> None:
    """Mask functions and helpers that do the same job sit in the same module under one name."""
    same = {
        "zones": [
            "hand_mask",
            "offer_mask",
            "give_up_unit",
            "give_up_units",
            "choosable_units",
            "draw_from_deck",
            "take_mana",
            "take_stone",
        ],
        "abilities": ["cost_reduction", "baldanders_count", "compared_faith", "leprechaun_count"],
        "summon": ["summon_cost", "summonable", "start_summon", "start_payment"],
        "choice": ["ordered_choice_mask", "forced_units", "last_unit", "discard_from_hand"],
    }
    for module, names in same.items():
        for name in names:
            assert _defines(_np(module), name) and _defines(_nb(module), name), f"{module}.{name}"
    gone_from = {"turn": ["command_mask", "offer_mask"], "summon": ["cost_reduction", "baldanders_count"]}
    for module, gone in gone_from.items():
        for name in gone:
            assert not _defines(_np(module), name) and not _defines(_nb(module), name), f"{module}.{name}"


# ---- the observation: both engines use obs_layout's scales -----------------------------------------

_PLAYED_NEVER = {Phase.LEPRECHAUN, Phase.LEPRECHAUN_DISCARD, Phase.COMMAND, Phase.GAME_OVER}


def _played(state: core.State, b: int) -> bool:
    """Whether this turn's command number is known (the observation's ``action`` one-hot)."""
    ph = Phase(int(state.phase[b]))
    if ph in _PLAYED_NEVER:
        return False
    if ph in (Phase.SHORTAGE_HAND, Phase.SHORTAGE_MANA):
        return int(state.draw_return[b]) not in (Phase.LEPRECHAUN_DRAWN, Phase.COMMAND_DONE)
    return True


def _one_hot(size: int, at: int | None) -> np.ndarray:
    out = np.zeros(size)
    if at is not None:
        out[at] = 1
    return out


def _raw(state: core.State, b: int, player: int) -> dict[str, np.ndarray]:
    """The raw numbers of every slot of ``player``'s observation of game b, from the state's
    fields (the meanings of obs_layout, computed here without either engine)."""
    P, K = state.num_players, state.cards.num_kinds
    ph = Phase(int(state.phase[b]))
    played = _played(state, b)
    summoning = state.summon_kind[b] >= 0
    repeated = PHASES[ph].repeated
    declared = state.declarer[b] >= 0
    sees_offer = bool(state.offer_public[b]) or player == state.active_player[b]
    raw = {
        "num_players": _one_hot(3, P - 2),
        "phase": _one_hot(len(core.OBS_PHASES), core.OBS_PHASES.index(ph)),
        "action": _one_hot(
            constants.NUM_GAME_ACTIONS, constants.GAME_ACTION_OF_NUMBER[state.command_number[b]] if played else None
        ),
        "command_number": [state.command_number[b]],
        "head_number": [state.head_number[b] if played else 0],
        "deck_size": [state.deck[b].sum()],
        "discard_size": [state.discard[b].sum()],
        "turn": [state.turn[b]],
        "declared": [int(declared)],
        "turns_left": [state.last_turn[b] - state.turn[b] + 1 if declared else 0],
        "count": [state.choice_left[b] if repeated else 0],
        "floor": [state.choice_floor[b] if repeated else 0],
        "summoning": _one_hot(K, state.summon_kind[b] if summoning else None),
        "cost_need": state.pay_need[b] * summoning,
        "cost_any": [state.pay_any[b] * summoning],
        "paid": state.paid[b] * summoning,
        "offer_size": [state.offer[b].sum()],
        "offer": state.offer[b] * sees_offer,
        "hand": state.hand[b, player],
    }
    first = (state.active_player[b] - state.turn[b] + (ph == Phase.GAME_OVER)) % P
    final = core.final_scores(state, [b])[0]
    colour = state.cards.colour
    for seat in range(constants.MAX_PLAYERS):
        q = (player + seat) % P
        here = seat < P
        mana, stones = state.mana[b, q], state.stones[b, q]
        seat_raw = {
            "present": [1],
            "is_active": [q == state.active_player[b]],
            "is_current": [q == state.current_player[b]],
            "is_declarer": [q == state.declarer[b]],
            "is_first": [q == first],
            "vp": [state.vp[b, q]],
            "faith": [state.faith[b, q]],
            "compared_faith": [state.faith[b, q] + 2 * state.stats[b, q, STAT_SPECIAL["pegasus"]]],
            "hand_size": [state.hand[b, q].sum()],
            "stones": [stones.sum()],
            "mana_total": [mana.sum() + stones.sum()],
            "spirit_count": [state.spirits[b, q].sum()],
            "score": [final[q]],
            "mana_colours": np.bincount(colour, weights=mana, minlength=constants.NUM_COLOURS),
            "icons": state.stats[b, q, STAT_ICONS],
            "has_head": [state.head[b, q] >= 0],
            "head": _one_hot(K, state.head[b, q] if state.head[b, q] >= 0 else None),
            "mana": mana,
            "spirits": state.spirits[b, q],
        }
        for name, value in seat_raw.items():
            raw[f"seat{seat}.{name}"] = np.asarray(value, dtype=np.float64) * here
    return {name: np.asarray(v, dtype=np.float64) for name, v in raw.items()}


def _encoded(raw: np.ndarray, name: str, state: core.State) -> np.ndarray:
    """Entries of slot ``name`` as obs_layout says: raw / scale, divided in float64, as float32."""
    base = name.split(".")[-1]
    scale = obs_layout.SCALE[base]
    if base in obs_layout.GAME_SCALED:
        scale = float(getattr(state, obs_layout.GAME_SCALED[base]))
    return (raw / scale).astype(np.float32)


def _sample_states() -> list[core.State]:
    """Games in many phases: random play from new games, and declared positions."""
    out = []
    for P in (2, 3, 4):
        state = core.init(12, P, seed=100 + P, max_turns=40, backend="numpy")
        rng = np.random.default_rng(P)
        for i in range(80):
            if i % 10 == 0:
                out.append(state.copy())
            core.step(state, np.argmax(state.legal_action_mask * rng.random(state.legal_action_mask.shape), axis=1))
        out.append(state.copy())
    declared = position(
        4,
        [{"hand": ["Imp", "Angel"], "vp": 31}, {"hand": ["Imp"]}, {"hand": ["Fairy"]}, {}],
        active=1,
        turn=7,
        declarer=0,
        num_envs=2,
    )
    out.append(declared.with_backend("numpy"))
    return out


def test_both_engines_fill_the_observation_with_obs_layouts_scales() -> None:
    """For every slot of every player's observation, in many positions: the entries are the raw
    numbers of the state divided by the slot's scale in obs_layout (both engines, bit for bit),
    and ``obs_value`` gives the raw numbers back."""
    slices = core.obs_slices()
    seen = {name: False for name in slices}
    for ref in _sample_states():
        fast = ref.with_backend("numba")
        P = ref.num_players
        for player in range(P):
            obs = {"numpy": core.observe(ref, player), "numba": core.observe(fast, player)}
            for b in range(ref.batch_size):
                raw = _raw(ref, b, player)
                for name, sl in slices.items():
                    want = _encoded(raw[name], name, ref)
                    for backend, o in obs.items():
                        assert np.array_equal(o[b, sl], want), (
                            f"{backend}: slot {name} of player {player} in phase {Phase(int(ref.phase[b])).name}: "
                            f"{o[b, sl].tolist()} != raw {raw[name].tolist()} / its scale"
                        )
                    got = core.obs_value(obs["numba"][b], name, max_turns=ref.max_turns, num_players=P)
                    assert np.array_equal(got, raw[name]), name
                    seen[name] |= bool(raw[name].any())
    assert all(seen.values()), f"slots never non-zero in the sample: {[n for n, s in seen.items() if not s]}"


def test_one_hots_and_flags_have_scale_one_and_the_game_scaled_slots_are_named() -> None:
    assert all(obs_layout.SCALE[n] == 1.0 for n in obs_layout.ONE_HOT)
    zero = {n for n, s in obs_layout.SCALE.items() if s == obs_layout.GAME_SCALE}
    assert zero == set(obs_layout.GAME_SCALED) == {"turn", "turns_left"}


# ---- the R6 action table, the R7.4 tie-break, truncation, positions: one home each -----------------


def test_the_R6_table_is_the_one_both_engines_read() -> None:
    from aos_env.core.nb_engine import actions

    spec = {
        3: constants.CONQUEST,
        4: constants.RESEARCH,
        5: constants.ALCHEMY,
        6: constants.PRAYER,
        7: constants.FESTIVAL,
        8: constants.INQUISITION,
        9: constants.PILGRIMAGE,
    }
    for n in range(40):
        want = spec[min(max(n, 3), 9)]
        assert constants.game_action_of_number(np.array([n]))[0] == want
        assert actions.game_action_of_number(n) == want, n
    assert "GAME_ACTION_OF_NUMBER" in inspect.getsource(actions.game_action_of_number.py_func)


def test_the_R7_4_tie_break_has_one_home() -> None:
    """numpy (``scores.winners_of``) and numba (``scoring.winner``) rank ties with the same
    ``scores.tie_rank``: the compiled one is that very function."""
    from aos_env.core.nb_engine import scoring

    assert scoring._tie_rank.py_func is scores.tie_rank
    assert scoring._loss_reward.py_func is scores.loss_reward
    rng = np.random.default_rng(0)
    for P in (2, 3, 4):
        state = core.init(200, P, seed=P, backend="numba")
        state.vp[:] = rng.integers(0, 3, size=(200, P))  # many ties (no spirits: the score is the VP)
        state.declarer[:] = rng.integers(-1, P, size=200)
        sc = core.final_scores(state)
        for b in range(200):
            tied = np.flatnonzero(sc[b] == sc[b].max())
            d = max(int(state.declarer[b]), 0)
            want = min(tied, key=lambda p: (p - d - 1) % P)  # nearest the declarer's left (R7.4)
            assert scoring.winner(state.records[b], P) == want
            assert scores.winners_of(sc[b : b + 1], state.declarer[b : b + 1])[0] == want


@pytest.mark.parametrize("backend_name", core.BACKENDS)
def test_truncate_is_the_engines_end_of_a_truncated_game(backend_name: str) -> None:
    state = core.init(4, 3, seed=2, backend=backend_name)
    state.rewards[:] = 7.0
    core.truncate(state, [1, 3])
    assert state.truncated.tolist() == [False, True, False, True] and not state.terminated.any()
    assert (state.phase[[1, 3]] == Phase.GAME_OVER).all() and not state.legal_action_mask[[1, 3]].any()
    assert (state.rewards[[1, 3]] == 0).all() and (state.rewards[[0, 2]] == 7).all()


def test_positions_check_the_turn_as_refresh_does() -> None:
    """positions.position and core.refresh take the turn bounds and the last turn from one place."""
    for declarer in (-1, 1):
        high = int(api.turn_limit(declarer >= 0, 50, 3))
        hands = [{}, {}, {"hand": ["AS001"]}]  # the active player needs a card to play
        state = position(3, hands, turn=high, declarer=declarer, active=2, max_turns=50)
        assert state.turn[0] == high
        if declarer >= 0:
            assert state.last_turn[0] == api.last_turn_of(high, 2, declarer, 3)
        with pytest.raises(ArgumentError, match=f"turn.*{high}"):
            position(3, hands, turn=high + 1, declarer=declarer, active=2, max_turns=50)


# ---- dead code gone; the one-game step is core.step's path ----------------------------------------


def test_core_step_of_one_game_takes_the_one_game_kernel(monkeypatch) -> None:
    from aos_env.core import nb_engine

    assert not hasattr(nb_engine, "step")
    calls = []
    real = nb_engine.try_step_one
    monkeypatch.setattr(nb_engine, "try_step_one", lambda state, a: calls.append(a) or real(state, a))
    state = core.init(1, 2, seed=3, backend="numba")
    a = int(np.flatnonzero(state.legal_action_mask[0])[0])
    core.step(state, [a])
    assert calls == [a]
    with pytest.raises(ValueError, match="not legal"):
        core.step(state, [int(np.flatnonzero(~state.legal_action_mask[0])[0])])


# ---- numba's settings stay the user's ---------------------------------------------------------------

_CONFIG_SCRIPT = textwrap.dedent("""
    import json, os, sys, tempfile, time
    import numba
    from numba import config

    def settings():
        return {k: repr(getattr(config, k)) for k in dir(config) if k.isupper()}

    before = settings()
    # a user's own cached function, in a file of theirs
    user_dir = tempfile.mkdtemp()
    with open(os.path.join(user_dir, "users_module.py"), "w") as f:
        f.write("from numba import njit\\n@njit(cache=True)\\ndef twice(x):\\n    return 2 * x\\n")
    sys.path.insert(0, user_dir)
    t0 = time.perf_counter()
    import numpy as np
    from aos_env import core
    state = core.init(1, 2, seed=0)
    core.step(state, [int(np.flatnonzero(state.legal_action_mask[0])[0])])
    first_step = time.perf_counter() - t0
    core.observe(state, 0)
    for backend in ("numpy", "numba"):
        big = core.init(8, 3, seed=1, backend=backend)  # AOS_PARALLEL_MIN_GAMES=4: the threaded kernels
        for _ in range(5):
            core.step(big, np.argmax(big.legal_action_mask, axis=1))
        core.observe(big, 0)
    from agents.players import _greedy_base, _greedy_kernel
    from agents.players.greedy import GreedyAgent
    GreedyAgent().act_batch(core.observe(state, 0), state.legal_action_mask)
    import users_module
    users_module.twice(2)
    from aos_env.core.nb_engine import _jit, engine
    hits = sum(sum(f.stats.cache_hits.values()) for f in (engine.step_one, engine.step_batch_parallel))
    misses = sum(sum(f.stats.cache_misses.values()) for f in (engine.step_one, engine.step_batch_parallel))
    print(json.dumps({
        "same": settings() == before,
        "changed": sorted(k for k, v in settings().items() if before.get(k) != v),
        "layer": numba.threading_layer(),
        "engine_cache": engine.step_one.stats.cache_path, "our_folder": _jit.CACHE_DIR,
        "greedy_cache": _greedy_kernel.greedy_actions.stats.cache_path, "greedy_folder": _greedy_base.CACHE_DIR,
        "user_cache": users_module.twice.stats.cache_path,
        "first_step": first_step, "hits": hits, "misses": misses,
    }))
""")


def _run_config_script(**env: str) -> dict:
    full = dict(os.environ, PYTHONPATH=str(ROOT), AOS_PARALLEL_MIN_GAMES="4", **env)
    full.pop("AOS_BACKEND", None)
    proc = subprocess.run(
        [sys.executable, "-c", _CONFIG_SCRIPT], capture_output=True, text=True, env=full, cwd=ROOT, timeout=1800
    )
    assert proc.returncode == 0, proc.stderr
    return json.loads(proc.stdout.strip().splitlines()[-1])


def test_numba_config_is_the_same_before_and_after_importing_and_stepping() -> None:
    """In a fresh process: importing aos_env.core, stepping both engines (the threaded kernels
    too) and the greedy kernel change no setting of numba.config; our functions cache in our
    folders, a user's function where numba would put it anyway; the threads are numba's work
    queue. A second fresh process loads the compiled kernels from the cache."""
    cold = _run_config_script()
    for run in (cold, _run_config_script()):
        assert run["same"], f"numba.config changed: {run['changed']}"
        assert run["engine_cache"] == run["our_folder"] and run["greedy_cache"] == run["greedy_folder"]
        assert not run["user_cache"].startswith(os.path.dirname(run["our_folder"]))
        assert run["layer"] == "workqueue"
    warm = _run_config_script()
    assert warm["hits"] > 0 and warm["misses"] == 0, warm
    print(f"warm start: first core.step {warm['first_step']:.2f} s after the imports began")


def test_a_threading_layer_the_user_chose_is_kept() -> None:
    run = _run_config_script(NUMBA_THREADING_LAYER="omp")
    assert run["same"], run["changed"]
    assert run["layer"] == "omp"
