"""Ray RLlib (new API stack): every kabenvs game as a turn-based ``MultiAgentEnv``, and an
RLModule that masks illegal actions' logits. Needs Ray RLlib (``pip install "ray[rllib]"``).

- ``KabenvsMultiAgentEnv(config)`` with ``config = {"env_id": ..., **game options}``: agents are
  ``player_0 ... player_{n-1}``; each step returns an observation only for the seat that must decide
  next (also out of turn), as ``{"observations": float32 information state, "action_mask": 0/1}``;
  rewards are 0 until the game ends, then every seat gets its return, and ``"__all__"`` ends.
  A game cut by the decision cap is truncated. An illegal action ends the episode with
  ``illegal_reward`` (default -1) for the mover and 0 for the others (``"illegal": "raise"`` in the
  config raises instead): RLlib's own env check steps unmasked random actions.
- ``MaskedPPOTorchRLModule``: RLlib's default PPO module on the ``observations`` part, with the
  logits of illegal actions pushed to the float minimum (the pattern of RLlib's own
  action-masking example), in exploration, inference and training. Its action distribution,
  ``MaskedCategorical``, normalises them with ``log_softmax`` (torch's ``logsumexp`` is slow on them).
- ``self_play_config(env_id, **options)``: a ``PPOConfig`` in which every seat is mapped to one
  learning policy (self-play), local by default.

- ``export_safe_model(module, path, env_id, **options)``: the trained policy as a safe model, which
  ``kabenvs evaluate``, ``kabenvs play`` and ``load_agent`` use like any other model.

This is the environment adapter, the module and the export: the project's YAML training engine
(``kabenvs train``) does not drive RLlib yet (docs/interop.md says what that would add).
"""

from __future__ import annotations

from typing import Any

import numpy as np

import math

from kabenvs.core.errors import ConfigError, IllegalActionError, brief
from kabenvs.core.game import as_generator
from kabenvs.core.registry import make_game
from kabenvs.extras import require

require("ray.rllib", "rllib")

import gymnasium as gym  # noqa: E402
import torch  # noqa: E402
from ray.rllib.algorithms.ppo.torch.default_ppo_torch_rl_module import DefaultPPOTorchRLModule  # noqa: E402
from ray.rllib.core.columns import Columns  # noqa: E402
from ray.rllib.core.distribution.torch.torch_distribution import TorchCategorical  # noqa: E402
from ray.rllib.env.multi_agent_env import MultiAgentEnv  # noqa: E402
from ray.rllib.utils.torch_utils import FLOAT_MIN  # noqa: E402


def _number(value: Any, key: str, allowed: str, low: float | None = None) -> float:
    """A config number: finite (and >= ``low``), else one line naming the key."""
    ok = isinstance(value, (int, float, np.integer, np.floating)) and not isinstance(value, bool)
    if ok and math.isfinite(value) and (low is None or value >= low):
        return float(value)
    raise ConfigError(f"{key}={brief(value)}: must be {allowed}")


def _count(value: Any, key: str) -> int:
    if isinstance(value, (int, np.integer)) and not isinstance(value, bool) and value >= 0:
        return int(value)
    raise ConfigError(f"{key}={brief(value)}: must be an integer >= 0")


class KabenvsMultiAgentEnv(MultiAgentEnv):
    """A kabenvs game as RLlib's turn-based multi-agent env (one acting agent per step)."""

    def __init__(self, config: dict[str, Any] | None = None) -> None:
        super().__init__()
        options = dict(config or {})
        env_id = options.pop("env_id", None)
        self.illegal = options.pop("illegal", "lose")
        self.illegal_reward = _number(options.pop("illegal_reward", -1.0), "illegal_reward", "a finite number")
        if not isinstance(self.illegal, str) or self.illegal not in ("lose", "raise"):
            raise ConfigError(f"illegal={brief(self.illegal)}; allowed: 'lose', 'raise'")
        if env_id is None:
            raise ConfigError("KabenvsMultiAgentEnv needs config={'env_id': ..., **game options}")
        self.game = make_game(env_id, **options)
        n = self.game.num_players
        self.possible_agents = [f"player_{i}" for i in range(n)]
        self.agents = list(self.possible_agents)
        space = gym.spaces.Dict({
            "observations": gym.spaces.Box(-np.inf, np.inf, (self.game.observation_size,), np.float32),
            "action_mask": gym.spaces.Box(0.0, 1.0, (self.game.num_actions,), np.float32),
        })
        self.observation_spaces = {a: space for a in self.possible_agents}
        self.action_spaces = {a: gym.spaces.Discrete(self.game.num_actions) for a in self.possible_agents}
        self._rng = np.random.default_rng()
        self.state = None
        self._decisions = 0
        self._seat_names: list[str | None] = list(self.possible_agents)  # None: a seat the env plays itself

    def _play_bots(self) -> None:
        """Seats the env plays itself (none here; see ``KabenvsSelfPlayEnv``)."""

    def _seats(self) -> list[tuple[int, str]]:
        return [(i, a) for i, a in enumerate(self._seat_names) if a is not None]

    def reset(self, *, seed: int | None = None, options: dict | None = None):
        if seed is not None:
            self._rng = np.random.default_rng(seed)
        self.state = self.game.new_state(np.random.default_rng(int(self._rng.integers(2**63))))
        self._decisions = 0
        self.agents = list(self.possible_agents)
        return self._observe(), {}

    def step(self, action_dict: dict[str, int]):
        state = self.state
        if state is None:
            raise RuntimeError("call reset() before step()")
        if not isinstance(action_dict, dict):
            raise ConfigError(f"step({brief(action_dict)}): give a dict {{agent id: action}}")
        agent = self._seat_names[state.current_player]
        if agent not in action_dict:
            raise ValueError(f"{agent} is to move; the actions given were for {sorted(action_dict)}")
        try:
            action = state.check_action(action_dict[agent])
        except IllegalActionError:
            if self.illegal == "raise":
                raise
            # the mover loses, the others get 0, the episode ends (a masked policy never gets here)
            obs = {a: self._obs_of(i) for i, a in self._seats()}
            rewards = {a: (self.illegal_reward if a == agent else 0.0) for _, a in self._seats()}
            done = {a: True for _, a in self._seats()}
            return obs, rewards, {**done, "__all__": True}, {"__all__": False}, \
                {agent: {"illegal_action": repr(action_dict[agent])}}
        state.apply(action)
        self._decisions += 1
        self._play_bots()
        seats = self._seats()
        if state.current_player is None:
            returns = state.returns()
            rewards = {a: float(returns[i]) for i, a in seats}
            obs = {a: self._obs_of(i) for i, a in seats}  # a last look for all
            done = {a: True for _, a in seats}
            return obs, rewards, {**done, "__all__": not state.truncated}, \
                {**{a: False for _, a in seats}, "__all__": bool(state.truncated)}, {}
        if self._decisions >= self.game.max_decisions():  # our cap, not the game's end
            obs = {a: self._obs_of(i) for i, a in seats}
            zero = {a: 0.0 for _, a in seats}
            return obs, zero, {"__all__": False}, {**{a: True for _, a in seats}, "__all__": True}, {}
        # the mover's reward (0) is reported at once: RLlib requires a reward between an agent's
        # action and its next observation, and a seat may decide several times in a row
        return self._observe(), {agent: 0.0}, {"__all__": False}, {"__all__": False}, {}

    def _observe(self) -> dict[str, dict[str, np.ndarray]]:
        p = self.state.current_player
        return {self._seat_names[p]: self._obs_of(p)}

    def _obs_of(self, seat: int) -> dict[str, np.ndarray]:
        state = self.state
        mask = state.legal_mask() if state.current_player == seat else np.zeros(self.game.num_actions)
        return {"observations": np.asarray(state.observation(seat), np.float32),
                "action_mask": mask.astype(np.float32)}


class _LogSoftmaxCategorical(torch.distributions.Categorical):
    """torch's ``Categorical`` with its logits normalised by ``log_softmax`` in place of
    ``logits - logsumexp(logits)``: the same numbers to float rounding. torch's CPU ``exp``, which
    ``logsumexp`` and its backward run, leaves its vectorised path for inputs below about -88, so
    on masked logits (-3.4e38 for every illegal action) one ``logsumexp`` of 512 x 189 took ~1.0 ms
    against ~0.14 unmasked; ``log_softmax`` and its backward take ~0.06 ms, masked or not."""

    def __init__(self, logits: torch.Tensor, validate_args: bool | None = None) -> None:
        # the attributes Categorical.__init__ sets from logits (as its own expand() sets them)
        self.logits = torch.log_softmax(logits, dim=-1)
        self._param = self.logits
        self._num_events = logits.size(-1)
        torch.distributions.Distribution.__init__(self, logits.shape[:-1], validate_args=validate_args)


class MaskedCategorical(TorchCategorical):
    """RLlib's ``TorchCategorical`` over ``_LogSoftmaxCategorical``: the same probabilities
    (illegal actions' are 0 exactly, so never sampled), log-probabilities, entropy and KL to float
    rounding, and the same argmax. One difference, where no action is legal (RLlib's PPO builds
    such a row only as the loss-masked step it adds after a game's last observation): both give
    the uniform probabilities, and now the log-probabilities agree with them (-log n; with
    ``logsumexp`` the log n was lost against -3.4e38, leaving 0 for every action)."""

    def _get_torch_distribution(self, logits=None, probs=None):
        if logits is None:
            return super()._get_torch_distribution(probs=probs)
        return _LogSoftmaxCategorical(logits, validate_args=False)


class MaskedPPOTorchRLModule(DefaultPPOTorchRLModule):
    """RLlib's default PPO module over the ``observations`` part; illegal logits at FLOAT_MIN,
    read by ``MaskedCategorical`` (exploration, inference and training)."""

    def __init__(self, *, observation_space=None, **kwargs) -> None:
        self.observation_space_with_mask = observation_space
        super().__init__(observation_space=observation_space["observations"], **kwargs)

    def setup(self) -> None:
        super().setup()
        self.observation_space = self.observation_space_with_mask

    def _split(self, batch):
        obs = batch[Columns.OBS]
        if isinstance(obs, dict):
            batch = dict(batch)
            batch["action_mask"] = obs["action_mask"]
            batch[Columns.OBS] = obs["observations"]
        return batch

    @staticmethod
    def _mask(out, mask):
        out[Columns.ACTION_DIST_INPUTS] = out[Columns.ACTION_DIST_INPUTS] + torch.clamp(torch.log(mask), min=FLOAT_MIN)
        return out

    def _forward_inference(self, batch, **kwargs):
        batch = self._split(batch)
        return self._mask(super()._forward_inference(batch, **kwargs), batch["action_mask"])

    def _forward_exploration(self, batch, **kwargs):
        batch = self._split(batch)
        return self._mask(super()._forward_exploration(batch, **kwargs), batch["action_mask"])

    def _forward_train(self, batch, **kwargs):
        batch = self._split(batch)
        return self._mask(super()._forward_train(batch, **kwargs), batch["action_mask"])

    def compute_values(self, batch, embeddings=None):
        return super().compute_values(self._split(batch), embeddings)

    def get_inference_action_dist_cls(self):
        return MaskedCategorical  # (exploration and training ask this one too)


def self_play_config(env_id: str, hidden: tuple[int, ...] = (64, 64), **options):
    """A PPO config: every seat plays with one learning policy ``"main"`` (self-play)."""
    from ray.rllib.algorithms.ppo import PPOConfig
    from ray.rllib.core.rl_module.multi_rl_module import MultiRLModuleSpec
    from ray.rllib.core.rl_module.rl_module import RLModuleSpec

    return (
        PPOConfig()
        .environment(KabenvsMultiAgentEnv, env_config={"env_id": env_id, **options})
        .multi_agent(policies={"main"}, policy_mapping_fn=lambda agent_id, episode, **kw: "main",
                     policies_to_train=["main"])
        .rl_module(rl_module_spec=MultiRLModuleSpec(rl_module_specs={
            "main": RLModuleSpec(module_class=MaskedPPOTorchRLModule,
                                 model_config={"fcnet_hiddens": list(hidden), "head_fcnet_hiddens": []}),
        }))
    )


class KabenvsSelfPlayEnv(KabenvsMultiAgentEnv):
    """Self-play with an opponent pool, as the ``engine: rllib`` trainer runs it.

    At every reset one seat is the learner, and each other seat draws an opponent kind by the
    weights in ``config["opponents"]`` (the same kinds and meaning as the SB3 pool, less ``search``):
    ``self`` and the learner's seat are agents ``"main:<seat>"`` (policy ``main``, trained on every
    such seat's moves), ``snapshots`` are agents ``"snap_<k>:<seat>"`` played by the frozen
    policy ``snap_<k>`` (``set_snapshots(n)`` says how many slots hold a snapshot; before the first
    one a ``snapshots`` seat plays as ``self``), and ``random``/``heuristic`` seats are played inside
    the env by kabenvs' own agents (RLlib never sees them). The policy mapping is the agent id's
    prefix (``policy_of``).
    """

    def __init__(self, config: dict[str, Any] | None = None) -> None:
        config = dict(config or {})
        weights = config.pop("opponents", {"self": 1.0})
        self.max_snapshots = _count(config.pop("max_snapshots", 0), "max_snapshots")
        self.snapshots_ready = min(_count(config.pop("snapshots_ready", 0), "snapshots_ready"), self.max_snapshots)
        seed = config.pop("seed", None)
        rng = as_generator(seed) if seed is not None else np.random.default_rng()  # a bad seed: one line
        allowed = "a dict of weights >= 0 of 'self', 'snapshots', 'random', 'heuristic', not all 0"
        if not isinstance(weights, dict) or set(weights) - {"self", "snapshots", "random", "heuristic"}:
            raise ConfigError(f"opponents={brief(weights)}: {allowed}")
        weights = {k: _number(v, f"opponents[{k!r}]", "a finite number >= 0", low=0.0) for k, v in weights.items()}
        super().__init__(config)
        n = self.game.num_players
        kinds = [k for k in ("self", "snapshots", "random", "heuristic") if weights.get(k, 0) > 0]
        if not kinds:
            raise ConfigError(f"opponents={brief(weights)}: {allowed}")
        probs = np.array([weights[k] for k in kinds])
        self._kinds, self._probs = kinds, probs / probs.sum()
        self.possible_agents = [f"{m}:{i}" for m in ["main", *self.snapshot_ids(self.max_snapshots)] for i in range(n)]
        self.agents = []
        self.observation_spaces = {a: self.observation_spaces["player_0"] for a in self.possible_agents}
        self.action_spaces = {a: self.action_spaces["player_0"] for a in self.possible_agents}
        self._rng = rng
        self._bots: dict[int, Any] = {}
        self._seat_names: list[str | None] = [f"main:{i}" for i in range(n)]
        self.lineup: list[str] = []

    @staticmethod
    def snapshot_ids(count: int) -> list[str]:
        return [f"snap_{k}" for k in range(count)]

    @staticmethod
    def policy_of(agent_id: str) -> str:
        """The policy (module id) an agent id is played by: ``"main:2"`` -> ``"main"``."""
        return str(agent_id).split(":", 1)[0]

    def set_snapshots(self, ready: int) -> None:
        self.snapshots_ready = min(int(ready), self.max_snapshots)

    def _draw_lineup(self) -> None:
        from kabenvs.agents import RandomAgent, heuristic_agent

        n = self.game.num_players
        learner = int(self._rng.integers(n))
        self._bots, names, self.lineup = {}, [], []
        for seat in range(n):
            kind = "self" if seat == learner else self._kinds[int(self._rng.choice(len(self._kinds), p=self._probs))]
            if kind == "snapshots" and self.snapshots_ready <= 0:
                kind = "self"
            bot_seed = int(self._rng.integers(2**31))
            if kind == "random":
                self._bots[seat], name = RandomAgent(bot_seed), None
            elif kind == "heuristic":
                self._bots[seat], name = heuristic_agent(self.game.env_id, seed=bot_seed), None
            elif kind == "snapshots":
                name = f"snap_{int(self._rng.integers(self.snapshots_ready))}:{seat}"
            else:
                name = f"main:{seat}"
            names.append(name)
            self.lineup.append("learner" if seat == learner else kind)
        self._seat_names = names

    def _play_bots(self) -> None:
        from kabenvs.agents.base import Decision

        state = self.state
        while state.current_player is not None and state.current_player in self._bots \
                and self._decisions < self.game.max_decisions():
            p = state.current_player
            state.apply(self._bots[p].act(Decision(p, state)))
            self._decisions += 1

    def reset(self, *, seed: int | None = None, options: dict | None = None):
        if seed is not None:
            self._rng = np.random.default_rng(seed)
        while True:
            self._draw_lineup()
            self.state = self.game.new_state(np.random.default_rng(int(self._rng.integers(2**63))))
            self._decisions = 0
            self._play_bots()
            if self.state.current_player is not None and self._decisions < self.game.max_decisions():
                break  # (a game the bots finish alone before any policy moves is dealt again)
        self.agents = [a for a in self._seat_names if a is not None]
        return self._observe(), {}


__all__ = ["KabenvsMultiAgentEnv", "KabenvsSelfPlayEnv", "MaskedCategorical", "MaskedPPOTorchRLModule",
           "self_play_config"]


# -- export to the project's safe model format ---------------------------------------------------
def _actor_layers(module) -> list:
    """The acting path of a PPO module, in order: the actor's encoder MLP, then the pi head."""
    encoder = module.encoder
    actor = getattr(encoder, "actor_encoder", None) or encoder.encoder
    leaves = []
    for part in (actor, module.pi):
        leaves += [m for m in part.modules() if not list(m.children())]
    return leaves


def actor_of_module(module) -> tuple[dict[str, Any], dict[str, Any]]:
    """``(network metadata, tensors)`` of a trained ``MaskedPPOTorchRLModule``'s acting path,
    in the layout of the safe model format (hidden layers + linear action head, one activation)."""
    from kabenvs.agents.safe_model import ModelLoadError

    layers = _actor_layers(module)
    linears = [m for m in layers if isinstance(m, torch.nn.Linear)]
    acts = {type(m).__name__ for m in layers if not isinstance(m, torch.nn.Linear)}
    names = {"Tanh": "tanh", "ReLU": "relu"}
    if len(acts) > 1 or not acts <= set(names) or not linears:
        raise ModelLoadError(f"the module's actor (activations {sorted(acts)}) is not a plain tanh or relu MLP")
    tensors = {}
    for i, linear in enumerate(linears[:-1]):
        tensors[f"hidden.{i}.weight"], tensors[f"hidden.{i}.bias"] = linear.weight, linear.bias
    tensors["action.weight"], tensors["action.bias"] = linears[-1].weight, linears[-1].bias
    network = {"trunk": None, "hidden": [int(m.out_features) for m in linears[:-1]],
               "activation": names[acts.pop()] if acts else "tanh"}
    tensors = {k: v.detach().to("cpu", torch.float32).contiguous().clone() for k, v in tensors.items()}
    return network, tensors


def export_safe_model(module, path, env_id: str, extra: dict[str, Any] | None = None, **options):
    """Write a trained module's policy as a safe model (``NAME.safetensors`` + ``NAME.json``) for
    ``env_id`` with ``options``; ``kabenvs evaluate``, ``kabenvs play`` and ``load_agent`` then use it
    like any other model. Returns the weights path."""
    from kabenvs.agents.safe_model import save_actor

    network, tensors = actor_of_module(module)
    weights, _ = save_actor(network, tensors, path, make_game(env_id, **options),
                            extra={"trained_with": "ray rllib", **(extra or {})})
    return weights


__all__ += ["actor_of_module", "export_safe_model"]
