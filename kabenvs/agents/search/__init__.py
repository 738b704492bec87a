"""The search bot: information-set Monte Carlo tree search for any kabenvs game.

    from kabenvs.agents.search import SearchAgent, search_agent_from_spec
    agent = SearchAgent(seed=1, sims=400, rollout="heuristic")
    agent = search_agent_from_spec("search:time=0.5,algo=pimc", "cabula_v0", seed=1)

It reads the game only through the contract (``resample_hidden`` of its own seat, ``clone``,
``legal_actions``, ``apply``, ``returns``), so the real state's hidden parts never reach the
search: every simulation starts from a world re-dealt from the seat's own information. How the
trees work and what they get wrong is in ``kabenvs.agents.search.tree``; the options are in
``kabenvs.agents.search.spec`` and docs/search.md.
"""

from __future__ import annotations

from typing import Any

import numpy as np

from kabenvs.agents.base import Decision
from kabenvs.agents.search.rollout import (
    has_heuristic, heuristic_rollout, others_policy, policy_move, random_rollout,
)
from kabenvs.agents.search.spec import (
    ALGOS, LEAVES, OTHERS, ROLLOUTS, canonical_name, check_options, is_search_spec, parse_search_spec,
)
from kabenvs.agents.search.tree import (
    InferredWorlds, Prior, SearchSettings, Tree, Worlds, ismcts, paired, pimc,
)
from kabenvs.core.errors import ConfigError, KabenvsError, brief
from kabenvs.core.game import Game, State

DEFAULT_SIMS = 200
DEFAULT_WORLDS = 8
DEFAULT_C = 1.4


class SearchAgent:
    """An ``Agent`` that searches before every decision with more than one legal move.

    ``sims`` (simulations per move) or ``time`` (wall-clock seconds per move) sets the budget;
    with ``sims`` the same ``seed`` gives the same moves (``time`` depends on the machine's
    speed). All randomness comes from one numpy generator seeded with ``seed``.

    ``infer`` > 0 (with ``others="heuristic"``) draws that many worlds at each move and walks
    them by how well the heuristic bot explains the other seats' past moves in each
    (``tree.InferredWorlds``).

    ``score`` > 0 adds that weight times each seat's final score margin (as a share of the
    largest score) to the returns the search backs up, for games with scores.

    ``prior(state, player) -> (probabilities over actions, value for player)`` turns the search
    into PUCT: the mover's probabilities guide selection and, with ``leaf="value"``, the values
    of every seat replace the rollout at a new leaf.
    """

    def __init__(self, seed: int | None = None, sims: int | None = None, time: float | None = None,
                 algo: str = "ismcts", rollout: str = "random", c: float = DEFAULT_C,
                 worlds: int | None = None, prior: Prior | None = None, leaf: str | None = None,
                 score: float = 0.0, norm: int = 0, others: str = "search", infer: int = 0,
                 name: str | None = None) -> None:
        options = {"algo": algo, "rollout": rollout, "others": others, "c": c, "score": score}
        if infer:
            options["infer"] = infer
        if sims is not None:
            options["sims"] = sims
        if time is not None:
            options["time"] = time
        if worlds is not None:
            options["worlds"] = worlds
        if leaf is not None:
            if prior is None:
                raise ConfigError("search leaf= needs a prior (a model): without one leaves are rolled out")
        if algo == "paired" and prior is not None:
            raise ConfigError("search algo=paired takes no prior (model): it plays every root move out with the "
                              "rollout policy; use algo=ismcts or pimc with a model")
        if norm not in (0, 1, False, True):
            raise ConfigError(f"search norm={norm!r} must be 0 or 1")
        if norm and prior is None:
            raise ConfigError("search norm= needs a prior (a model): it rescales PUCT's means")
        check_options(options)
        if sims is not None and (isinstance(sims, bool) or not isinstance(sims, int) or sims < 1):
            raise ConfigError(f"search sims={sims!r} must be an integer >= 1")
        if time is not None and not time > 0:
            raise ConfigError(f"search time={time!r} must be a number > 0 (seconds)")
        if not c >= 0:
            raise ConfigError(f"search c={c!r} must be a number >= 0")
        if isinstance(infer, bool) or not isinstance(infer, int) or infer < 0:
            raise ConfigError(f"search infer={infer!r} must be an integer >= 0")
        if worlds is not None and (isinstance(worlds, bool) or not isinstance(worlds, int) or worlds < 1):
            raise ConfigError(f"search worlds={worlds!r} must be an integer >= 1")
        if algo not in ALGOS:
            raise ConfigError(f"search algo={algo!r} is not allowed; choose one of {list(ALGOS)}")
        if rollout not in ROLLOUTS:
            raise ConfigError(f"search rollout={rollout!r} is not allowed; choose one of {list(ROLLOUTS)}")
        if others not in OTHERS:
            raise ConfigError(f"search others={others!r} is not allowed; choose one of {list(OTHERS)}")
        if leaf is not None and leaf not in LEAVES:
            raise ConfigError(f"search leaf={leaf!r} is not allowed; choose one of {list(LEAVES)}")
        self.sims = DEFAULT_SIMS if sims is None and time is None else sims
        self.time = time
        self.algo = algo
        self.rollout = rollout
        self.others = others
        self.infer = infer
        self.c = float(c)
        if not score >= 0:
            raise ConfigError(f"search score={score!r} must be a number >= 0")
        self.score = float(score)
        self.norm = bool(norm)
        self.worlds = worlds if worlds is not None else DEFAULT_WORLDS
        self.prior = prior
        self.leaf = leaf if leaf is not None else ("value" if prior is not None else "rollout")
        self.seed = seed
        self.rng = np.random.default_rng(seed)
        defaults = {("algo", "ismcts"), ("rollout", "random"), ("others", "search"), ("c", DEFAULT_C),
                    ("score", 0.0)}
        self.name = name or canonical_name({k: v for k, v in options.items() if (k, v) not in defaults})
        self.last_stats: dict[int, tuple[int, float]] = {}  # the last search's root: action -> (visits, mean)
        self.last_iterations = 0
        self.last_worlds: Worlds | None = None  # the last search's world source (how many followed the truth)
        self._rollouts: dict[str, Any] = {}

    def act(self, decision: Decision) -> int:
        state = decision.state
        legal = state.legal_actions()
        if not legal:
            raise ValueError(f"no legal action for player {decision.player}: {state.decision()}")
        if len(legal) == 1:  # nothing to decide: no search, no draw from the generator
            self.last_stats, self.last_iterations = {legal[0]: (0, 0.0)}, 0
            return legal[0]
        return self.search(state, decision.player)

    def search(self, state: State, me: int) -> int:
        """The move chosen for seat ``me``: the root move visited most (then the better mean,
        then the lower id, so that a seeded search is reproducible)."""
        # a generator of its own per move: the move is a function of the seed and the call count
        rng = np.random.default_rng(self.rng.integers(0, 2**63))
        game = state.game
        rollout = self._rollout_for(game)
        settings = SearchSettings(c=self.c, depth=1 if self.algo == "flat" else None,
                                  leaf_value=self.prior is not None and self.leaf == "value",
                                  score=self.score, norm=self.norm)

        def make_tree() -> Tree:
            others = others_policy(self.others, game.env_id, game.num_players, rng)
            return Tree(game.num_players, game.num_actions, settings, rollout, self.prior, me, others)

        if self.infer:  # worlds weighed by the heuristic bot's past moves for the other seats
            model = others_policy(self.others, game.env_id, game.num_players, rng)
            source: Worlds = InferredWorlds(state, me, model, self.infer)
        else:
            source = Worlds(state, me)
        if self.algo == "paired":
            base = policy_move(self.rollout, game.env_id, state, me, rng)
            stats, done, move = paired(state, me, rng, make_tree(), self.sims, self.time, base, source)
            self.last_stats, self.last_iterations, self.last_worlds = stats, done, source
            # no world at all: the rollout policy's own move (from the seat's information), if any
            return move if done or base is not None else self._choose_unsearched(state, me, rng)
        if self.algo == "ismcts":
            stats, done = ismcts(state, me, rng, make_tree, self.sims, self.time, source)
        else:
            stats, done = pimc(state, me, rng, make_tree, self.sims, self.time, self.worlds, source)
        self.last_stats, self.last_iterations, self.last_worlds = stats, done, source
        if done == 0:  # no world could be drawn that does not follow the real hidden choices
            return self._choose_unsearched(state, me, rng)
        return max(stats, key=lambda a: (stats[a][0], stats[a][1], -a))

    def _choose_unsearched(self, state: State, me: int, rng: np.random.Generator) -> int:
        """A move chosen from the seat's own information only, for a decision where every world
        the resampler gave followed the real hidden choices (walking one would read them): the
        prior's most likely move when there is a prior (it reads the seat's observation), else a
        uniformly random legal move."""
        legal = state.legal_actions()
        if self.prior is not None:
            probs, _ = self.prior(state, me)
            if probs is not None:
                return max(legal, key=lambda a: (probs[a], -a))
        return int(legal[int(rng.integers(len(legal)))])

    def _rollout_for(self, game: Game):
        key = game.env_id
        if key not in self._rollouts:
            limit = max(1, game.max_decisions())
            if self.rollout == "heuristic" and has_heuristic(game.env_id):
                self._rollouts[key] = heuristic_rollout(game.env_id, game.num_players, limit)
            else:  # random, or a game without a heuristic bot
                self._rollouts[key] = random_rollout(limit)
        return self._rollouts[key]


def model_prior(path: str, game: Game, trust_pickle: bool = False, temperature: float = 1.0) -> Prior:
    """A ``prior`` from a trained model (``kabenvs.agents.policy.load_agent``): the policy's
    probabilities over the legal moves from the seat's own observation, and the critic's value
    where the model has one: a safe model saved with its value head (what training and
    ``kabenvs export`` write), or a trusted SB3 archive (``trust_pickle=True``). A safe model
    without one (older files, actor-only exports) gives None for the value and
    ``prior.has_values`` is False: leaves are then rolled out. ``temperature`` > 1 flattens the
    probabilities (exp(logit / temperature)): trained policies are often near-certain (a top
    move of 0.95-1.0), and PUCT then hardly visits anything else."""
    from kabenvs.agents.policy import load_agent, policy_logits_and_values, policy_values
    from kabenvs.agents.safe_model import ActorNetwork

    agent = load_agent(path, game, seed=0, deterministic=True, trust_pickle=trust_pickle)
    policy = agent.policy
    has_values = policy.has_value if isinstance(policy, ActorNetwork) else hasattr(policy, "predict_values")

    def prior(state: State, player: int):
        obs = state.observation(player)[None, :].astype(np.float32)
        if player != state.current_player:
            return None, (float(policy_values(policy, obs)[0]) if has_values else None)
        # one pass for both (the trunk once): the same numbers as the two calls
        logits, values = policy_logits_and_values(policy, obs, state.legal_mask()[None, :])
        logits = logits[0]
        value = float(values[0]) if has_values else None
        finite = np.isfinite(logits)
        probs = np.zeros_like(logits, dtype=np.float64)
        probs[finite] = np.exp((logits[finite] - logits[finite].max()) / temperature)
        return probs / probs.sum(), value

    prior.has_values = has_values
    return prior


def search_agent_from_spec(
    spec: str, env_id: str | Game, seed: int | None = None, trust_pickle: bool = False
) -> SearchAgent:
    """The agent a seat spec names (``search:sims=400,rollout=heuristic``); ``ConfigError`` on
    a bad spec. ``env_id`` (or a ``Game``) is needed to load ``model=``, which is a safe model
    unless ``trust_pickle`` (``--trust-pickle``) lets an SB3 archive run its code."""
    options = parse_search_spec(spec)
    name = canonical_name(options)
    prior = None
    if "model" in options:
        from kabenvs.core.registry import make_game

        game = env_id if isinstance(env_id, Game) else make_game(env_id)
        path = options.pop("model")
        temperature = options.pop("temp", 1.0)
        if path == "zoo":  # the agent shipped for this game and player count (kabenvs.zoo)
            from kabenvs.zoo import zoo_model_path

            path = zoo_model_path(game)
        try:
            prior = model_prior(path, game, trust_pickle=trust_pickle, temperature=temperature)
        except KabenvsError as exc:  # a model that cannot be loaded is a bad spec value
            raise ConfigError(f"search model={brief(path)}: {exc}") from None
        if not prior.has_values:
            if options.get("leaf") == "value":
                raise ConfigError(f"search leaf=value needs a model with a value head; {path!r} is a safe model "
                                  "saved without one (the policy only): use leaf=rollout, or re-export it "
                                  "from its archive (kabenvs export) to store the critic")
            options["leaf"] = "rollout"
    return SearchAgent(seed=seed, prior=prior, name=name, **options)


__all__ = [
    "SearchAgent", "is_search_spec", "model_prior", "parse_search_spec", "search_agent_from_spec",
]
