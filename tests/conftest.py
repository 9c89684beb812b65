"""Every test runs on both engines unless it is marked ``one_backend``: the compiled one (numba,
the default) and the numpy reference. The backend is chosen through ``$AOS_BACKEND``, which
``core.init`` (and so every env, agent and position) reads when no backend is given."""

from __future__ import annotations

import pytest

from aos_env import core


def pytest_configure(config) -> None:
    config.addinivalue_line("markers", "one_backend: run only on the default engine (slow end-to-end tests)")


def pytest_generate_tests(metafunc) -> None:
    if "backend" in metafunc.fixturenames and not metafunc.definition.get_closest_marker("one_backend"):
        metafunc.parametrize("backend", core.BACKENDS, indirect=True)


@pytest.fixture(autouse=True)
def backend(request, monkeypatch) -> str:
    """The engine this test runs on ("numba" or "numpy")."""
    name = getattr(request, "param", None)
    if name is None:
        return core.default_backend()
    monkeypatch.setenv(core.BACKEND_ENV, name)
    return name
