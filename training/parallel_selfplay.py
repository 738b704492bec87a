"""ParallelSelfPlayVecEnv: SelfPlayVecEnv's games split over processes, the learner's among them.

In self-play the learner waits while the games are played: its own moves' rules and observations
and every opponent's decision (the heuristic bot, the networks' numpy copies, random moves) run in
one Python process, on one core, two fifths to a half of a training run (docs/benchmark.md), while
the PPO update already uses every core. Here ``algorithm.env_workers`` processes play the games
at the same time: the learner's own process plays the first share (a ``SelfPlayVecEnv`` on the
pool itself) while ``env_workers - 1`` worker processes each play theirs (a ``SelfPlayVecEnv``
of their own). The learner's process keeps the network, the rollout buffer and the update. A
first version ran every share in workers and left the learner's process waiting: on two cores
it gained nothing (the pipes' round trip cost what the second core saved).

What a worker needs of the learner is its acting network: the ``self`` opponent (whose weights
change with every update) and the frozen snapshots. Before each step the env compares the pool
with what it last sent (the numpy copies of ``numpy_actor`` are rebuilt exactly when the weights
change) and sends only what changed, with the step. A worker's observations and masks come back
through shared memory; rewards, dones and infos (with a finished game's last observation)
through a pipe.

Each share deals its games from its own seed (``worker_seed``), so a run is reproducible for a
given seed and number of processes; another number of processes plays other games, as another
``n_envs`` would. Worker processes are started with ``spawn`` (torch's threads and ``fork`` do
not mix), so a script that trains with ``env_workers > 1`` must start training under
``if __name__ == "__main__":``, as any ``multiprocessing`` program.
"""

from __future__ import annotations

import multiprocessing
import time
from collections import OrderedDict, deque
from multiprocessing import shared_memory
from typing import Any

import numpy as np

from kabenvs.agents.numpy_actor import NumpyActor, numpy_actor
from kabenvs.core.errors import KabenvsError
from kabenvs.core.game import Game
from .pool import OpponentPool
from .selfplay import GamesVecEnv, SelfPlayVecEnv

# the window over which the workers' load is measured: the span the 1-minute load average it is
# subtracted from mostly covers
LOAD_WINDOW_S = 60.0

# how long a worker may take to answer one command before the env gives up on it (a step of 64
# Alakazum! games takes ~10 ms; starting a worker, importing torch, a few seconds)
REPLY_TIMEOUT_S = 600.0


class WorkerError(KabenvsError, RuntimeError):
    """A self-play worker failed or stopped (the message says which and why, in one line;
    ``kabenvs train`` prints it as its error line)."""


def worker_seed(seed: int | None, share: int) -> int | None:
    """Share ``share``'s seed from the env's: distinct, reproducible, not ``seed + share``
    (which would give neighbouring seeds' shares the same games)."""
    if seed is None:
        return None
    return int(np.random.SeedSequence([int(seed), share]).generate_state(1, np.uint32)[0])


def shares(num_envs: int, processes: int) -> list[slice]:
    """The games each process plays: ``num_envs`` split as evenly as can be, the first share the
    learner's own."""
    bounds = np.linspace(0, num_envs, processes + 1).astype(int)
    return [slice(int(a), int(b)) for a, b in zip(bounds[:-1], bounds[1:])]


def _pool_args(pool: OpponentPool) -> dict[str, Any]:
    return {"env_id": pool.env_id, "weights": dict(pool.weights), "max_snapshots": pool.max_snapshots,
            "search_spec": pool.search_spec}


def _serve(conn, game: Game, share: slice, num_envs: int, pool_args: dict, seed: int | None, options: dict,
           shm_names: tuple[str, str]) -> None:
    """One worker: a SelfPlayVecEnv over ``share`` of the games, answering the parent's commands."""
    import torch

    torch.set_num_threads(1)  # the workers play games; the numpy copies act for the networks
    obs_mem, mask_mem = (shared_memory.SharedMemory(name=name) for name in shm_names)
    obs_all = mask_all = obs = masks = None
    try:
        obs_all = np.ndarray((num_envs, game.observation_size), np.float32, buffer=obs_mem.buf)
        mask_all = np.ndarray((num_envs, game.num_actions), np.int8, buffer=mask_mem.buf)
        obs, masks = obs_all[share], mask_all[share]
        pool = OpponentPool(rng=np.random.default_rng(None if seed is None else seed + 17), warn=False, game=game,
                            **pool_args)
        env = SelfPlayVecEnv(game, share.stop - share.start, pool, seed=seed, **options)
        while True:
            cmd, payload, update = conn.recv()
            if cmd == "close":
                break
            try:
                _apply_update(pool, update)
                if cmd == "reset":
                    env.seed(payload)
                    obs[:] = env.reset()
                    masks[:] = env._masks
                    conn.send(("ok", time.process_time()))
                elif cmd == "step":
                    env.time_env = env.time_opponents = 0.0
                    env.step_async(payload)
                    o, rewards, dones, infos = env.step_wait()
                    obs[:] = o
                    masks[:] = env._masks
                    conn.send(("ok", (rewards, dones, infos, time.process_time())))
                else:
                    conn.send(("error", f"unknown command {cmd!r}"))
            except Exception as exc:  # reported by the parent in one line
                conn.send(("error", " ".join(f"{type(exc).__name__}: {exc}".split())))
    except (EOFError, KeyboardInterrupt, BrokenPipeError):
        pass  # the parent is gone
    finally:
        obs_all = mask_all = obs = masks = None  # (views of the shared buffers: released before closing them)
        obs_mem.close()
        mask_mem.close()


def _apply_update(pool: OpponentPool, update: dict | None) -> None:
    if not update:
        return
    if "current" in update:
        if isinstance(pool.current, NumpyActor):
            # in place: games dealt before hold this object for their 'self' seats, and in the
            # learner's process those seats act with the policy as it now is
            pool.current.layers = update["current"]
        else:
            pool.set_current(NumpyActor(update["current"]))
    if "snapshots" in update:
        sent = update["snapshots"]
        # the parent's order (oldest first); a key already here keeps its copy (frozen weights)
        pool.snapshots = OrderedDict(
            (key, NumpyActor(sent[key]) if key in sent else pool.snapshots[key]) for key in update["order"])


class ParallelSelfPlayVecEnv(GamesVecEnv):
    """``num_envs`` self-play games played by ``processes`` processes at once, this one among them
    (module docstring); to the learner, the same VecEnv as ``SelfPlayVecEnv``. ``close()`` stops
    the workers and frees the shared memory."""

    def __init__(
        self,
        game: Game,
        num_envs: int,
        pool: OpponentPool,
        processes: int,
        seed: int | None = None,
        deterministic_opponents: bool = False,
        max_decisions: int | None = None,
        skip_forced: bool = False,
    ) -> None:
        if not isinstance(processes, int) or not 2 <= processes <= num_envs:
            raise ValueError(f"env_workers={processes!r}: from 2 to n_envs ({num_envs}) for games in several processes")
        super().__init__(game, num_envs)
        self.pool = pool
        self.workers = processes
        self.skip_forced = skip_forced
        self.time_env = 0.0
        self.time_opponents = 0.0  # this process's opponent time (the workers' runs alongside)
        self._seed = seed
        self._conns: list = []
        self._procs: list = []
        self._obs_mem = self._mask_mem = None
        self._sent_current: NumpyActor | None = None
        self._sent_snapshots: tuple[str, ...] = ()
        self._cpu_marks: deque[tuple[float, float]] = deque()  # (when, the workers' CPU seconds so far)
        self._shares = shares(num_envs, processes)
        options = {"deterministic_opponents": deterministic_opponents, "max_decisions": max_decisions,
                   "skip_forced": skip_forced}
        mine = self._shares[0]
        self.local = SelfPlayVecEnv(game, mine.stop - mine.start, pool, seed=worker_seed(seed, 0), **options)
        try:
            self._obs_mem = shared_memory.SharedMemory(create=True, size=max(1, num_envs * game.observation_size * 4))
            self._mask_mem = shared_memory.SharedMemory(create=True, size=max(1, num_envs * game.num_actions))
            self._obs = np.ndarray((num_envs, game.observation_size), np.float32, buffer=self._obs_mem.buf)
            self._masks = np.ndarray((num_envs, game.num_actions), np.int8, buffer=self._mask_mem.buf)
            ctx = multiprocessing.get_context("spawn")
            for i, share in enumerate(self._shares[1:], start=1):
                parent, child = ctx.Pipe()
                proc = ctx.Process(target=_serve, daemon=True, name=f"kabenvs-selfplay-{i}", args=(
                    child, game, share, num_envs, _pool_args(pool), worker_seed(seed, i), options,
                    (self._obs_mem.name, self._mask_mem.name)))
                proc.start()
                child.close()
                self._conns.append(parent)
                self._procs.append(proc)
        except BaseException:
            self.close()
            raise
        self._actions: np.ndarray | None = None

    # -- what the workers need of the learner -------------------------------------------------------
    def _update(self) -> dict:
        """The networks that changed since the last command (empty when none did)."""
        update: dict[str, Any] = {}
        if self.pool.current is not None:
            current = numpy_actor(self.pool.current)
            if current is None:
                raise WorkerError("algorithm.env_workers > 1 needs a policy the safe format describes on the CPU "
                                  "(a trunk or flatten extractor, Linear + tanh/relu layers); set env_workers: 1")
            if current is not self._sent_current:
                update["current"] = current.layers
                self._sent_current = current
        keys = tuple(self.pool.snapshots)
        if keys != self._sent_snapshots:
            new = [k for k in keys if k not in self._sent_snapshots]
            update["snapshots"] = {k: numpy_actor(self.pool.snapshots[k]).layers for k in new}
            update["order"] = keys
            self._sent_snapshots = keys
        return update

    def _send(self, cmd: str, payloads: list) -> None:
        if self._obs_mem is None:
            raise WorkerError("the self-play env is closed")
        update = self._update()
        for i, (conn, payload) in enumerate(zip(self._conns, payloads), start=1):
            try:
                conn.send((cmd, payload, update))
            except (BrokenPipeError, OSError):
                raise WorkerError(self._stopped(i)) from None

    def _receive(self) -> list:
        replies = []
        for i, conn in enumerate(self._conns, start=1):
            try:
                if not conn.poll(REPLY_TIMEOUT_S):
                    raise WorkerError(f"self-play worker {i} gave no answer in {REPLY_TIMEOUT_S:.0f} s")
                status, value = conn.recv()
            except (EOFError, OSError):
                raise WorkerError(self._stopped(i)) from None
            if status == "error":
                raise WorkerError(f"self-play worker {i}: {value}")
            replies.append(value)
        return replies

    def _mark_cpu(self, cpu: list[float]) -> None:
        now = time.perf_counter()
        marks = self._cpu_marks
        marks.append((now, sum(cpu)))
        while len(marks) > 2 and marks[1][0] < now - LOAD_WINDOW_S:
            marks.popleft()

    def worker_load(self) -> float:
        """Cores the worker processes kept busy over about the last minute (their CPU seconds
        over the wall-clock seconds), which the rule for the update's threads must not count as
        other work (``build.busy_cores``): they wait through every update."""
        marks = self._cpu_marks
        if len(marks) < 2 or marks[-1][0] <= marks[0][0]:
            return 0.0
        return (marks[-1][1] - marks[0][1]) / (marks[-1][0] - marks[0][0])

    def _stopped(self, i: int) -> str:
        proc = self._procs[i - 1]
        proc.join(timeout=1)
        return (f"self-play worker {i} stopped (exit code {proc.exitcode}; any error it printed is above); "
                "a script that trains with env_workers > 1 must start training under "
                "'if __name__ == \"__main__\":', and env_workers: 1 plays every game in this process")

    # -- VecEnv API ----------------------------------------------------------------------------------
    def reset(self):
        base = self._seeds[0] if self._seeds and self._seeds[0] is not None else None
        if base is None and self._seed is not None:
            base = self._seed
        self._send("reset", [worker_seed(base, i) for i in range(1, self.workers)])
        self.local.seed(worker_seed(base, 0))
        mine = self._shares[0]
        self._obs[mine] = self.local.reset()
        self._masks[mine] = self.local._masks
        self._mark_cpu(self._receive())
        self._reset_seeds()
        return self._obs.copy()

    def step_async(self, actions: np.ndarray) -> None:
        self._actions = np.asarray(actions)

    def step_wait(self):
        t0 = time.perf_counter()
        actions = self._actions
        # the workers start first; this process plays its own share meanwhile
        self._send("step", [actions[s] for s in self._shares[1:]])
        local = self.local
        local.time_opponents = 0.0
        local.step_async(actions[self._shares[0]])
        obs, rewards, dones, infos = local.step_wait()
        mine = self._shares[0]
        self._obs[mine] = obs
        self._masks[mine] = local._masks
        self.time_opponents += local.time_opponents
        replies = self._receive()
        self._mark_cpu([r[3] for r in replies])
        rewards = np.concatenate([rewards] + [r[0] for r in replies])
        dones = np.concatenate([dones] + [r[1] for r in replies])
        infos = infos + [info for r in replies for info in r[2]]
        self.time_env += time.perf_counter() - t0
        return self._obs.copy(), rewards, dones, infos

    def close(self) -> None:
        for conn in self._conns:
            try:
                conn.send(("close", None, None))
            except (BrokenPipeError, OSError):
                pass
        for proc in self._procs:
            proc.join(timeout=5)
            if proc.is_alive():
                proc.terminate()
                proc.join(timeout=5)
        for conn in self._conns:
            conn.close()
        self._conns, self._procs = [], []
        self._obs = self._masks = None
        for mem in (self._obs_mem, self._mask_mem):
            if mem is not None:
                mem.close()
                try:
                    mem.unlink()
                except FileNotFoundError:
                    pass
        self._obs_mem = self._mask_mem = None

    def __del__(self) -> None:
        try:
            self.close()
        except Exception:
            pass
