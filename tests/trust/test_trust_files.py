"""Trust at every boundary (issue 20): files from strangers, command lines, and a few core and env calls.

- Bot files (``agents.players.bot``): every way a ``.npz`` can be wrong is an ArgumentError naming the file,
  at load, before any array is allocated, and nothing in it is unpickled.
- Card files (``aos_env.core.cards``): every integer bounded so that the engine's sums fit their dtypes.
- OpenSpiel (``aos_env.integrations.openspiel``): a serialized state is text, replayed; a pickle in it runs nothing.
- Command lines: bad outputs are usage errors (exit 2, no traceback) before any game or measurement,
  an output that is an input is refused, and results are written atomically.
- ``act_on_state``, ``raw_env.step`` after the game, the State's field setters.
"""

from __future__ import annotations

import base64
import io
import json
import os
import pickle
import re
import shutil
import subprocess
import sys
import types
import zipfile
from pathlib import Path

import numpy as np
import pytest

from agents import BotAgent, act_on_state, make_agent
from agents.evaluation import leaderboard as lb
from agents.files.bot_file import MAX_LAYERS
from agents.players.bot import SHIPPED, SHIPPED_V2
from aos_env import core
from aos_env.base.checks import ArgumentError
from aos_env.core import cards as cards_mod
from aos_env.core.cards import DEFAULT_CARD_FILE, CardDataError, load_cards
from aos_env.core.state import recompute_stats

#: Files, command lines and argument checks do not depend on the engine: one backend (the card-bounds
#: test plays both itself).
pytestmark = pytest.mark.one_backend

ROOT = Path(__file__).resolve().parents[2]
HIDDEN = 8


# ---- a payload that proves whether a pickle ran -----------------------------------------------------


class _Marker:
    """Unpickling this creates the file ``path``: a test asserts it never exists."""

    def __init__(self, path: Path) -> None:
        self.path = str(path)

    def __reduce__(self):
        return (Path.touch, (Path(self.path),))


# ---- bot files ------------------------------------------------------------------------------------------


def bot_arrays(rng_seed: int = 0, obs_dim: int = core.OBS_DIM, dtype=np.float32) -> dict[str, np.ndarray]:
    """The arrays of a small valid bot of this observation version (one hidden layer of HIDDEN)."""
    rng = np.random.default_rng(rng_seed)
    out = {}
    for prefix, n_out in (("pi", core.NUM_ACTIONS), ("vf", 1)):
        out[f"{prefix}_w0"] = rng.normal(size=(obs_dim, HIDDEN)).astype(dtype)
        out[f"{prefix}_b0"] = np.zeros(HIDDEN, dtype)
        out[f"{prefix}_w1"] = rng.normal(size=(HIDDEN, n_out)).astype(dtype)
        out[f"{prefix}_b1"] = np.zeros(n_out, dtype)
    return out


def bot_meta(**changes) -> dict:
    meta = {
        "format": "aos-bot",
        "format_version": 1,
        "obs_version": core.OBS_VERSION,
        "obs_dim": core.OBS_DIM,
        "num_players": 2,
        "activation": "tanh",
        "info": {},
    }
    meta.update(changes)
    return {k: v for k, v in meta.items() if v is not _DROP}


_DROP = object()


def write_bot(path: Path, arrays: dict | None = None, meta=None, meta_text: str | None = None) -> Path:
    arrays = bot_arrays() if arrays is None else arrays
    text = meta_text if meta_text is not None else json.dumps(bot_meta() if meta is None else meta)
    np.savez(path, meta=np.array(text), **arrays)
    return path


def refused(path: Path, *patterns: str) -> str:
    """BotAgent(path) is an ArgumentError naming the file and matching every pattern; returns the message."""
    with pytest.raises(ArgumentError) as e:
        BotAgent(path)
    msg = str(e.value)
    assert str(path) in msg, msg
    for pattern in patterns:
        assert re.search(pattern, msg), (pattern, msg)
    return msg


def test_a_valid_small_bot_file_loads_and_plays(tmp_path: Path) -> None:
    bot = BotAgent(write_bot(tmp_path / "ok.npz"))
    state = core.init(4, 2, seed=0)
    actions = act_on_state(bot, state)
    assert state.legal_action_mask[np.arange(4), actions].all()
    float16 = BotAgent(write_bot(tmp_path / "half.npz", bot_arrays(dtype=np.float16)))
    assert float16.nets[2].policy.weights[0].dtype == np.float32


def test_the_shipped_bots_still_load() -> None:
    for players, path in SHIPPED.items():
        assert BotAgent(path).nets[players].num_players == players
    assert set(make_agent("bot-v2").nets) == {2, 3, 4}


@pytest.mark.parametrize(
    "content,pattern",
    [
        (b"not a zip", "not a bot file.*BadZipFile"),
        (b"", "not a bot file"),
        (b"PK\x03\x04" + b"\0" * 40, "not a bot file"),
    ],
)
def test_files_that_are_not_zips(tmp_path: Path, content: bytes, pattern: str) -> None:
    path = tmp_path / "junk.npz"
    path.write_bytes(content)
    refused(path, pattern)


@pytest.mark.parametrize("keep", [0.1, 0.5, 0.9, 0.99])
def test_truncated_bot_files(tmp_path: Path, keep: float) -> None:
    whole = write_bot(tmp_path / "whole.npz").read_bytes()
    cut = tmp_path / "cut.npz"
    cut.write_bytes(whole[: int(len(whole) * keep)])
    refused(cut, "not a bot file|truncated")


def test_a_member_whose_data_is_shorter_than_its_header_says(tmp_path: Path) -> None:
    path = write_bot(tmp_path / "b.npz")
    with zipfile.ZipFile(path) as zf:
        members = {n: zf.read(n) for n in zf.namelist()}
    members["pi_w0.npy"] = members["pi_w0.npy"][:-100]
    with zipfile.ZipFile(path, "w") as zf:
        for name, data in members.items():
            zf.writestr(name, data)
    refused(path, "truncated", "pi_w0")


@pytest.mark.parametrize(
    "drop,pattern",
    [
        ("meta", "no 'meta'"),
        ("pi_w0", r"lacks layer 0 \(pi_w0\)"),
        ("pi_b1", "lacks the bias of layer 1"),
        ("pi_w1", "pi_b1.*bias of a layer it does not have"),
    ],
)
def test_missing_arrays(tmp_path: Path, drop: str, pattern: str) -> None:
    arrays = bot_arrays()
    if drop == "meta":
        path = tmp_path / "b.npz"
        np.savez(path, **arrays)
    else:
        del arrays[drop]
        path = write_bot(tmp_path / "b.npz", arrays)
    refused(path, pattern)


def test_a_gap_in_the_layers(tmp_path: Path) -> None:
    arrays = bot_arrays()
    arrays["pi_w2"], arrays["pi_b2"] = arrays.pop("pi_w1"), arrays.pop("pi_b1")
    refused(write_bot(tmp_path / "b.npz", arrays), "lacks layer 1")


def test_too_many_layers(tmp_path: Path) -> None:
    arrays = {k: v for k, v in bot_arrays().items() if k.startswith("vf")}
    arrays["pi_w0"], arrays["pi_b0"] = np.zeros((core.OBS_DIM, 2), np.float32), np.zeros(2, np.float32)
    for i in range(1, MAX_LAYERS + 1):
        arrays[f"pi_w{i}"], arrays[f"pi_b{i}"] = np.zeros((2, 2), np.float32), np.zeros(2, np.float32)
    refused(write_bot(tmp_path / "b.npz", arrays), f"{MAX_LAYERS + 1} layers.*at most {MAX_LAYERS}")


@pytest.mark.parametrize(
    "meta_text,pattern",
    [
        ("{", "meta is not JSON"),
        ("[" * 100_000, "meta is not JSON"),
        ("[1, 2]", "meta must be a JSON object"),
        (json.dumps(bot_meta(obs_version="3")), "'obs_version' must be an int"),
        (json.dumps(bot_meta(num_players=2.0)), "'num_players' must be 2, 3 or 4, got 2.0"),
        (json.dumps(bot_meta(num_players=5)), "'num_players' must be 2, 3 or 4, got 5"),
        (json.dumps(bot_meta(num_players=True)), "'num_players'"),
        (json.dumps(bot_meta(activation="gelu")), "'activation' must be 'tanh' or 'relu'"),
        (json.dumps(bot_meta(activation=_DROP)), "'activation'.*got nothing"),
        (json.dumps(bot_meta(format_version=True)), "'format_version'"),
        (json.dumps(bot_meta(format="other")), "not a aos-bot file"),
        (json.dumps(bot_meta(obs_version=1, obs_dim=500)), "version 1"),
        (json.dumps(bot_meta(obs_dim=601)), "603|601"),
        (json.dumps(bot_meta(info=[1])), "'info' must be a JSON object"),
    ],
)
def test_bad_meta(tmp_path: Path, meta_text: str, pattern: str) -> None:
    refused(write_bot(tmp_path / "b.npz", meta_text=meta_text), pattern)


def test_a_meta_that_is_not_text(tmp_path: Path) -> None:
    path = tmp_path / "b.npz"
    np.savez(path, meta=np.zeros(3), **bot_arrays())
    refused(path, "'meta' must be one text")


@pytest.mark.parametrize("dtype", [np.float64, np.int32, np.int8, np.complex64, np.bool_])
def test_weight_dtypes_other_than_float16_and_32(tmp_path: Path, dtype) -> None:
    arrays = bot_arrays()
    arrays["pi_w1"] = arrays["pi_w1"].astype(dtype)
    refused(write_bot(tmp_path / "b.npz", arrays), "pi_w1.*float16 or float32")


def test_a_pickled_array_is_never_unpickled(tmp_path: Path) -> None:
    marker = tmp_path / "ran"
    arrays = bot_arrays()
    arrays["pi_w1"] = np.array([_Marker(marker)], dtype=object)  # np.savez pickles object arrays
    path = write_bot(tmp_path / "b.npz", arrays)
    refused(path, "pi_w1.*dtype object")
    assert not marker.exists()
    with pytest.raises(ValueError):
        make_agent(str(path))
    assert not marker.exists()


@pytest.mark.parametrize(
    "change,pattern",
    [
        (
            lambda a: a.update(pi_w0=np.zeros((core.OBS_DIM - 1, HIDDEN), np.float32)),
            r"pi_w0 has shape \(602, 8\), this layer needs \(603, .*observation's size",
        ),
        (lambda a: a.update(pi_w1=np.zeros((HIDDEN + 1, core.NUM_ACTIONS), np.float32)), r"pi_w1 has shape \(9, 44\)"),
        (
            lambda a: a.update(pi_w1=np.zeros((HIDDEN, 43), np.float32), pi_b1=np.zeros(43, np.float32)),
            r"pi_w1.*\(8, 44\).*44 outputs",
        ),
        (
            lambda a: a.update(vf_w1=np.zeros((HIDDEN, 2), np.float32), vf_b1=np.zeros(2, np.float32)),
            r"vf_w1.*\(8, 1\)",
        ),
        (lambda a: a.update(pi_b0=np.zeros(HIDDEN + 1, np.float32)), r"pi_b0 has shape \(9,\).*\(8,\)"),
        (lambda a: a.update(pi_w0=np.zeros(core.OBS_DIM, np.float32)), r"pi_w0 has shape \(603,\)"),
        (lambda a: a.update(pi_w0=np.zeros((core.OBS_DIM, 0), np.float32), pi_b0=np.zeros(0, np.float32)), "pi_w0"),
    ],
)
def test_shapes_that_do_not_chain(tmp_path: Path, change, pattern: str) -> None:
    arrays = bot_arrays()
    change(arrays)
    refused(write_bot(tmp_path / "b.npz", arrays), pattern)


@pytest.mark.parametrize("value", [np.nan, np.inf, -np.inf])
def test_weights_that_are_not_finite(tmp_path: Path, value: float) -> None:
    arrays = bot_arrays()
    arrays["vf_b1"][0] = value
    refused(write_bot(tmp_path / "b.npz", arrays), "vf_b1 holds NaN or infinite")


def _npy_member(header: dict, data: bytes = b"", version=(1, 0)) -> bytes:
    import io

    buf = io.BytesIO()
    (np.lib.format.write_array_header_1_0 if version == (1, 0) else np.lib.format.write_array_header_2_0)(buf, header)
    return buf.getvalue() + data


def _zip_with(path: Path, members: dict[str, bytes]) -> Path:
    arrays = bot_arrays()
    valid = write_bot(tmp := path.with_name("valid.npz"), arrays)
    with zipfile.ZipFile(valid) as zf:
        base = {n: zf.read(n) for n in zf.namelist()}
    tmp.unlink()
    with zipfile.ZipFile(path, "w", compression=zipfile.ZIP_DEFLATED) as zf:
        for name, data in {**base, **members}.items():
            zf.writestr(name, data)
    return path


@pytest.mark.parametrize("version", [(1, 0), (2, 0)])
def test_a_forged_header_claiming_a_huge_array_is_refused_before_allocation(tmp_path: Path, version) -> None:
    huge = {"descr": "<f4", "fortran_order": False, "shape": (10**6, 10**5)}  # 373 GiB
    path = _zip_with(tmp_path / "forged.npz", {"pi_w0.npy": _npy_member(huge, b"\0" * 64, version)})
    assert path.stat().st_size < 1_000_000
    refused(path, "pi_w0", "at most 1.1 GB|MAX_BOT_BYTES")


def _zeros_bot(path: Path, columns: int, bias: int) -> Path:
    """A deflated bot file whose pi_w0 is (OBS_DIM, columns) zeros, streamed (costs no memory to
    make), and whose pi_b0 has ``bias`` entries."""
    arrays = bot_arrays()
    with zipfile.ZipFile(path, "w", compression=zipfile.ZIP_DEFLATED) as zf:
        zf.writestr(
            "meta.npy",
            _npy_member(
                {"descr": "<U200", "fortran_order": False, "shape": ()},
                json.dumps(bot_meta()).ljust(200).encode("utf-32-le"),
            ),
        )
        with zf.open("pi_w0.npy", "w", force_zip64=True) as f:
            f.write(_npy_member({"descr": "<f4", "fortran_order": False, "shape": (core.OBS_DIM, columns)}))
            chunk, left = bytes(1 << 20), core.OBS_DIM * columns * 4
            while left:
                f.write(chunk[: min(left, len(chunk))])
                left -= min(left, len(chunk))
        for name, arr in arrays.items():
            if name != "pi_w0":
                arr = np.zeros(bias, np.float32) if name == "pi_b0" else arr
                buf = io.BytesIO()
                np.save(buf, arr)
                zf.writestr(f"{name}.npy", buf.getvalue())
    return path


def _refusal_peak(path: Path, *patterns: str) -> int:
    import tracemalloc

    tracemalloc.start()
    try:
        refused(path, *patterns)
        return tracemalloc.get_traced_memory()[1]
    finally:
        tracemalloc.stop()


def test_a_small_bot_file_of_zeros_is_refused_before_it_is_read(tmp_path: Path) -> None:
    """300 MB of zeros in a file of under 1 MB (with a bias that does not fit): refused from the zip's
    entries, before a byte is decompressed (measured by allocation, never by time)."""
    path = _zeros_bot(tmp_path / "zeros.npz", 128_000, 3)
    assert path.stat().st_size < 1 << 20
    assert _refusal_peak(path, "pi_w0", "MAX_EXPANSION") < 200 << 20


def test_shapes_are_checked_from_the_headers_before_any_weight_is_read(tmp_path: Path) -> None:
    """An uncompressed 10 MB weight whose bias does not fit: refused without reading the weight."""
    arrays = bot_arrays()
    arrays["pi_w0"] = np.zeros((core.OBS_DIM, 4096), np.float32)
    arrays["pi_b0"] = np.zeros(3, np.float32)
    path = write_bot(tmp_path / "big.npz", arrays)
    assert _refusal_peak(path, "pi_b0 has shape") < arrays["pi_w0"].nbytes // 4


@pytest.mark.parametrize("value", [3e38, -1e5, 65504.0])
def test_finite_but_huge_weights_are_refused(tmp_path: Path, value: float) -> None:
    for dtype in (np.float32, np.float16):
        arrays = bot_arrays(dtype=dtype)
        arrays["pi_w1"] = np.full_like(arrays["pi_w1"], value if dtype == np.float32 else 60000.0)
        refused(write_bot(tmp_path / f"huge_{dtype.__name__}.npz", arrays), "pi_w1", "MAX_ABS_WEIGHT")


def test_a_bot_whose_numbers_overflow_still_plays_legal_actions(tmp_path: Path) -> None:
    """Weights within the limit, but ReLU layers that multiply them past float32: the logits become
    inf and NaN, and the bot still chooses among the legal actions (sampled and most likely)."""
    widths = [core.OBS_DIM, 64, 64, 64, 64, 64, 64, 64, core.NUM_ACTIONS]
    arrays = {}
    for i, (a, b) in enumerate(zip(widths, widths[1:], strict=False)):
        arrays[f"pi_w{i}"] = np.full((a, b), 9e3, np.float32)
        arrays[f"pi_b{i}"] = np.zeros(b, np.float32)
    path = write_bot(tmp_path / "overflow.npz", arrays, meta=bot_meta(activation="relu"))
    state = core.init(64, 2, seed=0)
    for spec in (str(path), f"{path}:deterministic=false"):
        actions = act_on_state(make_agent(spec, seed=1), state)
        assert state.legal_action_mask[np.arange(64), actions].all(), spec


def test_forged_headers_of_other_kinds(tmp_path: Path) -> None:
    negative = {"descr": "<f4", "fortran_order": False, "shape": (-1, 8)}
    refused(_zip_with(tmp_path / "a.npz", {"pi_w0.npy": _npy_member(negative)}), "negative")
    claimed = {"descr": "<f4", "fortran_order": False, "shape": (core.OBS_DIM, HIDDEN)}
    refused(_zip_with(tmp_path / "b.npz", {"pi_w0.npy": _npy_member(claimed, b"\0" * 100)}), "truncated")
    refused(_zip_with(tmp_path / "c.npz", {"pi_w0.npy": b"\x93NUMPY\x09\x00" + b"\0" * 50}), "not a bot file|version")


def test_arrays_below_the_limit_each_but_above_it_together(tmp_path: Path, monkeypatch) -> None:
    import agents.files.bot_file

    path = write_bot(tmp_path / "b.npz")  # pi_w0 and vf_w0 hold 19,296 bytes each
    monkeypatch.setattr(agents.files.bot_file, "MAX_BOT_BYTES", 30_000)
    refused(path, "its arrays would take.*MAX_BOT_BYTES")


def test_members_a_bot_file_does_not_hold(tmp_path: Path) -> None:
    refused(_zip_with(tmp_path / "a.npz", {"evil.py": b"print(1)"}), "unexpected member 'evil.py'")
    refused(_zip_with(tmp_path / "b.npz", {"pi_w00.npy": b""}), "unexpected member")
    path = _zip_with(tmp_path / "c.npz", {})
    with pytest.warns(UserWarning, match="Duplicate"), zipfile.ZipFile(path, "a") as zf:
        zf.writestr("pi_b0.npy", b"another")
    refused(path, "appears twice")
    many = {f"pi_w{i}.npy": b"" for i in range(300)}
    refused(_zip_with(tmp_path / "d.npz", many), "holds 3.. members; a bot file holds at most 257")


def test_make_agent_names_the_spec_and_the_file(tmp_path: Path) -> None:
    path = tmp_path / "junk.npz"
    path.write_bytes(b"PK")
    with pytest.raises(ArgumentError, match=f"agent '{re.escape(str(path))}'.*not a bot file"):
        make_agent(str(path))


# ---- export: what it writes -----------------------------------------------------------------------------


def _fake_model(nan: bool = False):
    """An object shaped like a MaskablePPO model (policy.mlp_extractor, action_net, value_net) with tiny layers."""
    import torch
    import torch.nn as nn

    class MlpExtractor(nn.Module):
        def __init__(self) -> None:
            super().__init__()
            self.policy_net = nn.Sequential(nn.Linear(core.OBS_DIM, HIDDEN), nn.Tanh())
            self.value_net = nn.Sequential(nn.Linear(core.OBS_DIM, HIDDEN), nn.Tanh())

    torch.manual_seed(0)
    policy = types.SimpleNamespace(
        mlp_extractor=MlpExtractor(), action_net=nn.Linear(HIDDEN, core.NUM_ACTIONS), value_net=nn.Linear(HIDDEN, 1)
    )
    if nan:
        with torch.no_grad():
            policy.action_net.bias[0] = float("nan")
    return types.SimpleNamespace(policy=policy)


def test_export_writes_atomically_and_never_a_file_the_loader_refuses(tmp_path: Path, monkeypatch) -> None:
    from agents.files import export as ex

    out = ex.export(_fake_model(), tmp_path / "bot.npz", num_players=2)
    assert BotAgent(out).nets[2].obs_version == core.OBS_VERSION
    before = out.read_bytes()
    with pytest.raises(ArgumentError, match="NaN or infinite"):
        ex.export(_fake_model(nan=True), out, num_players=2)
    with pytest.raises(ArgumentError, match="float16"):
        big = _fake_model()
        import torch

        with torch.no_grad():
            big.policy.value_net.weight.fill_(1e6)
        ex.export(big, out, num_players=2, dtype=np.float16)

    write_bytes = Path.write_bytes

    def full_disk(path: Path, data: bytes) -> int:  # the disk fills half way through the bot file
        write_bytes(path, data[: len(data) // 2])
        raise OSError(28, "No space left on device")

    monkeypatch.setattr(Path, "write_bytes", full_disk)
    with pytest.raises(OSError, match="No space"):
        ex.export(_fake_model(), out, num_players=2)
    monkeypatch.undo()
    assert out.read_bytes() == before, "the previous bot file is whole"
    assert sorted(p.name for p in tmp_path.iterdir()) == ["bot.npz"], "no temporary file is left"


def test_export_refuses_to_write_over_its_model(tmp_path: Path) -> None:
    from agents.files import export as ex

    model = tmp_path / "model.npz"
    model.write_bytes(b"a model")
    with pytest.raises(ArgumentError, match="is the model file itself"):
        ex.export(model, model, num_players=2)
    assert model.read_bytes() == b"a model"


# ---- card files ------------------------------------------------------------------------------------------

SHIPPED_TOML = DEFAULT_CARD_FILE.read_text(encoding="utf-8")


def _load_text(tmp_path: Path, text: str):
    path = tmp_path / "cards.toml"
    path.write_text(text, encoding="utf-8")
    cards_mod._load_cached.cache_clear()
    return load_cards(path)


@pytest.mark.parametrize(
    "old,new,pattern",
    [
        ("points = 1", "points = 9223372036854775807", r"AS001.*'points'.*0\.\.99.*9223372036854775807"),
        ("points = 1", "points = 100", r"AS001.*'points'.*0\.\.99"),
        ("icons = { axe = 1 }", "icons = { axe = 99999999999999999999 }", r"AS001.*'icons'.*'axe'.*0\.\.99"),
        ("icons = { axe = 1 }", "icons = { axe = 9223372036854775807 }", r"'icons'.*0\.\.99"),
        ("effect = { vp = 1 }", "effect = { vp = 9223372036854775808 }", r"AS001.*'effect'.*vp.*0\.\.99"),
        ("effect = { vp = 1 }", "effect = { vp = 100 }", r"'effect'.*vp.*0\.\.99"),
        ("copies = 4", "copies = 0", r"AS001.*'copies'.*1\.\.81"),
        ("copies = 4", "copies = 82", r"'copies'.*1\.\.81"),
        ('cost = "K*"', 'cost = "' + "K" * 111 + '"', r"AS001.*'cost'.*111 symbols.*at most 110"),
    ],
)
def test_card_numbers_out_of_bounds_name_card_field_and_range(tmp_path: Path, old: str, new: str, pattern: str) -> None:
    assert old in SHIPPED_TOML
    with pytest.raises(CardDataError, match=pattern):
        _load_text(tmp_path, SHIPPED_TOML.replace(old, new, 1))


def test_the_largest_card_numbers_give_exact_scores(tmp_path: Path) -> None:
    """Every per-copy number at its bound, one player holding all 110 cards as spirits: the totals and
    the final score are the exact sums (before the bounds, two spirits of 2**63-1 points scored -2)."""
    top = cards_mod.MAX_PER_COPY
    text = re.sub(r"points = \d+", f"points = {top}", SHIPPED_TOML)
    text = re.sub(r"icons = \{[^}]*\}", "icons = { " + ", ".join(f"{i} = {top}" for i in cards_mod.ICONS) + " }", text)
    text = re.sub(
        r"(effect = \{[^}]*?)\b(vp|faith|cards|stones|flips|steal|vp_per_gift) = \d+",
        lambda m: f"{m[1]}{m[2]} = {top}",
        text,
    )
    cs = _load_text(tmp_path, text)
    assert int(cs.points.max()) == top and int(cs.icons.min()) == top
    for backend in core.BACKENDS:
        state = core.init(1, 2, seed=0, cards=cs, backend=backend)
        state.spirits[0, 0] = cs.copies  # every card in play for player 0
        state.stones[0, 0] = 0
        state.faith[0, 0] = 10
        recompute_stats(state)
        copies = [int(c) for c in cs.copies]
        exact_stats = [sum(c * int(v) for c, v in zip(copies, col, strict=True)) for col in cs.stat_table.T.tolist()]
        assert state.stats[0, 0].tolist() == exact_stats
        icons = [sum(c * int(cs.icons[k, i]) for k, c in enumerate(copies)) for i in range(5)]
        per_unit = [sum(c * int(cs.score[k, j]) for k, c in enumerate(copies)) for j in range(8)]
        units = icons + [min(icons), 0, 10]
        exact = (
            int(state.vp[0, 0])
            + sum(c * int(p) for c, p in zip(copies, cs.points, strict=True))
            + sum(a * b for a, b in zip(per_unit, units, strict=True))
        )
        assert int(core.final_scores(state)[0, 0]) == exact > 0


# ---- OpenSpiel ----------------------------------------------------------------------------------------------

try:
    import pyspiel

    import aos_env.integrations.openspiel as aos_os
except ImportError:  # the openspiel extra is not installed: its tests are skipped, the others run
    pyspiel = aos_os = None
needs_openspiel = pytest.mark.skipif(pyspiel is None, reason="needs open_spiel")


def _played(players: int = 3, decisions: int = 40, seed: int = 0):
    game = pyspiel.load_game(aos_os.GAME_NAME, {"players": players, "rng_seed": 5})
    state = game.new_initial_state()
    state.apply_action(aos_os.DEAL)
    rng = np.random.default_rng(seed)
    for _ in range(decisions):
        if state.is_terminal():
            break
        state.apply_action(int(rng.choice(state.legal_actions())))
    return game, state


@needs_openspiel
def test_serialize_is_text_and_replays_resampled_worlds() -> None:
    game, state = _played()
    world = state.resample_from_infostate(1, pyspiel.UniformProbabilitySampler(7, 0.0, 1.0))
    for _ in range(5):
        world.apply_action(world.legal_actions()[-1])
    text = world.serialize()
    assert text.startswith(aos_os.SERIAL_HEADER) and "resample" in text and "__dict__" not in text
    copy = game.deserialize_state(text)
    assert str(copy) == str(world) and copy.history() == world.history()
    for p in range(3):
        np.testing.assert_array_equal(copy.own_action_counts(p), world.own_action_counts(p))
        assert copy.information_state_string(p) == world.information_state_string(p)
    for _ in range(20):
        if world.is_terminal():
            break
        a = world.legal_actions()[0]
        world.apply_action(a)
        copy.apply_action(a)
    assert str(copy) == str(world)
    fresh = game.deserialize_state(game.new_initial_state().serialize())
    assert fresh.is_chance_node()


def _pickle_text(marker: Path) -> str:
    """OpenSpiel's own serialized form of a Python state, its attributes a pickle that creates ``marker``."""
    payload = base64.b64encode(pickle.dumps({"_x": _Marker(marker)})).decode()
    return f"history=-1:0\nmove_number=1\n__dict__={payload}"


@needs_openspiel
def test_a_pickle_in_a_serialized_state_runs_nothing_and_is_refused(tmp_path: Path) -> None:
    game, state = _played(2, 10)
    marker = tmp_path / "ran"
    with pytest.raises(ArgumentError, match="must start with.*pickle-based text for Python games is never read"):
        game.deserialize_state(_pickle_text(marker))
    payload = base64.b64encode(pickle.dumps(_Marker(marker))).decode()
    for line in (3, 4):  # a pickle in place of the seed, in the history
        lines = state.serialize().split("\n")
        lines[line] = lines[line].split(" ")[0] + " " + payload
        with pytest.raises(ArgumentError, match="serialized state"):
            game.deserialize_state("\n".join(lines))
    assert not marker.exists()


@needs_openspiel
@pytest.mark.parametrize(
    "edit,pattern",
    [
        (lambda t: t.replace("players 2", "players 3"), "players 3, this game has 2"),
        (lambda t: t.replace("max_turns 200", "max_turns 100"), "max_turns 100, this game has 200"),
        (lambda t: t.replace("seed 5", "seed -1"), "seed"),
        (lambda t: t.replace("seed 5", "seed none"), "'none' with an empty history"),
        (lambda t: t.replace("history 0 ", "history 1 "), "move 0, action 1, cannot be played"),
        (lambda t: t + " 44", r"action 44, cannot be played: .*not an action id"),
        (lambda t: t + "\nresample 1 0 1 2 3", "4 seed words"),
        (lambda t: t + "\nresample 999 0 1 2 3 4", "resample move"),
        (lambda t: t + "\nresample 3 2 1 2 3 4", "resample player"),
        (lambda t: t + "\nresample 3 0 1 2 3 4294967296", "seed word"),
        (lambda t: t + "\nsomething else", "expected a line 'resample'"),
        (lambda t: "\n".join(t.split("\n")[:3]), "expected the lines"),
        (lambda t: t + " 0" * (3 * 10**6), "more than the longest game"),
    ],
)
def test_serialized_states_that_do_not_fit_are_refused(edit, pattern: str) -> None:
    game, state = _played(2, 10)
    text = state.serialize()
    assert "seed 5\n" in text
    with pytest.raises(ArgumentError, match=pattern):
        game.deserialize_state(edit(text))
    with pytest.raises(ArgumentError):
        game.deserialize_state(b"bytes")


@needs_openspiel
def test_the_docs_say_what_still_unpickles() -> None:
    for text in (aos_os.__doc__, (ROOT / "docs" / "ecosystem.md").read_text(encoding="utf-8")):
        assert "deserialize_game_and_state" in text and "never" in text.lower()
    assert (
        "no pickle" in aos_os.AgeOfSummonersState.serialize.__doc__.lower()
        or "pickle" in aos_os.AgeOfSummonersState.serialize.__doc__
    )


# ---- command lines ------------------------------------------------------------------------------------------


def run(*argv: str, cwd: Path = ROOT) -> subprocess.CompletedProcess:
    env = {**os.environ, "PYTHONPATH": str(ROOT)}
    return subprocess.run([sys.executable, *argv], cwd=cwd, env=env, capture_output=True, text=True, timeout=300)


def usage_error(result: subprocess.CompletedProcess, *patterns: str) -> None:
    assert result.returncode == 2, result.stderr
    assert "Traceback" not in result.stderr and "usage:" in result.stderr, result.stderr
    for pattern in patterns:
        assert re.search(pattern, result.stderr), (pattern, result.stderr)


@pytest.mark.parametrize(
    "argv,patterns",
    [
        (["--json", "/proc/x.json"], ["--json", "not writable"]),
        (["--replays", "/proc/r"], ["--replays", "not writable"]),
        (["--json", "/dev/full"], ["--json", "regular file"]),
        (["--games", str(10**30)], [r"--games: must be an int 1\.\.1000000000"]),
        (["--max-turns", str(10**12)], [r"--max-turns: must be an int 1\.\."]),
    ],
)
def test_evaluate_outputs_and_sizes_are_usage_errors(tmp_path: Path, argv: list[str], patterns: list[str]) -> None:
    usage_error(
        run(
            "-m", "agents.evaluation.evaluate", "random", "random", "--games", "2", "--no-progress", *argv, cwd=tmp_path
        ),
        *patterns,
    )
    assert list(tmp_path.iterdir()) == [], "nothing is written"


def evaluate_usage_error(capsys, argv: list[str], *patterns: str) -> None:
    """``agents.evaluation.evaluate`` in this process: a usage error (exit status 2) matching every pattern."""
    from agents.evaluation import evaluate

    with pytest.raises(SystemExit) as e:
        evaluate.main(["--no-progress", *argv])
    err = capsys.readouterr().err
    assert e.value.code == 2 and "usage:" in err, err
    for pattern in patterns:
        assert re.search(pattern, err), (pattern, err)


def test_evaluate_refuses_an_output_that_is_an_input(tmp_path: Path, capsys) -> None:
    bot = tmp_path / "bot.npz"
    shutil.copy(SHIPPED[2], bot)
    before = bot.read_bytes()
    usage_error(
        run("-m", "agents.evaluation.evaluate", "random", str(bot), "--json", str(bot), "--no-progress", cwd=tmp_path),
        "--json",
        "agent file",
    )
    board = tmp_path / "board.json"
    evaluate_usage_error(
        capsys, ["random", "greedy", "--json", str(board), "--leaderboard", str(board)], "--leaderboard", "also --json"
    )
    evaluate_usage_error(
        capsys,
        ["random", "greedy", "--json", str(tmp_path / "board.md"), "--leaderboard", str(board)],
        "table",
        "also --json",
    )
    evaluate_usage_error(
        capsys, ["random", "greedy", "--leaderboard", str(tmp_path / "b.md")], "--leaderboard", "give a .json path"
    )
    evaluate_usage_error(
        capsys,
        ["random", "greedy", "--games", "3", "--replays", str(tmp_path), "--json", str(tmp_path / "game_00002.json")],
        "replay of game 2",
    )
    evaluate_usage_error(capsys, ["random", "greedy", "--leaderboard", str(bot)], "not a leaderboard file")
    shipped = SHIPPED[3].read_bytes()  # read by "bot", though no spec names the file
    evaluate_usage_error(capsys, ["random", "bot", "--json", str(SHIPPED[3])], "agent file")
    assert SHIPPED[3].read_bytes() == shipped
    assert bot.read_bytes() == before
    assert sorted(p.name for p in tmp_path.iterdir()) == ["bot.npz"]


def test_evaluate_refuses_a_bot_file_that_does_not_fit(tmp_path: Path) -> None:
    bot = tmp_path / "cut.npz"
    bot.write_bytes(SHIPPED[2].read_bytes()[:5000])
    usage_error(
        run("-m", "agents.evaluation.evaluate", "random", str(bot), "--no-progress", cwd=tmp_path),
        "cut.npz",
        "not a bot file|truncated",
    )
    assert sorted(p.name for p in tmp_path.iterdir()) == ["cut.npz"]


def test_evaluate_refuses_a_broken_leaderboard(tmp_path: Path, capsys) -> None:
    from agents.evaluation import evaluate

    board = tmp_path / "board.json"
    for broken in (
        {"format": lb.FORMAT, "version": lb.VERSION},
        {**lb.empty(), "tables": {"2": {"pairs": {"a vs b": [1, -2]}}}},
        {**lb.empty(), "tables": {"9": {"pairs": {}}}},
        {**lb.empty(), "tables": {"2": {"pairs": {"b vs a": [1, 2]}}}},
    ):
        board.write_text(json.dumps(broken))
        with pytest.raises(SystemExit) as e:
            evaluate.main(
                [
                    "random",
                    "greedy",
                    "--games",
                    "2",
                    "--no-progress",
                    "--leaderboard",
                    str(board),
                    "--json",
                    str(tmp_path / "t.json"),
                ]
            )
        assert e.value.code == 2 and "leaderboard" in capsys.readouterr().err
    assert sorted(p.name for p in tmp_path.iterdir()) == ["board.json"]
    with pytest.raises(SystemExit):
        evaluate.main(["random", "greedy vs x", "--leaderboard", str(tmp_path / "new.json")])
    assert "contains ' vs '" in capsys.readouterr().err


def test_the_leaderboard_is_written_whole_or_not_at_all(tmp_path: Path, monkeypatch) -> None:
    board = tmp_path / "board.json"
    summary = {"players": 2, "games": 4, "agents": {"a": {}, "b": {}}, "pair_wins": {"a": {"b": 3}, "b": {"a": 1}}}
    md = lb.update(board, summary, {"a": "a", "b": "b"})
    before = board.read_text(), md.read_text()
    real = Path.write_text

    def fails_on_the_table(self, text, *args, **kwargs):
        if self.name.startswith(".board.md"):
            raise OSError(28, "No space left on device")
        return real(self, text, *args, **kwargs)

    monkeypatch.setattr(Path, "write_text", fails_on_the_table)
    with pytest.raises(OSError):
        lb.update(board, summary, {"a": "a", "b": "b"})
    assert (board.read_text(), md.read_text()) == before, "neither file changed"
    assert sorted(p.name for p in tmp_path.iterdir()) == ["board.json", "board.md"]


def test_evaluate_writes_its_json_atomically(tmp_path: Path, monkeypatch) -> None:
    from agents.evaluation import evaluate

    out = tmp_path / "t.json"
    out.write_text("previous")
    real = Path.write_bytes

    def half_then_full(self, data, *args, **kwargs):  # a disk that fills in the middle of the file
        real(self, data[: len(data) // 2], *args, **kwargs)
        raise OSError(28, "No space left on device")

    monkeypatch.setattr(Path, "write_bytes", half_then_full)
    with pytest.raises(OSError, match="No space"):
        evaluate.main(["random", "random", "--games", "2", "--no-progress", "--json", str(out), "--overwrite"])
    monkeypatch.undo()
    assert out.read_text() == "previous" and sorted(p.name for p in tmp_path.iterdir()) == ["t.json"]


def test_python_m_agents_evaluation_evaluate_is_the_tournament_command(tmp_path: Path) -> None:
    helped = run("-m", "agents.evaluation.evaluate", "--help", cwd=tmp_path)
    assert (
        helped.returncode == 0
        and "python -m agents.evaluation.evaluate" in helped.stdout
        and "--games" in helped.stdout
    )
    usage_error(run("-m", "agents.evaluation.evaluate", cwd=tmp_path), "agents")
    played = run(
        "-m",
        "agents.evaluation.evaluate",
        "random",
        "random",
        "--games",
        "2",
        "--no-progress",
        "--json",
        str(tmp_path / "t.json"),
        cwd=tmp_path,
    )
    assert played.returncode == 0, played.stderr
    assert json.loads((tmp_path / "t.json").read_text())["games"] == 2


def test_benchmark_outputs_are_checked_before_measuring(tmp_path: Path) -> None:
    usage_error(run("-m", "benchmarks", "--out", "/proc/x", "--quick", cwd=tmp_path), "--out", "not writable")
    a_file = tmp_path / "file"
    a_file.write_text("x")
    usage_error(run("-m", "benchmarks", "--out", str(a_file), "--quick", cwd=tmp_path), "--out", "is a file")
    for script in ("engine_throughput", "profile_engine", "greedy_agent"):
        usage_error(run("-m", f"benchmarks.{script}", "--json", "/proc/x.json", cwd=tmp_path), "--json")
    assert sorted(p.name for p in tmp_path.iterdir()) == ["file"]


def test_the_benchmark_picture_is_written_atomically(tmp_path: Path, monkeypatch) -> None:
    pytest.importorskip("matplotlib")
    import matplotlib.figure

    from benchmarks.__main__ import plot

    res = {
        "engine": {"numba": {"1": {"median": 10.0}, "64": {"median": 100.0}}},
        "aec": {"ours env": {"median": 5.0}},
        "peers": {"x": {"median": 3.0}},
    }
    picture = tmp_path / "throughput.png"
    plot(res, picture)
    before = picture.read_bytes()
    assert before.startswith(b"\x89PNG")

    def half(self, path, **kwargs):
        Path(path).write_bytes(b"\x89PNG half")
        raise OSError(28, "No space left on device")

    monkeypatch.setattr(matplotlib.figure.Figure, "savefig", half)
    with pytest.raises(OSError):
        plot(res, picture)
    assert picture.read_bytes() == before and sorted(p.name for p in tmp_path.iterdir()) == ["throughput.png"]


# ---- core and env calls -----------------------------------------------------------------------------------


def test_act_on_state_checks_its_arguments() -> None:
    greedy = make_agent("greedy")
    state = core.init(4, 2, seed=0)
    with pytest.raises(ArgumentError, match="state must be a core.State"):
        act_on_state(greedy, None)
    with pytest.raises(ArgumentError, match="agent must be an agent"):
        act_on_state(None, state)
    for games in ([4], np.array([4]), [-1], np.array([-1]), np.array([0, 4], dtype=np.int32)):
        with pytest.raises(ArgumentError, match=r"games must be game indices 0\.\.3"):
            act_on_state(greedy, state, games)
    with pytest.raises(ArgumentError, match="games"):
        act_on_state(greedy, state, [1.5])
    assert act_on_state(greedy, state, np.array([], dtype=np.int64)).shape == (0,)
    assert act_on_state(greedy, state, [3]).shape == (1,)


def _finished_raw_env():
    import aos_env

    env = aos_env.raw_env()
    env.reset(seed=0)
    while True:
        agent = env.agent_selection
        if env.terminations[agent] or env.truncations[agent]:
            return env
        env.step(int(np.flatnonzero(env.observe(agent)["action_mask"])[0]))


def test_stepping_after_every_agent_is_done() -> None:
    env = _finished_raw_env()
    with pytest.raises(ValueError, match="only valid action is None"):  # PettingZoo: a done agent steps None
        env.step(0)
    while env.agents:
        env.step(None)  # how PettingZoo removes done agents
    for action in (None, 0):
        with pytest.raises(RuntimeError, match="every agent is done.*reset"):
            env.step(action)
    env.reset(seed=1)
    assert env.agents


@pytest.mark.parametrize(
    "field,value,pattern",
    [
        ("vp", np.array([[2**40, 0]]), r"state\.vp must hold whole numbers -2147483648\.\.2147483647.*1099511627776"),
        ("vp", [[2**70, 0]], r"state\.vp.*1180591620717411303424"),
        ("vp", 2.5, r"state\.vp.*fraction"),
        ("vp", "3", r"state\.vp.*dtype"),
        ("hand", 200, r"state\.hand.*-128\.\.127"),
        ("rng_key", -1, r"state\.rng_key.*0\.\.18446744073709551615"),
    ],
)
def test_field_setters_refuse_what_the_dtype_cannot_hold(field: str, value, pattern: str) -> None:
    state = core.init(1, 2, seed=0)
    before = state.records.copy()
    with pytest.raises(ArgumentError, match=pattern):
        setattr(state, field, value)
    assert all(np.array_equal(state.records[f], before[f]) for f in core.state.FIELD_NAMES), "nothing changed"
    state.vp = np.array([[3, 4]])
    state.faith = np.array([[2.0, 1.0]])
    state.terminated = False
    assert state.vp.tolist() == [[3, 4]] and state.faith.tolist() == [[2, 1]]


# ---- outputs: nothing a user made is replaced without --overwrite ----------------------------------------


def _evaluate(tmp_path: Path, *argv: str) -> dict:
    from agents.evaluation import evaluate

    return evaluate.main(["random", "random", "--games", "2", "--no-progress", *argv])


def test_evaluate_never_writes_over_a_file_without_overwrite(tmp_path: Path, capsys) -> None:
    """--json over a user's file, a bot file, a symbolic link or a dangling one: refused, naming it."""
    notes = tmp_path / "notes.json"
    notes.write_text("mine")
    bot = tmp_path / "bot.npz"
    shutil.copy(SHIPPED[2], bot)
    link, dangling = tmp_path / "link.json", tmp_path / "dangling.json"
    link.symlink_to(notes)
    dangling.symlink_to(tmp_path / "nowhere.json")
    for target, what in ((notes, "a file of"), (bot, "a file of"), (link, "a symbolic link"), (dangling, "dangling")):
        evaluate_usage_error(
            capsys, ["random", "random", "--games", "2", "--json", str(target)], "exists", what, "--overwrite"
        )
    assert notes.read_text() == "mine" and bot.read_bytes() == SHIPPED[2].read_bytes()
    assert dangling.is_symlink() and not (tmp_path / "nowhere.json").exists()
    _evaluate(tmp_path, "--json", str(notes), "--overwrite")
    assert json.loads(notes.read_text())["games"] == 2


def test_evaluate_without_json_never_rewrites_an_earlier_runs_results(tmp_path: Path, monkeypatch) -> None:
    monkeypatch.chdir(tmp_path)
    (tmp_path / "tournament.json").write_text("an earlier run")
    _evaluate(tmp_path)
    _evaluate(tmp_path)
    assert (tmp_path / "tournament.json").read_text() == "an earlier run"
    assert sorted(p.name for p in tmp_path.iterdir()) == ["tournament-2.json", "tournament-3.json", "tournament.json"]


def test_replays_of_an_earlier_run_are_not_written_over(tmp_path: Path, capsys) -> None:
    replays = tmp_path / "replays"
    _evaluate(tmp_path, "--json", str(tmp_path / "a.json"), "--replays", str(replays))
    first = {p.name: p.read_bytes() for p in replays.iterdir()}
    assert sorted(first) == ["game_00000.json", "game_00001.json"]
    evaluate_usage_error(
        capsys,
        ["random", "greedy", "--games", "2", "--json", str(tmp_path / "b.json"), "--replays", str(replays)],
        "--replays",
        "game_00000.json",
        "--overwrite",
    )
    assert {p.name: p.read_bytes() for p in replays.iterdir()} == first and not (tmp_path / "b.json").exists()
    (tmp_path / "other").mkdir()
    (tmp_path / "other" / "game_00001.json").symlink_to(tmp_path / "gone")  # a dangling link counts too
    evaluate_usage_error(
        capsys, ["random", "random", "--games", "2", "--replays", str(tmp_path / "other")], "game_00001.json"
    )


def test_a_users_file_beside_the_leaderboard_is_not_replaced(tmp_path: Path, capsys) -> None:
    board, notes = tmp_path / "notes.json", tmp_path / "notes.md"
    notes.write_text("my notes")
    argv = ["random", "greedy", "--games", "2", "--json", str(tmp_path / "t.json"), "--leaderboard", str(board)]
    evaluate_usage_error(capsys, argv, "notes.md", "not a leaderboard table", "--overwrite")
    assert notes.read_text() == "my notes" and not board.exists() and not (tmp_path / "t.json").exists()
    from agents.evaluation import evaluate

    evaluate.main([*argv, "--no-progress", "--overwrite"])
    assert notes.read_text().startswith("# Leaderboard")
    argv[5] = str(tmp_path / "t2.json")
    evaluate.main([*argv, "--no-progress"])  # its own table is rewritten on every run
    assert len(json.loads(board.read_text())["runs"]) == 2


def test_the_leaderboard_tells_two_files_at_one_path_apart(tmp_path: Path) -> None:
    """A bot trained again into the same path is a new agent: rated by a hash of its content."""
    from agents.evaluation import evaluate

    bot, board = tmp_path / "bot.npz", tmp_path / "lb.json"
    for i, source in enumerate((SHIPPED[2], SHIPPED_V2[2])):
        shutil.copy(source, bot)
        evaluate.main(
            [
                str(bot),
                "random",
                "--games",
                "4",
                "--no-progress",
                "--json",
                str(tmp_path / f"t{i}.json"),
                "--leaderboard",
                str(board),
            ]
        )
    pairs = json.loads(board.read_text())["tables"]["2"]["pairs"]
    names = {n for key in pairs for n in key.split(lb.PAIR_SEPARATOR)} - {"random"}
    assert len(names) == 2 and all(n.startswith(f"{bot} (sha256:") for n in names), names
    assert lb.rated_name(str(SHIPPED[2])) == lb.rated_name(str(SHIPPED[2])) != lb.rated_name(str(SHIPPED[3]))
    assert lb.rated_name("greedy#2") == "greedy"


def test_export_refuses_a_dangling_link_at_out(tmp_path: Path, capsys) -> None:
    from agents.files import export

    out = tmp_path / "bot.npz"
    out.symlink_to(tmp_path / "elsewhere.npz")
    with pytest.raises(SystemExit) as e:
        export.main([str(SHIPPED[2]), str(out), "--players", "3"])
    err = capsys.readouterr().err
    assert e.value.code == 2 and "dangling" in err and "--overwrite" in err, err
    assert out.is_symlink() and not (tmp_path / "elsewhere.npz").exists()


def test_write_output_never_replaces_without_overwrite(tmp_path: Path) -> None:
    from aos_env.base.outputs import check_output, write_output

    path = tmp_path / "sub" / "x.txt"
    write_output(path, "one", overwrite=False)
    with pytest.raises(ArgumentError, match="exists .a file of 3 bytes.; give --overwrite"):
        write_output(path, "two", overwrite=False)
    with pytest.raises(ArgumentError, match="exists"):
        check_output("--out", tmp_path / "y.txt", False, siblings=[path])
    assert path.read_text() == "one" and sorted(p.name for p in path.parent.iterdir()) == ["x.txt"]
    write_output(path, "two", overwrite=True)
    assert path.read_text() == "two"
