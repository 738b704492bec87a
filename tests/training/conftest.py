import os

os.environ.setdefault("OMP_NUM_THREADS", "1")

import pytest


@pytest.fixture(autouse=True, scope="session")
def _one_torch_thread():
    try:
        import torch
    except ImportError:  # pragma: no cover
        return
    torch.set_num_threads(1)
