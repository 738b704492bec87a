import os

# Tests must not depend on how many threads torch/numpy grab on a 2-core CI machine.
os.environ.setdefault("OMP_NUM_THREADS", "1")
