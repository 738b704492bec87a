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
    obs: np.ndarray  # (N, observation_size) float32
    masks: np.ndarray  # (N, num_actions) bool
    actions: np.ndarray  # (N,) int64
    returns: np.ndarray  # (N,) float32: the seat's discounted final return
    games: int

    def __len__(self) -> int:
        return len(self.actions)


def collect(game: Game, games: int, teacher: str, gamma: float, seed: int) -> Demonstrations:
    """Play ``games`` games with the teacher in every seat; one example per real choice."""
    make_teacher = baseline(teacher, game.env_id, game=game).agent  # seed -> a fresh agent
    rng = np.random.default_rng(seed)
    # Observations are stacked one game at a time and copied into the final array chunk by
    # chunk: a list of every example's array plus one np.asarray of it held two copies of the
    # largest part at once (Kabaal at 4 players: 3000 games, some 16 GB each, killed for memory).
    chunks: list[np.ndarray] = []
    game_obs: list[np.ndarray] = []
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
                game_obs.append(d.observation)
                masks.append(d.action_mask.astype(bool))
                actions.append(a)
                returns.append(0.0)
            state.apply(a)
            steps += 1
        if game_obs:
            chunks.append(np.stack(game_obs).astype(np.float32, copy=False))
            game_obs = []
        if state.current_player is not None:
            continue  # capped: no return to learn from; the examples keep target 0
        final = state.returns()
        later = [0] * game.num_players  # the seat's decisions after this one
        for p, i in reversed(rows):
            returns[i] = float(final[p]) * gamma ** later[p]
            later[p] += 1
    size = game.observation_size
    obs = np.empty((len(actions), size), dtype=np.float32)
    at = 0
    chunks.reverse()
    while chunks:  # each chunk is freed once copied
        chunk = chunks.pop()
        obs[at: at + len(chunk)] = chunk
        at += len(chunk)
    return Demonstrations(
        obs=obs,
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
    obs = torch.as_tensor(demos.obs, device=device)
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
            idx = order[lo: lo + batch_size].to(device)
            values, log_prob, _ = policy.evaluate_actions(obs[idx], actions[idx], action_masks=masks[idx])
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
            dist = policy.get_distribution(obs[sl], action_masks=masks[sl].cpu().numpy())
            probs = dist.distribution.probs
            agree += float((probs.argmax(dim=1) == actions[sl]).sum())
            nll += float(-dist.log_prob(actions[sl]).sum())
            err += float(((policy.predict_values(obs[sl]).flatten() - targets[sl]) ** 2).sum())
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
