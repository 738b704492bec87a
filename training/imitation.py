"""Warm start by imitation: fit the fresh policy to a teacher bot's moves before self-play PPO.

Config section ``imitation`` (``games: 0`` turns it off). The teacher (each game's heuristic bot,
random, or the search bot: ``search:model=zoo,sims=100`` searches with a trained policy as prior and
value, so imitating it is a step of expert iteration) plays ``games`` whole games in every seat; every decision with a real choice (two or
more legal actions) becomes one example: the deciding seat's own observation and mask, the
teacher's action, and that seat's final return discounted by ``gamma`` per later decision of the
seat (the critic's target, so PPO starts with a value function that fits the play it starts from).
The actor is fitted by cross-entropy over the masked action distribution, the critic by squared
error, both through the policy's own ``evaluate_actions`` (one network, as PPO then trains it).

Why: from a win/loss reward alone PPO needs millions of steps to rediscover what the heuristic
bots encode (docs/results.md); starting from their play, self-play has to improve on them rather
than catch up. The teacher reads only its seat's information, so the examples leak nothing.
"""

from __future__ import annotations

import time
from dataclasses import dataclass
from typing import Any

import numpy as np

from kabenvs.agents.base import Decision
from kabenvs.core.game import Game
from .evaluation import baseline


@dataclass
class Demonstrations:
    """The teacher's examples. Observations are kept by their non-zero entries, row after row
    (``obs_start[i]:obs_start[i + 1]`` of ``obs_index``/``obs_value`` is row ``i``): most of an
    observation is zero, and kept whole they outgrew the machine (Alakazum! at 5 players: 5000
    games, 817k examples of 6640 floats, 22 GB, killed for memory); this way the same take
    about a twentieth of that. ``observations(rows)`` gives rows back whole (float32)."""

    obs_start: np.ndarray  # (N + 1,) int64
    obs_index: np.ndarray  # (nnz,) int32: the column of each kept entry
    obs_value: np.ndarray  # (nnz,) float32
    observation_size: int
    masks: np.ndarray  # (N, num_actions) bool
    actions: np.ndarray  # (N,) int64
    returns: np.ndarray  # (N,) float32: the seat's discounted final return
    games: int

    def __len__(self) -> int:
        return len(self.actions)

    def observations(self, rows=None) -> np.ndarray:
        """Rows ``rows`` (an index array; all when None) as whole float32 observations."""
        rows = np.arange(len(self)) if rows is None else np.asarray(rows, dtype=np.int64)
        start, end = self.obs_start[rows], self.obs_start[rows + 1]
        counts = end - start
        out = np.zeros((len(rows), self.observation_size), dtype=np.float32)
        total = int(counts.sum())
        if total:
            # the positions of every kept entry of these rows, without a loop over the rows
            first = np.cumsum(counts) - counts  # where each row's entries begin in the gathered list
            at = np.repeat(start - first, counts) + np.arange(total)
            out[np.repeat(np.arange(len(rows)), counts), self.obs_index[at]] = self.obs_value[at]
        return out

    @property
    def obs_nbytes(self) -> int:
        return self.obs_start.nbytes + self.obs_index.nbytes + self.obs_value.nbytes


def collect(game: Game, games: int, teacher: str, gamma: float, seed: int) -> Demonstrations:
    """Play ``games`` games with the teacher in every seat; one example per real choice."""
    make_teacher = baseline(teacher, game.env_id, game=game).agent  # seed -> a fresh agent
    rng = np.random.default_rng(seed)
    # Only the non-zero entries of each observation are kept (``Demonstrations``): whole, they
    # held some 16 GB for 3000 games of Kabaal at 4 players (one game's alone some 30 MB).
    counts: list[int] = []  # the kept entries of each row
    index_chunks: list[np.ndarray] = []
    value_chunks: list[np.ndarray] = []
    masks, actions, returns = [], [], []
    limit = game.max_decisions()
    for _ in range(games):
        state = game.new_state(np.random.default_rng(int(rng.integers(2**63))))
        seats = [make_teacher(int(rng.integers(2**31))) for _ in range(game.num_players)]
        rows: list[tuple[int, int]] = []  # (seat, index of the example)
        steps = 0
        while state.current_player is not None and steps < limit:
            p = state.current_player
            d = Decision(p, state)
            a = int(seats[p].act(d))
            if len(d.legal_actions) > 1:
                rows.append((p, len(actions)))
                obs = d.observation
                kept = np.flatnonzero(obs)
                counts.append(len(kept))
                index_chunks.append(kept.astype(np.int32))
                value_chunks.append(obs[kept].astype(np.float32, copy=False))
                masks.append(d.action_mask.astype(bool))
                actions.append(a)
                returns.append(0.0)
            state.apply(a)
            steps += 1
        if state.current_player is not None:
            continue  # capped: no return to learn from; the examples keep target 0
        final = state.returns()
        later = [0] * game.num_players  # the seat's decisions after this one
        for p, i in reversed(rows):
            returns[i] = float(final[p]) * gamma ** later[p]
            later[p] += 1
    start = np.zeros(len(actions) + 1, dtype=np.int64)
    np.cumsum(counts, out=start[1:])
    return Demonstrations(
        obs_start=start,
        obs_index=np.concatenate(index_chunks) if index_chunks else np.zeros(0, dtype=np.int32),
        obs_value=np.concatenate(value_chunks) if value_chunks else np.zeros(0, dtype=np.float32),
        observation_size=game.observation_size,
        masks=np.asarray(masks, dtype=bool).reshape(-1, game.num_actions),
        actions=np.asarray(actions, dtype=np.int64),
        returns=np.asarray(returns, dtype=np.float32),
        games=games,
    )


def fit(policy, demos: Demonstrations, epochs: int, batch_size: int, learning_rate: float,
        vf_coef: float, seed: int) -> dict[str, float]:
    """Cross-entropy (actor) + squared error (critic) on the demonstrations; returns the final
    epoch's mean loss, the actor's agreement with the teacher (argmax) and the value error."""
    import torch

    if len(demos) == 0:
        return {"examples": 0}
    device = policy.device

    def obs(rows) -> "torch.Tensor":  # whole observations for a batch (kept compact: Demonstrations)
        return torch.as_tensor(demos.observations(rows), device=device)

    masks = torch.as_tensor(demos.masks, device=device)
    actions = torch.as_tensor(demos.actions, device=device)
    targets = torch.as_tensor(demos.returns, device=device)
    opt = torch.optim.Adam(policy.parameters(), lr=learning_rate)
    gen = torch.Generator().manual_seed(seed)
    n = len(demos)
    policy.set_training_mode(True)
    for _ in range(epochs):
        order = torch.randperm(n, generator=gen)
        for lo in range(0, n, batch_size):
            rows = order[lo: lo + batch_size]
            idx = rows.to(device)
            values, log_prob, _ = policy.evaluate_actions(obs(rows.numpy()), actions[idx], action_masks=masks[idx])
            loss = -log_prob.mean() + vf_coef * torch.nn.functional.mse_loss(values.flatten(), targets[idx])
            opt.zero_grad()
            loss.backward()
            torch.nn.utils.clip_grad_norm_(policy.parameters(), 0.5)
            opt.step()
    policy.set_training_mode(False)
    with torch.no_grad():
        agree, nll, err = 0.0, 0.0, 0.0
        for lo in range(0, n, 4096):
            sl = slice(lo, lo + 4096)
            batch = obs(np.arange(lo, min(lo + 4096, n)))
            dist = policy.get_distribution(batch, action_masks=masks[sl].cpu().numpy())
            probs = dist.distribution.probs
            agree += float((probs.argmax(dim=1) == actions[sl]).sum())
            nll += float(-dist.log_prob(actions[sl]).sum())
            err += float(((policy.predict_values(batch).flatten() - targets[sl]) ** 2).sum())
    return {"examples": n, "teacher_agreement": agree / n, "nll": nll / n, "value_mse": err / n}


def warm_start(model, game: Game, cfg: dict[str, Any], echo=print) -> dict[str, Any]:
    """Collect the teacher's games and fit ``model.policy`` to them (config section ``imitation``)."""
    im = cfg["imitation"]
    alg = cfg["algorithm"]
    t0 = time.perf_counter()
    demos = collect(game, im["games"], im["teacher"], alg["gamma"], alg["seed"] + 29)
    t1 = time.perf_counter()
    from .build import set_threads, update_threads

    set_threads(update_threads(alg))  # no game is played while fitting: every core may help
    try:
        stats = fit(model.policy, demos, im["epochs"], im["batch_size"], im["learning_rate"], alg["vf_coef"],
                    alg["seed"] + 31)
    finally:
        set_threads(alg["torch_threads"])
    stats.update(games=im["games"], teacher=im["teacher"], collect_s=round(t1 - t0, 1),
                 fit_s=round(time.perf_counter() - t1, 1))
    if stats["examples"]:
        echo(f"imitation: {stats['examples']} decisions of {im['games']} {im['teacher']} games "
             f"({stats['collect_s']} s), {im['epochs']} epochs ({stats['fit_s']} s): the policy's argmax "
             f"agrees with the teacher on {stats['teacher_agreement']:.1%}, value MSE {stats['value_mse']:.3f}")
    else:
        echo(f"imitation: the teacher's {im['games']} games had no decision with a real choice; nothing fitted")
    return stats


__all__ = ["Demonstrations", "collect", "fit", "warm_start"]
