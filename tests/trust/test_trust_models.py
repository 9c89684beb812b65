"""Trust at every boundary (issue 20), for saved models and the training command.

- A model ``.zip`` that is played (``make_agent``, ``PolicyAgent``, ``agents.files.export``, the opponents
  and baselines of ``train.py``) is read without unpickling: a pickle payload in its ``data`` member,
  or in place of its weights, runs nothing, and a file that does not fit is refused by name.
- ``train.py`` loses nothing: a run folder is never written over without ``--overwrite``; SIGINT
  and SIGTERM save the model and the summary (marked interrupted); ``--resume`` continues from the
  newest of model.zip and the checkpoints; a full disk leaves every previous file whole.
- Bad flags are usage errors (exit status 2, no traceback) before anything is written.
"""

from __future__ import annotations

import errno
import importlib.util
import io
import json
import os
import pickle
import re
import signal
import subprocess
import sys
import time
import zipfile
from pathlib import Path

import numpy as np
import pytest

from agents import PolicyAgent, make_agent
from agents.files import export as export_module
from agents.files import model_file
from agents.files.model_file import MEMBER, load_policy, save_model
from aos_env import core

ROOT = Path(__file__).resolve().parents[2]
_spec = importlib.util.spec_from_file_location("train_script", ROOT / "train.py")
train = importlib.util.module_from_spec(_spec)
_spec.loader.exec_module(train)
#: Files and command lines, not the engine: each test runs once, on the default engine.
pytestmark = pytest.mark.one_backend

#: Small training runs: a rollout of 16 x 64 = 1,024 steps, an evaluation of 4 games at each.
SMALL = [
    "--num-envs",
    "64",
    "--n-steps",
    "16",
    "--eval-every",
    "1024",
    "--eval-games",
    "4",
    "--final-eval-games",
    "4",
    "--snapshot-every",
    "1024",
    "--net-arch",
    "16",
    "--no-progress",
]
ENV = dict(os.environ, PYTHONPATH=str(ROOT) + os.pathsep + os.environ.get("PYTHONPATH", ""), PYTHONHASHSEED="0")


class Payload:
    """Unpickling this creates the file ``marker``: what an attacker's code would do."""

    def __init__(self, marker: Path) -> None:
        self.marker = str(marker)

    def __reduce__(self):
        return exec, (f"open({self.marker!r}, 'w').write('code ran')",)


def payload_bytes(marker: Path) -> bytes:
    return pickle.dumps(Payload(marker))


def rewrite_zip(src: Path, dst: Path, replace: dict[str, bytes] | None = None, drop: tuple[str, ...] = ()) -> Path:
    """A copy of the zip ``src`` with some members replaced or dropped."""
    replace = replace or {}
    with zipfile.ZipFile(src) as zin, zipfile.ZipFile(dst, "w") as zout:
        for info in zin.infolist():
            if info.filename in drop:
                continue
            zout.writestr(info.filename, replace.get(info.filename, zin.read(info.filename)))
        for name in set(replace) - set(zin.namelist()):
            zout.writestr(name, replace[name])
    return dst


def sb3_data_with_payload(marker: Path) -> bytes:
    """SB3's ``data`` member with a serialized (cloudpickled, base64) entry that runs code when loaded."""
    import base64

    return json.dumps(
        {
            "policy_class": {
                ":type:": "<class 'abc.ABCMeta'>",
                ":serialized:": base64.b64encode(payload_bytes(marker)).decode(),
            },
            "num_timesteps": 0,
        }
    ).encode()


@pytest.fixture(scope="module")
def tiny(tmp_path_factory) -> dict:
    """A small MaskablePPO model (untrained: the tests are about files), saved by save_model and by plain SB3."""
    from sb3_contrib import MaskablePPO

    from aos_env.integrations.sb3 import LearnerVecEnv

    d = tmp_path_factory.mktemp("tiny")
    env = LearnerVecEnv(num_envs=8, num_players=2, opponents="random", seed=0)
    model = MaskablePPO(
        "MlpPolicy", env, n_steps=8, batch_size=8, policy_kwargs={"net_arch": [16]}, seed=0, device="cpu"
    )
    save_model(model, d / "good.zip", 2)
    model.save(d / "plain.zip")
    return {"model": model, "good": d / "good.zip", "plain": d / "plain.zip", "dir": d}


# ---- 1. no code from data ------------------------------------------------------------------------


def test_sb3s_own_loader_does_run_the_payload(tiny, tmp_path: Path) -> None:
    """The payload is real: stable-baselines3's loader unpickles it (which is why nothing else uses it)."""
    from sb3_contrib import MaskablePPO

    marker = tmp_path / "ran"
    bad = rewrite_zip(tiny["plain"], tmp_path / "bad.zip", {"data": sb3_data_with_payload(marker)})
    try:
        MaskablePPO.load(str(bad))
    except Exception:
        pass  # the payload is not a policy class, so SB3 fails afterwards
    assert marker.exists()


def payload_models(tiny, folder: Path, marker: Path) -> dict[str, Path]:
    """Model files carrying the payload: in ``data`` of a train.py model and of a plain SB3 model
    (both still load: the pickles in ``data`` are never decoded), and in place of the weights (refused)."""
    data = sb3_data_with_payload(marker)
    return {
        "data": rewrite_zip(tiny["good"], folder / "data.zip", {"data": data}),
        "plain": rewrite_zip(tiny["plain"], folder / "plain.zip", {"data": data}),
        "weights": rewrite_zip(tiny["good"], folder / "weights.zip", {"policy.pth": payload_bytes(marker)}),
        "torch_weights": rewrite_zip(
            tiny["good"],
            folder / "torch_weights.zip",
            {"policy.pth": torch_save({"action_net.weight": Payload(marker)})},
        ),
    }


def torch_save(obj) -> bytes:
    import torch

    buf = io.BytesIO()
    torch.save(obj, buf)
    return buf.getvalue()


@pytest.mark.parametrize("entry", ["make_agent", "PolicyAgent", "load_policy", "export"])
def test_a_payload_in_a_model_file_runs_nothing(tiny, tmp_path: Path, entry: str) -> None:
    marker = tmp_path / "ran"
    files = payload_models(tiny, tmp_path, marker)
    load = {
        "make_agent": lambda p: make_agent(str(p)),
        "PolicyAgent": PolicyAgent,
        "load_policy": load_policy,
        "export": lambda p: export_module.export(p, tmp_path / "bot.npz", 2),
    }[entry]
    assert load(files["data"]) is not None  # data is never read: the model plays
    if entry != "export":  # a plain SB3 model plays; its pickles are never decoded (export needs num_players)
        assert load(files["plain"]) is not None
    for which in ("weights", "torch_weights"):
        with pytest.raises(ValueError, match=re.escape(str(files[which]))):
            load(files[which])
    assert not marker.exists()


def test_export_command_reads_the_model_without_unpickling(tiny, tmp_path: Path, capsys) -> None:
    marker = tmp_path / "ran"
    files = payload_models(tiny, tmp_path, marker)
    assert export_module.main([str(files["data"]), str(tmp_path / "bot.npz")]) == 0
    bot = make_agent(str(tmp_path / "bot.npz"))
    assert bot.nets[2].meta["num_players"] == 2  # --players defaults to the model file's
    for which in ("weights",):
        with pytest.raises(SystemExit) as e:
            export_module.main([str(files[which]), str(tmp_path / f"{which}.npz")])
        err = capsys.readouterr().err
        assert e.value.code == 2 and str(files[which]) in err, err
        assert not (tmp_path / f"{which}.npz").exists()
    with pytest.raises(SystemExit) as e:
        export_module.main([str(files["data"]), str(tmp_path / "three.npz"), "--players", "3"])
    assert e.value.code == 2 and "was trained for 2 players" in capsys.readouterr().err
    assert not marker.exists()


@pytest.mark.parametrize("option", ["--opponents", "--anchors"])
def test_train_opponents_read_models_without_unpickling(tiny, tmp_path: Path, capsys, option: str) -> None:
    marker = tmp_path / "ran"
    files = payload_models(tiny, tmp_path, marker)
    parser = train.build_parser()
    out = tmp_path / "runs"

    def argv(path: Path) -> list[str]:
        spec = f"{path}@1" if option == "--opponents" else str(path)
        return ["--out", str(out), option, spec]

    pool = train.check_args(parser, parser.parse_args(argv(files["data"]))).pool
    assert option == "--anchors" or str(files["data"]) in pool
    for which in ("weights", "torch_weights"):
        with pytest.raises(SystemExit) as e:
            train.check_args(parser, parser.parse_args(argv(files[which])))
        err = capsys.readouterr().err
        assert e.value.code == 2 and option in err and str(files[which]) in err, err
    assert not marker.exists() and not out.exists()


def good_meta() -> dict:
    return {
        "format": "aos-model",
        "format_version": 1,
        "obs_version": core.OBS_VERSION,
        "obs_dim": core.OBS_DIM,
        "num_actions": core.NUM_ACTIONS,
        "num_players": 2,
        "net_arch": {"pi": [16], "vf": [16]},
        "activation": "tanh",
    }


def meta_bytes(**changes) -> bytes:
    return json.dumps({**good_meta(), **changes}).encode()


def weights_bytes(tiny, **changes) -> bytes:

    state = {k: v.clone() for k, v in tiny["model"].policy.state_dict().items()}
    for key, value in changes.items():
        if value is None:
            del state[key]
        else:
            state[key] = value
    return torch_save(state)


def bad_files(tiny, d: Path) -> dict[str, tuple[Path, str]]:
    """Files that do not fit, each with a fragment of its error message."""
    import torch

    (d / "text.zip").write_text("not a zip")
    good = tiny["good"]

    def weights_zip(name: str, **changes) -> Path:
        return rewrite_zip(good, d / name, {"policy.pth": weights_bytes(tiny, **changes)})

    big = 2**40
    cases = {
        "text": (d / "text.zip", "is not a model saved by train.py or SB3's model.save (it is not a zip file)"),
        "truncated": (d / "truncated.zip", "zip"),
        "plain SB3, CNN kwargs": (
            rewrite_zip(
                tiny["plain"],
                d / "cnn.zip",
                {
                    "data": json.dumps(
                        {
                            "policy_kwargs": {
                                ":type:": "<class 'dict'>",
                                ":serialized:": "eA==",
                                "features_extractor_class": "<class 'X'>",
                            }
                        }
                    ).encode()
                },
            ),
            "features_extractor_class, which cannot be rebuilt without unpickling",
        ),
        "plain SB3, gelu": (
            rewrite_zip(
                tiny["plain"],
                d / "gelu_sb3.zip",
                {
                    "data": json.dumps(
                        {
                            "policy_kwargs": {
                                ":type:": "<class 'dict'>",
                                ":serialized:": "eA==",
                                "activation_fn": "<class 'torch.nn.GELU'>",
                            }
                        }
                    ).encode()
                },
            ),
            "only Tanh or ReLU are read",
        ),
        "plain SB3, data not JSON": (
            rewrite_zip(tiny["plain"], d / "dnj.zip", {"data": b"{x"}),
            "data member is not readable JSON",
        ),
        "no member, no data": (
            rewrite_zip(good, d / "other.zip", drop=(MEMBER, "data")),
            "is a zip file but not a model saved by train.py",
        ),
        "not JSON": (rewrite_zip(good, d / "json.zip", {MEMBER: b"{not json"}), "is not readable JSON"),
        "not an object": (rewrite_zip(good, d / "list.zip", {MEMBER: b"[1, 2]"}), "is not a JSON object"),
        "format": (rewrite_zip(good, d / "fmt.zip", {MEMBER: meta_bytes(format="other")}), "has format 'other'"),
        "obs version": (
            rewrite_zip(good, d / "v2.zip", {MEMBER: meta_bytes(obs_version=2)}),
            "was trained for observation version 2",
        ),
        "obs dim": (
            rewrite_zip(good, d / "dim.zip", {MEMBER: meta_bytes(obs_dim=10)}),
            "was trained for observation size 10",
        ),
        "actions": (
            rewrite_zip(good, d / "act.zip", {MEMBER: meta_bytes(num_actions=7)}),
            "was trained for number of actions 7",
        ),
        "players": (rewrite_zip(good, d / "p5.zip", {MEMBER: meta_bytes(num_players=5)}), "has num_players 5"),
        "players bool": (
            rewrite_zip(good, d / "pb.zip", {MEMBER: meta_bytes(num_players=True)}),
            "has num_players True",
        ),
        "activation": (
            rewrite_zip(good, d / "gelu.zip", {MEMBER: meta_bytes(activation="gelu")}),
            "has activation 'gelu'",
        ),
        "net_arch type": (rewrite_zip(good, d / "na.zip", {MEMBER: meta_bytes(net_arch=[16])}), "has net_arch [16]"),
        "net_arch size": (
            rewrite_zip(good, d / "n0.zip", {MEMBER: meta_bytes(net_arch={"pi": [0], "vf": [16]})}),
            "net_arch['pi'] [0]",
        ),
        "huge net_arch": (
            rewrite_zip(good, d / "huge.zip", {MEMBER: meta_bytes(net_arch={"pi": [big], "vf": [16]})}),
            "net_arch['pi']",
        ),
        "many parameters": (
            rewrite_zip(good, d / "many.zip", {MEMBER: meta_bytes(net_arch={"pi": [10**6], "vf": [16]})}),
            "parameters, more than the 100,000,000",
        ),
        "arch differs": (
            rewrite_zip(good, d / "arch.zip", {MEMBER: meta_bytes(net_arch={"pi": [32], "vf": [16]})}),
            "has shape (16, 603), the architecture",
        ),
        "no weights": (rewrite_zip(good, d / "now.zip", drop=("policy.pth",)), "has no policy.pth"),
        "weights not torch": (
            rewrite_zip(good, d / "junk.zip", {"policy.pth": b"junk" * 20_000}),
            "its policy.pth is not a file of tensors",
        ),
        "weights a list": (
            rewrite_zip(good, d / "wl.zip", {"policy.pth": torch_save([torch.zeros(20_000)])}),
            "is not a state dict",
        ),
        "missing weight": (weights_zip("mw.zip", **{"value_net.bias": None}), "missing: value_net.bias"),
        "extra weight": (weights_zip("ew.zip", extra=torch.zeros(1)), "unexpected: extra"),
        "wrong shape": (weights_zip("ws.zip", **{"action_net.bias": torch.zeros(7)}), "action_net.bias has shape (7,)"),
        "int weights": (
            weights_zip("iw.zip", **{"value_net.bias": torch.zeros(1, dtype=torch.int64)}),
            "holds torch.int64 numbers; weights are real floats",
        ),
        "float8 weights": (
            weights_zip("f8.zip", **{"value_net.bias": torch.zeros(1, dtype=torch.float8_e4m3fn)}),
            "holds torch.float8_e4m3fn numbers",
        ),
        "complex weights": (
            weights_zip("cx.zip", **{"value_net.bias": torch.zeros(1, dtype=torch.complex64)}),
            "holds torch.complex64 numbers",
        ),
        "sparse weights": (
            weights_zip("sp.zip", **{"action_net.weight": torch.zeros(44, 16).to_sparse()}),
            "is a torch.sparse_coo Tensor, not a dense tensor",
        ),
        "meta weights": (
            weights_zip("me.zip", **{"value_net.bias": torch.zeros(1, device="meta")}),
            "is on device 'meta'",
        ),
        "huge weights": (
            weights_zip("hw.zip", **{"action_net.bias": torch.full((44,), 3e38)}),
            "more than 10000 (MAX_ABS_WEIGHT)",
        ),
        "nan weights": (weights_zip("nan.zip", **{"value_net.bias": torch.tensor([float("nan")])}), "NaN or infinite"),
    }
    (d / "truncated.zip").write_bytes(good.read_bytes()[: good.stat().st_size // 2])
    return cases


def test_a_model_file_that_does_not_fit_is_refused_by_name(tiny, tmp_path: Path) -> None:
    for what, (path, fragment) in bad_files(tiny, tmp_path).items():
        for load in (load_policy, lambda p: make_agent(str(p)), model_file.read_meta):
            with pytest.raises(ValueError) as e:
                load(path)
            assert str(path) in str(e.value) and fragment in str(e.value), (what, str(e.value))


def test_a_model_saved_by_sb3s_own_save_plays_and_exports(tiny, tmp_path: Path) -> None:
    """SB3's ``model.save("x.zip")`` (no JSON member): the architecture from the weights' shapes,
    the activation from SB3's plain-text description, nothing unpickled; it plays as the live
    model, and exports to a bot file once given the table size."""
    import torch

    policy = load_policy(tiny["plain"])
    assert policy.aos_meta["num_players"] is None and policy.aos_meta["net_arch"] == {"pi": [16], "vf": [16]}
    obs = torch.rand(5, core.OBS_DIM)
    live = tiny["model"].policy
    with torch.no_grad():
        assert torch.allclose(
            policy.get_distribution(obs).distribution.logits, live.get_distribution(obs).distribution.logits
        )
    assert make_agent(str(tiny["plain"])).num_players is None
    with pytest.raises(SystemExit):
        export_module.main([str(tiny["plain"]), str(tmp_path / "bot.npz")])  # the table size is not in the file
    assert export_module.main([str(tiny["plain"]), str(tmp_path / "bot.npz"), "--players", "3"]) == 0
    assert make_agent(str(tmp_path / "bot.npz")).nets[3].meta["num_players"] == 3


def test_a_model_sb3_cannot_describe_says_what_to_do(tiny, tmp_path: Path) -> None:
    data = json.dumps(
        {
            "policy_kwargs": {
                ":type:": "<class 'dict'>",
                ":serialized:": "eA==",
                "net_arch": [16],
                "features_extractor_class": "<class 'NatureCNN'>",
            }
        }
    ).encode()
    bad = rewrite_zip(tiny["plain"], tmp_path / "cnn.zip", {"data": data})
    with pytest.raises(ValueError, match="agents.files.model_file.save_model") as e:
        load_policy(bad)
    assert "trusts the file" in str(e.value)


def zeros_member_zip(src: Path, dst: Path, name: str, size: int, replace: dict[str, bytes] | None = None) -> Path:
    """A copy of ``src`` whose member ``name`` is ``size`` zero bytes, deflated (a file of a few
    hundred kB), written in chunks so that making it costs no memory."""
    replace = replace or {}
    with zipfile.ZipFile(src) as zin, zipfile.ZipFile(dst, "w", zipfile.ZIP_DEFLATED) as zout:
        for info in zin.infolist():
            if info.filename != name:
                zout.writestr(info.filename, replace.get(info.filename, zin.read(info.filename)))
        with zout.open(name, "w", force_zip64=True) as f:
            chunk = bytes(1 << 20)
            for _ in range(size >> 20):
                f.write(chunk)
    return dst


def refusal_cost(load, path: Path) -> tuple[str, int]:
    """(the message, the peak bytes Python allocated) of refusing ``path`` with ``load``."""
    import tracemalloc

    tracemalloc.start()
    try:
        with pytest.raises(ValueError) as e:
            load(path)
        peak = tracemalloc.get_traced_memory()[1]
    finally:
        tracemalloc.stop()
    return str(e.value), peak


def test_a_small_file_is_refused_before_anything_large_is_read_or_built(tiny, tmp_path: Path) -> None:
    """A 2 kB model claiming a 6500x6500 network with an empty policy.pth, and a model whose
    policy.pth is 300 MB of zeros in 300 kB: both refused from what the zip and the JSON say,
    without building the network or decompressing the zeros (measured by allocation, not time)."""
    big = {"pi": [6500, 6500], "vf": [6500, 6500]}
    empty = rewrite_zip(
        tiny["good"], tmp_path / "empty.zip", {MEMBER: meta_bytes(net_arch=big), "policy.pth": torch_save({})}
    )
    zeros = zeros_member_zip(
        tiny["good"], tmp_path / "zeros.zip", "policy.pth", 300 << 20, {MEMBER: meta_bytes(net_arch=big)}
    )
    for path, fragment in ((empty, "too few for the"), (zeros, "more than 20 times (MAX_EXPANSION)")):
        assert path.stat().st_size < 1 << 20
        for load in (load_policy, lambda p: make_agent(str(p))):
            message, peak = refusal_cost(load, path)
            assert fragment in message and str(path) in message, message
            assert peak < 200 << 20, (path.name, peak)


def test_huge_weights_are_refused_before_they_overflow(tiny, tmp_path: Path) -> None:
    import torch

    path = rewrite_zip(
        tiny["good"],
        tmp_path / "huge.zip",
        {"policy.pth": weights_bytes(tiny, **{"action_net.weight": torch.full((44, 16), 3e38)})},
    )
    for load in (
        load_policy,
        lambda p: make_agent(f"{p}:deterministic=false"),
        lambda p: export_module.export(p, tmp_path / "b.npz", 2),
    ):
        with pytest.raises(ValueError, match="MAX_ABS_WEIGHT"):
            load(path)
    assert not (tmp_path / "b.npz").exists()


def test_bfloat16_and_float64_weights_play(tiny, tmp_path: Path) -> None:
    import torch

    for dtype in (torch.bfloat16, torch.float64, torch.float16):
        state = {k: v.to(dtype) for k, v in tiny["model"].policy.state_dict().items()}
        path = rewrite_zip(tiny["good"], tmp_path / f"{dtype}.zip", {"policy.pth": torch_save(state)})
        assert load_policy(path).aos_meta["num_players"] == 2


def test_a_loaded_policy_plays_as_the_live_one(tiny) -> None:
    agent = PolicyAgent(tiny["good"])
    live = PolicyAgent.snapshot(tiny["model"], deterministic=True)
    state = core.init(16, 2, seed=3)
    for _ in range(20):
        obs, mask = core.observe(state, state.current_player), state.legal_action_mask
        live_rows = mask.any(1)
        np.testing.assert_array_equal(agent.act(obs, mask)[live_rows], live.act(obs, mask)[live_rows])
        core.step(state, agent.act(obs, mask))
    assert agent.num_players == 2 and agent.policy.aos_meta["net_arch"] == {"pi": [16], "vf": [16]}


def test_save_model_refuses_what_it_cannot_describe(tiny, tmp_path: Path) -> None:
    with pytest.raises(ValueError, match="num_players must be 2, 3 or 4"):
        save_model(tiny["model"], tmp_path / "m.zip", 5)
    with pytest.raises(ValueError, match="must end in .zip"):
        save_model(tiny["model"], tmp_path / "m.bin", 2)
    assert list(tmp_path.iterdir()) == []


def test_model_device_must_exist(tiny) -> None:
    import torch

    with pytest.raises(ValueError, match="^device must be a torch device"):
        load_policy(tiny["good"], device="bogus")
    if not torch.cuda.is_available():
        with pytest.raises(ValueError, match="torch.cuda.is_available"):
            make_agent(f"{tiny['good']}:device=cuda")


# ---- 2. nothing is lost --------------------------------------------------------------------------


def usage_error(capsys, run, *fragments: str) -> str:
    with pytest.raises(SystemExit) as e:
        run()
    err = capsys.readouterr().err
    assert e.value.code == 2 and "usage:" in err, err
    for fragment in fragments:
        assert fragment in err, (fragment, err)
    return err


def snapshot_files(folder: Path) -> dict[str, tuple[bytes, int]]:
    return {
        str(p.relative_to(folder)): (p.read_bytes(), p.stat().st_mtime_ns)
        for p in sorted(folder.rglob("*"))
        if p.is_file()
    }


@pytest.mark.parametrize("held", ["model.zip", "summary.json", "history.json"])
def test_a_run_folder_is_never_written_over_without_overwrite(capsys, tmp_path: Path, held: str) -> None:
    run = tmp_path / "runs" / "r"
    run.mkdir(parents=True)
    (run / held).write_text("the previous run's")
    before = snapshot_files(tmp_path)
    parser = train.build_parser()
    common = ["--out", str(tmp_path / "runs"), "--name", "r"]
    usage_error(capsys, lambda: train.check_args(parser, parser.parse_args(common)), "--resume", "--overwrite", held)
    usage_error(
        capsys, lambda: train.check_args(parser, parser.parse_args(common + ["--resume", "--overwrite"])), "--overwrite"
    )
    train.check_args(parser, parser.parse_args(common + ["--overwrite"]))  # accepted; nothing removed yet
    assert snapshot_files(tmp_path) == before


def test_rerunning_train_py_stops_before_training(tmp_path: Path) -> None:
    run = tmp_path / "runs" / "default"
    (run / "checkpoints").mkdir(parents=True)
    for name in ("model.zip", "summary.json", "history.json", "checkpoints/model_5.zip"):
        (run / name).write_text(f"previous {name}")
    before = snapshot_files(tmp_path)
    res = subprocess.run(
        [sys.executable, str(ROOT / "train.py"), "--out", str(tmp_path / "runs")],
        cwd=tmp_path,
        capture_output=True,
        text=True,
        env=ENV,
        stdin=subprocess.DEVNULL,
        timeout=300,
    )
    assert res.returncode == 2 and "Traceback" not in res.stderr, res.stderr
    assert "--resume" in res.stderr and "--overwrite" in res.stderr
    assert snapshot_files(tmp_path) == before


def no_temp_files(folder: Path) -> list[Path]:
    return [p for p in folder.rglob("*") if ".tmp" in p.name or p.name.startswith(".")]


def start_training(tmp_path: Path, *extra: str) -> subprocess.Popen:
    cmd = [
        sys.executable,
        str(ROOT / "train.py"),
        "--out",
        str(tmp_path / "runs"),
        "--name",
        "r",
        "--timesteps",
        "1000000",
        *SMALL,
        *extra,
    ]
    return subprocess.Popen(
        cmd, cwd=tmp_path, stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True, env=ENV, stdin=subprocess.DEVNULL
    )


def wait_for(path_glob, proc: subprocess.Popen, timeout: float = 300) -> None:
    deadline = time.time() + timeout
    while not list(path_glob()):
        assert proc.poll() is None, proc.communicate()
        assert time.time() < deadline, "no checkpoint in time"
        time.sleep(0.2)


@pytest.mark.parametrize("sig", [signal.SIGINT, signal.SIGTERM], ids=["SIGINT", "SIGTERM"])
def test_a_signal_during_training_saves_the_model_and_the_summary(tmp_path: Path, sig) -> None:
    run = tmp_path / "runs" / "r"
    (run / "checkpoints").mkdir(parents=True)
    (run / "checkpoints" / "model_999999.zip").write_text("a stale checkpoint of the replaced run")
    proc = start_training(tmp_path, "--overwrite")
    wait_for(lambda: (run / "checkpoints").glob("model_1024.zip"), proc)
    proc.send_signal(sig)
    out, err = proc.communicate(timeout=300)
    assert proc.returncode == 128 + sig, err
    assert "Traceback" not in err and "KeyboardInterrupt" not in err, err
    name = signal.Signals(sig).name
    assert f"{name}: stopping" in err and f"{name}: stopped at" in out and str(run / "model.zip") in out, out
    summary = json.loads((run / "summary.json").read_text())
    assert summary["interrupted"] is True and summary["signal"] == name and summary["final_evaluation"] is None
    assert summary["timesteps"] >= 1024
    agent = PolicyAgent(run / "model.zip")  # the saved model is whole and plays
    state = core.init(4, 2, seed=0)
    assert state.legal_action_mask[np.arange(4), agent.act(core.observe(state, 0), state.legal_action_mask)].all()
    assert not (run / "checkpoints" / "model_999999.zip").exists()  # --overwrite replaced the old run
    assert no_temp_files(run) == []


def test_a_second_signal_aborts_at_once(tmp_path: Path) -> None:
    run = tmp_path / "runs" / "r"
    proc = start_training(tmp_path)
    wait_for(lambda: (run / "checkpoints").glob("model_*.zip"), proc)
    proc.send_signal(signal.SIGTERM)
    time.sleep(0.05)
    proc.send_signal(signal.SIGINT)
    out, err = proc.communicate(timeout=120)
    # aborted (by its exit status, or by the signal itself when it came before train.py's handler), or
    # saved just before
    assert proc.returncode in (128 + signal.SIGINT, 128 + signal.SIGTERM, -signal.SIGINT), err
    assert "Traceback" not in err, err
    assert no_temp_files(run) == []
    for ckpt in (run / "checkpoints").glob("model_*.zip"):
        load_policy(ckpt)  # every file there is whole


def fake_run(tiny, folder: Path, model_steps: int, checkpoints: tuple[int, ...]) -> None:
    """A run folder: model.zip at ``model_steps`` steps, checkpoints at ``checkpoints``, and a history."""
    model = tiny["model"]
    before = model.num_timesteps
    try:
        model.num_timesteps = model_steps
        save_model(model, folder / "model.zip", 2)
        for t in checkpoints:
            model.num_timesteps = t
            save_model(model, folder / "checkpoints" / f"model_{t}.zip", 2)
    finally:
        model.num_timesteps = before
    evaluation = {
        s: {"win_rate": 0.5, "ci95": [0.0, 1.0], "games": 2, "mean_score": 0.0, "truncated": 0.0}
        for s in ("random", "greedy")
    }
    steps = sorted({0, model_steps, *checkpoints, max((model_steps, *checkpoints)) + 500})
    (folder / "history.json").write_text(
        json.dumps([{"timesteps": t, "wall_seconds": 0.0, "results": evaluation} for t in steps])
    )


def test_resume_picks_the_newest_model(tiny, tmp_path: Path) -> None:
    from agents import training

    folder = tmp_path / "runs" / "r"
    fake_run(tiny, folder, 1000, (500, 3000))
    parser = train.build_parser()
    args = parser.parse_args(["--out", str(tmp_path / "runs"), "--name", "r", "--resume"])
    assert train.check_args(parser, args).resume_from == folder / "checkpoints" / "model_3000.zip"
    fake_run(tiny, folder, 3000, ())  # a tie: model.zip is saved after the checkpoint of the same step
    assert training.newest_model(folder) == folder / "model.zip"
    (folder / "model.zip").write_text("unreadable")  # its steps cannot be read: the checkpoints come first
    assert training.newest_model(folder) == folder / "checkpoints" / "model_3000.zip"


def test_resume_continues_from_the_newest_checkpoint(tiny, tmp_path: Path) -> None:
    folder = tmp_path / "runs" / "r"
    fake_run(tiny, folder, 1000, (3000,))
    res = subprocess.run(
        [
            sys.executable,
            str(ROOT / "train.py"),
            "--out",
            str(tmp_path / "runs"),
            "--name",
            "r",
            "--resume",
            "--timesteps",
            "512",
            "--num-envs",
            "32",
            "--n-steps",
            "16",
            "--eval-every",
            "100000",
            "--eval-games",
            "2",
            "--final-eval-games",
            "2",
            "--no-progress",
        ],
        cwd=tmp_path,
        capture_output=True,
        text=True,
        env=ENV,
        stdin=subprocess.DEVNULL,
        timeout=300,
    )
    assert res.returncode == 0, res.stderr
    assert f"resuming from {folder / 'checkpoints' / 'model_3000.zip'}" in res.stdout
    summary = json.loads((folder / "summary.json").read_text())
    assert summary["timesteps"] == 3000 + 512 and summary["interrupted"] is False
    history = json.loads((folder / "history.json").read_text())
    # the evaluation at 3,500 (lost) is dropped; at the end the final model plays the choosing
    # games, then the final ones
    assert [(h["timesteps"], h.get("kind", "choose")) for h in history] == [  # (a history before 0.5: no kinds)
        (0, "choose"),
        (1000, "choose"),
        (3000, "choose"),
        (3512, "choose"),
        (3512, "final"),
    ]
    assert model_file.read_meta(folder / "model.zip")["num_players"] == 2


def test_resume_refuses_another_game_size(tiny, tmp_path: Path, capsys) -> None:
    folder = tmp_path / "runs" / "r"
    fake_run(tiny, folder, 1000, ())
    parser = train.build_parser()
    usage_error(
        capsys,
        lambda: train.check_args(
            parser, parser.parse_args(["--out", str(tmp_path / "runs"), "--name", "r", "--resume", "--players", "3"])
        ),
        "--players",
        "trains 2-player games",
    )


def full_disk(*args, **kwargs):
    raise OSError(errno.ENOSPC, os.strerror(errno.ENOSPC))


@pytest.mark.parametrize("where", ["sb3 member", "json member"])
def test_a_full_disk_leaves_the_previous_model_whole(tiny, tmp_path: Path, monkeypatch, where: str) -> None:
    path = tmp_path / "model.zip"
    save_model(tiny["model"], path, 2)
    before = path.read_bytes()
    real = zipfile.ZipFile.writestr
    failing = "system_info.txt" if where == "sb3 member" else MEMBER  # the last of SB3's members, or ours

    def writestr(self, name, data, *a, **k):
        name = getattr(name, "filename", name)
        if name == failing:
            real(self, name, data[: len(data) // 2], *a, **k)  # half of it reaches the disk
            full_disk()
        return real(self, name, data, *a, **k)

    monkeypatch.setattr(zipfile.ZipFile, "writestr", writestr)
    with pytest.raises(OSError, match="No space left"):
        save_model(tiny["model"], path, 2)
    monkeypatch.undo()
    assert path.read_bytes() == before and sorted(p.name for p in tmp_path.iterdir()) == ["model.zip"]
    load_policy(path)


def test_a_full_disk_leaves_the_history_summary_and_curve_whole(tmp_path: Path, monkeypatch) -> None:
    import matplotlib.figure

    from agents.training import Run, config_from_args

    parser = train.build_parser()
    run = Run(config_from_args(parser.parse_args(["--out", str(tmp_path), "--name", "r"])))
    run.dir.mkdir()
    result = {
        s: {"win_rate": 0.5, "ci95": [0.25, 0.75], "games": 4, "mean_score": 1.0, "truncated": 0.0}
        for s in ("random", "greedy")
    }
    run.record(0, result)
    run.finish(0, 0, 1.0, result, run.dir / "model.zip")
    before = snapshot_files(tmp_path)
    real_write = Path.write_text

    def half_write_text(self, text, *a, **k):
        real_write(self, text[: len(text) // 2], *a, **k)
        full_disk()

    monkeypatch.setattr(Path, "write_text", half_write_text)
    with pytest.raises(OSError):
        run.record(100, result)
    with pytest.raises(OSError):
        run.finish(100, 100, 1.0, result, run.dir / "model.zip")
    monkeypatch.undo()
    real_savefig = matplotlib.figure.Figure.savefig

    def half_savefig(self, fname, *a, **k):
        real_savefig(self, fname, *a, **k)
        Path(fname).write_bytes(Path(fname).read_bytes()[:100])
        full_disk()

    monkeypatch.setattr(matplotlib.figure.Figure, "savefig", half_savefig)
    with pytest.raises(OSError):
        run.record(200, result)
    monkeypatch.undo()
    after = snapshot_files(tmp_path)
    assert {k: v[0] for k, v in after.items() if k != "r/history.json"} == {
        k: v[0] for k, v in before.items() if k != "r/history.json"
    }
    # history.json was rewritten whole (with the evaluation at 200) before the curve failed, never half
    assert [h["timesteps"] for h in json.loads((run.dir / "history.json").read_text())] in ([0], [0, 100, 200])
    assert sorted(p.name for p in run.dir.iterdir()) == ["history.json", "learning_curve.png", "summary.json"]


def test_a_full_disk_during_training_is_an_error_message(tmp_path: Path, monkeypatch, capsys) -> None:
    """A checkpoint that cannot be written ends the run with exit status 1, a message and no
    traceback; what was written before is whole."""
    import numba
    import torch

    from agents import training

    threads = torch.get_num_threads(), numba.get_num_threads()
    real_save = model_file.save_model

    def checkpoints_full(model, path, *args, **kwargs):  # the disk fills up at the first checkpoint
        if Path(path).parent.name == "checkpoints":
            full_disk()
        return real_save(model, path, *args, **kwargs)

    monkeypatch.setattr(model_file, "save_model", checkpoints_full)
    try:
        with pytest.raises(SystemExit) as e:
            training.main(["--out", str(tmp_path), "--name", "r", "--timesteps", "2048", *SMALL])
    finally:  # main sets the process's threads; the other tests keep theirs
        torch.set_num_threads(threads[0])
        numba.set_num_threads(threads[1])
    err = capsys.readouterr().err
    assert e.value.code == 1 and "No space left on device" in err and "the run stopped" in err, err
    history = json.loads((tmp_path / "r" / "history.json").read_text())
    assert [h["timesteps"] for h in history] == [0, 1024]
    assert list((tmp_path / "r" / "checkpoints").iterdir()) == []


def test_a_checkpoint_folder_is_replaced_only_when_whole(tmp_path: Path) -> None:
    """RLlib's checkpoint is a folder: it is written beside the previous one and swapped in whole."""
    from aos_env.base.files import atomic_folder

    folder = tmp_path / "rllib"
    with atomic_folder(folder) as tmp:
        (tmp / "state.json").write_text("first")
    with pytest.raises(OSError):
        with atomic_folder(folder) as tmp:
            (tmp / "state.json").write_text("half")
            full_disk()
    assert (folder / "state.json").read_text() == "first" and sorted(p.name for p in tmp_path.iterdir()) == ["rllib"]
    with atomic_folder(folder) as tmp:
        (tmp / "state.json").write_text("second")
    assert (folder / "state.json").read_text() == "second" and sorted(p.name for p in tmp_path.iterdir()) == ["rllib"]


def test_atomic_files_get_the_usual_modes(tmp_path: Path) -> None:
    """A temporary file is private (0600); the file renamed into place has the mode open() would give,
    or the mode of the file it replaces."""
    from aos_env.base.files import write_text

    mask = os.umask(0o022)
    try:
        assert write_text(tmp_path / "a.json", "{}").stat().st_mode & 0o777 == 0o644
        os.chmod(tmp_path / "a.json", 0o640)
        assert write_text(tmp_path / "a.json", "[]").stat().st_mode & 0o777 == 0o640
    finally:
        os.umask(mask)


def test_resume_help_says_what_it_trusts() -> None:
    text = " ".join(train.build_parser().format_help().split())
    assert "full loader, which unpickles the file and so can run code from it" in text
    assert "resume only run folders you trained yourself" in text
    assert "--overwrite" in text


def test_an_input_inside_the_runs_own_folder_is_refused(capsys, tmp_path: Path, tiny) -> None:
    from agents.players.bot import SHIPPED

    run = tmp_path / "runs" / "r"
    (run / "checkpoints").mkdir(parents=True)
    bot = run / "checkpoints" / "bot.npz"
    bot.write_bytes(SHIPPED[2].read_bytes())
    save_model(tiny["model"], run / "model.zip", 2)
    parser = train.build_parser()
    common = ["--out", str(tmp_path / "runs"), "--name", "r", "--overwrite"]
    usage_error(
        capsys,
        lambda: train.check_args(parser, parser.parse_args(common + ["--init", str(bot), "--net-arch", "256,256"])),
        "--init",
        "inside the run's own folder",
    )
    usage_error(
        capsys,
        lambda: train.check_args(parser, parser.parse_args(common + ["--opponents", f"{run / 'model.zip'}@1"])),
        "--opponents",
        "inside the run's own folder",
    )
    usage_error(
        capsys,
        lambda: train.check_args(parser, parser.parse_args(common + ["--anchors", str(run / "model.zip")])),
        "--anchors",
        "inside the run's own folder",
    )


# ---- 3. bad flags ----------------------------------------------------------------------------------


def test_out_must_be_writable(capsys, tmp_path: Path, monkeypatch) -> None:
    parser = train.build_parser()
    if Path("/proc/self").is_dir():
        usage_error(
            capsys,
            lambda: train.check_args(parser, parser.parse_args(["--out", "/proc"])),
            "--out",
            "'/proc' is not writable",
        )
    # a folder that refuses new files (permission bits do not stop root, so the refusal is simulated)
    import tempfile

    def refuse(*args, **kwargs):
        raise PermissionError(errno.EACCES, os.strerror(errno.EACCES))

    monkeypatch.setattr(tempfile, "mkstemp", refuse)
    usage_error(
        capsys,
        lambda: train.check_args(parser, parser.parse_args(["--out", str(tmp_path / "runs")])),
        "--out",
        "Permission denied",
    )
    assert list(tmp_path.iterdir()) == []


def test_net_arch_must_fit(capsys, tmp_path: Path, monkeypatch) -> None:
    parser = train.build_parser()
    out = ["--out", str(tmp_path / "runs")]
    usage_error(
        capsys,
        lambda: train.check_args(parser, parser.parse_args(out + ["--net-arch", "1000000000"])),
        "--net-arch",
        "a model file may hold",
    )
    import agents.training.start as start

    monkeypatch.setattr(start, "total_memory", lambda: 10**9)  # a 1 GB machine
    usage_error(
        capsys,
        lambda: train.check_args(parser, parser.parse_args(out + ["--net-arch", "4096,4096"])),
        "--net-arch",
        "of memory to train",
    )
    assert not (tmp_path / "runs").exists()


def truncated_copy(src: Path, dst: Path) -> Path:
    dst.write_bytes(src.read_bytes()[: src.stat().st_size // 3])
    return dst


def test_a_broken_opponent_file_is_a_usage_error(capsys, tmp_path: Path, tiny) -> None:
    from agents.players.bot import SHIPPED

    parser = train.build_parser()
    out = ["--out", str(tmp_path / "runs")]
    for path in (
        truncated_copy(SHIPPED[2], tmp_path / "truncated.npz"),
        truncated_copy(tiny["good"], tmp_path / "truncated.zip"),
    ):
        usage_error(
            capsys,
            lambda path=path: train.check_args(parser, parser.parse_args(out + ["--opponents", f"{path}@1"])),
            "--opponents",
            str(path),
        )
    npz = truncated_copy(SHIPPED[2], tmp_path / "init.npz")
    usage_error(capsys, lambda: train.check_args(parser, parser.parse_args(out + ["--init", str(npz)])), "--init")
    assert not (tmp_path / "runs").exists()


def test_device_must_exist(capsys, tmp_path: Path) -> None:
    import torch

    if torch.cuda.is_available():
        pytest.skip("this machine has CUDA")
    parser = train.build_parser()
    for device in ("cuda", "cuda:0"):
        usage_error(
            capsys,
            lambda device=device: train.check_args(
                parser, parser.parse_args(["--out", str(tmp_path / "runs"), "--device", device])
            ),
            "--device",
            "torch.cuda.is_available()",
        )
    assert not (tmp_path / "runs").exists()


def test_batch_size_is_at_most_the_rollout(capsys, tmp_path: Path) -> None:
    parser = train.build_parser()
    out = ["--out", str(tmp_path / "runs")]
    usage_error(
        capsys,
        lambda: train.check_args(parser, parser.parse_args(out + ["--batch-size", str(10**12)])),
        "--batch-size",
        "must be at most the rollout (--n-steps x --num-envs = 16384)",
    )
    args = parser.parse_args(out + ["--num-envs", "64"])  # the default minibatch shrinks to a small rollout
    assert train.check_args(parser, args).config.batch_size == 1024
    args = parser.parse_args(out)
    assert train.check_args(parser, args).config.batch_size == 2048


@pytest.mark.parametrize(
    "argv,option",
    [
        (["--out", "/proc"], "--out"),
        (["--net-arch", "1000000000"], "--net-arch"),
        (["--batch-size", str(10**12)], "--batch-size"),
        (["--opponents", "truncated.npz@1"], "--opponents"),
    ],
)
def test_train_py_bad_flags_exit_2_without_a_traceback(tmp_path: Path, argv, option) -> None:
    from agents.players.bot import SHIPPED

    if argv == ["--out", "/proc"] and not Path("/proc/self").is_dir():
        pytest.skip("no /proc here")
    truncated_copy(SHIPPED[2], tmp_path / "truncated.npz")
    out = [] if argv[0] == "--out" else ["--out", str(tmp_path / "runs")]
    res = subprocess.run(
        [sys.executable, str(ROOT / "train.py"), *out, *argv],
        cwd=tmp_path,
        capture_output=True,
        text=True,
        env=ENV,
        stdin=subprocess.DEVNULL,
        timeout=300,
    )
    assert res.returncode == 2 and "usage:" in res.stderr and option in res.stderr, res.stderr
    assert "Traceback" not in res.stderr, res.stderr
    assert sorted(p.name for p in tmp_path.iterdir()) == ["truncated.npz"]


def test_the_meta_device_is_refused() -> None:
    for device in ("meta", "meta:0"):
        with pytest.raises(ValueError, match="holds shapes only"):
            model_file.check_device("--device", device)


def test_the_docs_say_how_to_play_your_own_sb3_model() -> None:
    text = (ROOT / "docs" / "ecosystem.md").read_text(encoding="utf-8")
    section = text.split("\n## stable-baselines3 and MaskablePPO\n", 1)[1].split("\n## ", 1)[0]
    for fragment in (
        'model.save("mymodel.zip")',
        "agents.files.model_file.save_model",
        "weights_only=True",
        "--players",
    ):
        assert fragment in section, fragment


def test_torchs_older_raw_pickle_format_is_not_read(tiny, tmp_path: Path) -> None:
    """Its storages' sizes are declared inside the pickle (torch would allocate them before reading):
    only torch's zip archive, whose records' sizes are checked first, is read."""
    import torch

    buf = io.BytesIO()
    torch.save(tiny["model"].policy.state_dict(), buf, _use_new_zipfile_serialization=False)
    path = rewrite_zip(tiny["good"], tmp_path / "legacy.zip", {"policy.pth": buf.getvalue()})
    with pytest.raises(ValueError, match="not torch's zip format"):
        load_policy(path)
