import os

import pytest

# Tests must not depend on how many threads torch/numpy grab on a 2-core CI machine.
os.environ.setdefault("OMP_NUM_THREADS", "1")


@pytest.fixture
def uvicorn_in_process(monkeypatch):
    """uvicorn for a test that runs the serve command in the test's own process (with
    ``Server.run`` replaced): its ``Config`` leaves the process's logging alone. Its default
    ``dictConfig`` shuts down every logging handler already installed; once Ray (the rllib extra)
    had put its handlers on the streams pytest captures, that closed pytest's capture and every
    later test of the same process errored ("I/O operation on closed file"), which a parallel run
    with the extras installed met whenever the RLlib tests came first."""
    uvicorn = pytest.importorskip("uvicorn")
    monkeypatch.setattr(uvicorn.Config, "configure_logging", lambda self: None)
    return uvicorn
