"""Bad input (issue 14): the shared argument checks of aos_env/base/checks.py, and core.init's use of them.

Each check either returns the canonical value (Python int/float, int64 seeds) or raises
ArgumentError (a ValueError) whose message names the argument and what is allowed.
"""

from __future__ import annotations

import argparse
from pathlib import Path

import numpy as np
import pytest
from bad_values import floats_as_ints, ints, non_finite, not_ints, not_numbers, numpy_ints
from hypothesis import given, settings
from hypothesis import strategies as st

from aos_env import core
from aos_env.base import checks
from aos_env.base.checks import (
    MAX_SEED,
    ArgumentError,
    check_batch_memory,
    check_bool,
    check_choice,
    check_file,
    check_float,
    check_int,
    check_optional_int,
    check_output_file,
    check_output_folder,
    check_seeds,
    check_sequence,
    float_arg,
    int_arg,
    int_list_arg,
    name_list_arg,
    seed_arg,
)

FAST = settings(max_examples=150, deadline=None)


def test_argument_error_is_a_value_error() -> None:
    assert issubclass(ArgumentError, ValueError)


# ---- ints -------------------------------------------------------------------------------


@FAST
@given(not_ints)
def test_check_int_rejects_everything_but_ints(value) -> None:
    with pytest.raises(ArgumentError, match=r"^num_envs must be an int >= 1, got "):
        check_int("num_envs", value, 1)


@FAST
@given(st.integers() | numpy_ints(-(2**63), 2**64 - 1), st.integers(-5, 5), st.integers(0, 5))
def test_check_int_range(value, low, width) -> None:
    high = low + width
    if low <= value <= high:
        got = check_int("turn", value, low, high)
        assert type(got) is int and got == value
    else:
        with pytest.raises(ArgumentError, match=rf"^turn must be an int {low}\.\.{high}, got "):
            check_int("turn", value, low, high)


@FAST
@given(ints(1, 10**6))
def test_check_int_accepts_python_and_numpy_ints(value) -> None:
    got = check_int("num_envs", value, 1)
    assert type(got) is int and got == int(value)


@FAST
@given(not_ints.filter(lambda v: v is not None) | st.integers(max_value=0))
def test_check_optional_int(value) -> None:
    assert check_optional_int("max_rollout_turns", None, 1) is None
    with pytest.raises(ArgumentError, match=r"^max_rollout_turns must be an int >= 1 or None"):
        check_optional_int("max_rollout_turns", value, 1)


# ---- floats, bools, choices -------------------------------------------------------------


@FAST
@given(not_numbers | non_finite)
def test_check_float_rejects_non_numbers_and_non_finite(value) -> None:
    with pytest.raises(ArgumentError, match=r"^shaping must be a finite number >= 0, got "):
        check_float("shaping", value, 0)


@FAST
@given(st.floats(allow_nan=False, allow_infinity=False) | ints(-100, 100) | floats_as_ints.filter(np.isfinite))
def test_check_float_accepts_numbers_and_checks_bounds(value) -> None:
    v = float(value)
    if 0 < v <= 1:
        got = check_float("gamma", value, 0, 1, low_open=True)
        assert type(got) is float and got == v
    else:
        with pytest.raises(ArgumentError, match=r"^gamma must be a finite number > 0 and <= 1"):
            check_float("gamma", value, 0, 1, low_open=True)


def test_check_float_allows_infinity_only_when_asked() -> None:
    assert check_float("limit", float("inf"), 0, finite=False) == float("inf")
    with pytest.raises(ArgumentError, match="limit"):
        check_float("limit", float("nan"), 0, finite=False)  # NaN never passes a bound


@FAST
@given(not_numbers.filter(lambda v: not isinstance(v, (bool, np.bool_))) | st.integers(0, 1) | floats_as_ints)
def test_check_bool(value) -> None:
    assert check_bool("deterministic", np.True_) is True
    with pytest.raises(ArgumentError, match=r"^deterministic must be True or False"):
        check_bool("deterministic", value)


@FAST
@given(not_numbers | floats_as_ints | st.integers(5, 10))
def test_check_choice(value) -> None:
    assert check_choice("num_players", np.int8(3), (2, 3, 4)) == 3
    with pytest.raises(ArgumentError, match=r"^num_players must be one of 2, 3, 4, got "):
        check_choice("num_players", value, (2, 3, 4))


def test_check_choice_suggests_a_close_name() -> None:
    with pytest.raises(ArgumentError, match=r"rollout_policy must be one of 'greedy', 'random'.*did you mean 'greedy'"):
        check_choice("rollout_policy", "gredy", ("greedy", "random"))


# ---- seeds --------------------------------------------------------------------------------


@FAST
@given(st.integers(1, 64), st.integers(-(2**70), 2**70) | numpy_ints(-(2**63), 2**64 - 1))
def test_check_seeds_from_one_int(count, seed) -> None:
    if 0 <= seed <= MAX_SEED - (count - 1):
        got = check_seeds("seed", seed, count)
        assert got.dtype == np.int64 and got.tolist() == list(range(int(seed), int(seed) + count))
    else:
        with pytest.raises(ArgumentError, match=r"^seed must be an int 0\.\.2\*\*63-"):
            check_seeds("seed", seed, count)


@FAST
@given(st.integers(1, 6), st.data())
def test_check_seeds_from_an_array(count, data) -> None:
    dtype = data.draw(st.sampled_from([np.int8, np.int32, np.int64, np.uint8, np.uint32, np.uint64]))
    info = np.iinfo(dtype)
    values = data.draw(st.lists(st.integers(max(info.min, -5), info.max), min_size=count, max_size=count))
    arr = np.array(values, dtype=dtype)
    if all(0 <= v <= MAX_SEED for v in values):
        assert check_seeds("seed", arr, count).tolist() == values
    else:  # negative, or a uint64 at 2**63 and above (it must not wrap around to a negative seed)
        with pytest.raises(ArgumentError, match=r"^seed must hold seeds 0\.\.2\*\*63-1"):
            check_seeds("seed", arr, count)


def test_uint64_max_is_not_minus_one() -> None:
    with pytest.raises(ArgumentError, match="seed"):
        check_seeds("seed", np.array([2**64 - 1], dtype=np.uint64), 1)
    with pytest.raises(ArgumentError, match="seed"):
        check_seeds("seed", np.uint64(2**64 - 1), 1)


@FAST
@given(
    st.one_of(
        not_numbers.filter(
            lambda v: (
                not (isinstance(v, (list, tuple)) and len(v) == 3)
                and not (isinstance(v, np.ndarray) and v.shape == (3,))
            )
        ),
        floats_as_ints,
        st.lists(st.integers(0, 9), min_size=0, max_size=6).filter(lambda v: len(v) != 3),
        st.lists(st.floats(0, 9), min_size=3, max_size=3),
        st.just(np.zeros((3, 1), dtype=np.int64)),
        st.just(np.array([True, False, True])),
        st.just([1, 2, 2**64]),  # an object array
        st.just([1, -1, 2]),
    )
)
def test_check_seeds_rejects_bad_shapes_and_dtypes(value) -> None:
    with pytest.raises(ArgumentError, match=r"^seed must "):
        check_seeds("seed", value, 3)


# ---- memory ---------------------------------------------------------------------------------


@FAST
@given(st.integers(1, 10**12), st.integers(1, 10**6), st.integers(10**6, 10**12))
def test_check_batch_memory(num, per_game, memory) -> None:
    if num * per_game <= memory // 2:
        check_batch_memory("num_envs", num, per_game, memory=memory)
    else:
        with pytest.raises(ArgumentError, match=r"^num_envs=\d+ would need about .* of memory.*use num_envs <= "):
            check_batch_memory("num_envs", num, per_game, memory=memory)


def test_total_memory_is_known_here_and_unknown_memory_refuses_nothing(monkeypatch) -> None:
    total = checks.total_memory()
    assert total is None or total > 0
    monkeypatch.setattr(checks, "total_memory", lambda: None)
    check_batch_memory("num_envs", 10**15, 10**6)  # no figure to compare with: the allocation decides


def test_core_init_refuses_a_batch_beyond_memory_before_allocating() -> None:
    with pytest.raises(ArgumentError, match=r"num_envs=1000000000 would need about .* use num_envs <= "):
        core.init(num_envs=10**9)


@pytest.mark.parametrize(
    "name,kwargs",
    [
        ("num_envs", {"num_envs": 2.0}),
        ("num_envs", {"num_envs": True}),
        ("num_envs", {"num_envs": 0}),
        ("num_players", {"num_players": np.float64(2)}),
        ("num_players", {"num_players": 5}),
        ("max_turns", {"max_turns": "200"}),
        ("max_turns", {"max_turns": 0}),
    ],
)
def test_core_init_scalar_arguments(name, kwargs) -> None:
    with pytest.raises(ValueError, match=rf"^{name} must be an int"):
        core.init(**kwargs)
    assert core.init(num_envs=np.int64(2), num_players=np.uint8(3), max_turns=np.int16(9)).batch_size == 2


# ---- paths -----------------------------------------------------------------------------------


def test_paths(tmp_path: Path) -> None:
    f = tmp_path / "f.txt"
    f.write_text("x")
    with pytest.raises(FileNotFoundError, match=r"model: no such file: '.*nothere\.zip'$"):
        check_file("model", tmp_path / "nothere.zip")
    with pytest.raises(ArgumentError, match="model must be a file"):
        check_file("model", tmp_path)
    for bad in (None, 3, True, "", ["a"]):
        with pytest.raises(ArgumentError, match="model must be a path"):
            check_file("model", bad)
    with pytest.raises(ArgumentError, match="--json must be a file path, not a folder"):
        check_output_file("--json", tmp_path)
    with pytest.raises(ArgumentError, match=r"--json must be a path whose folders can be created \(.*f\.txt' is a"):
        check_output_file("--json", f / "sub" / "t.json")
    with pytest.raises(ArgumentError, match="--out"):
        check_output_folder("--out", f)
    assert check_output_file("--json", tmp_path / "new" / "t.json") == tmp_path / "new" / "t.json"
    assert not (tmp_path / "new").exists()  # checking creates nothing


@pytest.mark.parametrize("value", ["abc", {"a": 1}, {1, 2}, 5, None, np.zeros((2, 2))])
def test_check_sequence(value) -> None:
    with pytest.raises(ArgumentError, match=r"^players\[0\]\.hand must be a list"):
        check_sequence("players[0].hand", value)


# ---- argparse types --------------------------------------------------------------------------


ascii_int = st.from_regex(r"\A[+-]?[0-9]{1,6}\Z")


@FAST
@given(st.text(max_size=8) | ascii_int)
def test_int_arg(text) -> None:
    parse = int_arg(1, 1000)
    stripped = text.strip()
    ok = (
        stripped.isascii()
        and stripped.lstrip("+-").isdigit()
        and stripped.count("-") + stripped.count("+") <= 1
        and stripped[:1] in "+-0123456789"
        and 1 <= int(stripped) <= 1000
    )
    if ok:
        assert parse(text) == int(stripped)
    else:
        with pytest.raises(argparse.ArgumentTypeError, match=r"^must be an int 1\.\.1000, got "):
            parse(text)


@pytest.mark.parametrize("text", ["²", "٣", "１", "2.5", "1e3", "0x10", "", " ", "nan", "--1", "1_"])
def test_int_arg_takes_only_ascii_digits(text) -> None:
    with pytest.raises(argparse.ArgumentTypeError, match="must be an int"):
        int_arg(0)(text)
    assert int_arg(0)("4_000_000") == 4_000_000


@FAST
@given(st.text(max_size=8) | st.floats().map(repr))
def test_float_arg(text) -> None:
    parse = float_arg(0, low_open=True)
    try:
        value = float(text) if text.isascii() else None
    except ValueError:
        value = None
    if value is not None and np.isfinite(value) and value > 0:
        assert parse(text) == value
    else:
        with pytest.raises(argparse.ArgumentTypeError, match=r"^must be a finite number > 0, got "):
            parse(text)


@pytest.mark.parametrize("text", ["-1", "9223372036854775808", "1.0", "abc", "²"])
def test_seed_arg(text) -> None:
    with pytest.raises(argparse.ArgumentTypeError, match=r"must be an int 0\.\.2\*\*63-1"):
        seed_arg(text)
    assert seed_arg(str(MAX_SEED)) == MAX_SEED


@pytest.mark.parametrize("text", ["abc", "", "64,,64", "0", "64,-1", "64,2.5", ","])
def test_int_list_arg(text) -> None:
    with pytest.raises(argparse.ArgumentTypeError, match="must be comma-separated ints >= 1"):
        int_list_arg(1)(text)
    assert int_list_arg(1)("256, 64") == [256, 64]


@pytest.mark.parametrize("text", ["", ",", "random,,greedy", "random,random"])
def test_name_list_arg(text) -> None:
    with pytest.raises(argparse.ArgumentTypeError, match="must be comma-separated names"):
        name_list_arg(text)
    assert name_list_arg("random, greedy") == ["random", "greedy"]
