"""PolicyAgent: a trained MaskablePPO model playing one seat of any kabenvs game.

A saved model is two files side by side: ``NAME.zip`` (Stable-Baselines3's archive) and
``NAME.json`` (kabenvs metadata: env id, game config, observation/action sizes, kabenvs
version). The metadata is checked *before* torch sees the weights, so a model made for another
game, config or action space fails with a message naming both, never with a torch shape error.

Importing this module does not import torch (``import kabenvs`` must stay light): torch,
Stable-Baselines3 and sb3-contrib are imported inside the functions that need them.
"""

from __future__ import annotations

import hashlib
import json
import os
import time
from pathlib import Path
from typing import Any

import numpy as np

from kabenvs.agents.base import Decision
from kabenvs.core.errors import KabenvsError
from kabenvs.core.game import Game

METADATA_FORMAT = "kabenvs-model/1"


class ModelLoadError(KabenvsError, ValueError):
    """A model file that is missing, broken, or made for another game/config/action space."""


# -- files ------------------------------------------------------------------------------------
def model_paths(path: str | os.PathLike) -> tuple[Path, Path]:
    """``(zip, json)`` for a model given with or without its ``.zip`` suffix."""
    p = Path(path)
    if p.suffix == ".json":
        p = p.with_suffix(".zip")
    elif p.suffix != ".zip":
        p = p.with_name(p.name + ".zip")
    return p, p.with_suffix(".json")


def model_hash(path: str | os.PathLike) -> str:
    """sha256 of the model archive (game logs name the exact weights that played)."""
    zip_path, _ = model_paths(path)
    h = hashlib.sha256()
    with open(zip_path, "rb") as f:
        for block in iter(lambda: f.read(1 << 20), b""):
            h.update(block)
    return h.hexdigest()


def game_metadata(game: Game) -> dict[str, Any]:
    """What a model must agree with to play ``game``."""
    import kabenvs

    return {
        "format": METADATA_FORMAT,
        "env_id": game.env_id,
        "game_config": game.config.to_dict(),
        "observation_size": int(game.observation_size),
        "num_actions": int(game.num_actions),
        "kabenvs_version": kabenvs.__version__,
    }


def save_model(model, path: str | os.PathLike, game: Game, extra: dict[str, Any] | None = None) -> Path:
    """Save an SB3 model to ``path`` (``.zip``) with its metadata file next to it."""
    zip_path, meta_path = model_paths(path)
    zip_path.parent.mkdir(parents=True, exist_ok=True)
    model.save(str(zip_path))
    meta = game_metadata(game)
    meta["algorithm"] = type(model).__name__
    meta["num_timesteps"] = int(getattr(model, "num_timesteps", 0))
    meta["saved_at"] = time.strftime("%Y-%m-%dT%H:%M:%SZ", time.gmtime())
    meta["sha256"] = model_hash(zip_path)
    if extra:
        meta.update(extra)
    meta_path.write_text(json.dumps(meta, indent=2, sort_keys=True) + "\n")
    return zip_path


def read_metadata(path: str | os.PathLike) -> dict[str, Any]:
    zip_path, meta_path = model_paths(path)
    if not zip_path.is_file():
        raise ModelLoadError(f"model file {str(zip_path)!r} does not exist")
    if not meta_path.is_file():
        raise ModelLoadError(
            f"model {str(zip_path)!r} has no metadata file {str(meta_path)!r} (env id, game config, "
            "sizes); save models with kabenvs.agents.policy.save_model or scripts/train.py"
        )
    try:
        meta = json.loads(meta_path.read_text())
        for key in ("env_id", "game_config", "observation_size", "num_actions"):
            meta[key]
    except (ValueError, KeyError, TypeError) as exc:
        raise ModelLoadError(f"metadata file {str(meta_path)!r} is broken ({exc!r})") from None
    return meta


def _describe(env_id: str, config: dict, obs: int, actions: int) -> str:
    opts = ", ".join(f"{k}={v!r}" for k, v in sorted(config.items()))
    return f"{env_id}({opts}) [observation size {obs}, {actions} actions]"


def check_compatible(meta: dict[str, Any], game: Game, path: str | os.PathLike = "model") -> None:
    """Raise ``ModelLoadError`` naming both sides if the model was made for something else."""
    want = game_metadata(game)
    fields = ("env_id", "game_config", "observation_size", "num_actions")
    if all(meta.get(f) == want[f] for f in fields):
        return
    diffs = [f for f in fields if meta.get(f) != want[f]]
    raise ModelLoadError(
        f"model {str(path)!r} was trained for {_describe(meta['env_id'], meta['game_config'], meta['observation_size'], meta['num_actions'])} "
        f"but is asked to play {_describe(want['env_id'], want['game_config'], want['observation_size'], want['num_actions'])} "
        f"(differs in: {', '.join(diffs)})"
    )


def load_sb3_model(path: str | os.PathLike, game: Game, device: str = "cpu"):
    """Load a MaskablePPO model after checking its metadata against ``game``."""
    zip_path, _ = model_paths(path)
    meta = read_metadata(zip_path)
    check_compatible(meta, game, zip_path)
    from sb3_contrib import MaskablePPO

    try:
        model = MaskablePPO.load(str(zip_path), device=device)
    except Exception as exc:  # a truncated/corrupt archive surfaces as many exception types
        raise ModelLoadError(f"cannot read model file {str(zip_path)!r}: {type(exc).__name__}: {exc}") from None
    obs_shape = getattr(model.observation_space, "shape", None)
    n_act = getattr(model.action_space, "n", None)
    if obs_shape != (game.observation_size,) or n_act != game.num_actions:
        raise ModelLoadError(
            f"model file {str(zip_path)!r} holds a network for observation shape {obs_shape} and {n_act} "
            f"actions, but its metadata and the game say ({game.observation_size},) and {game.num_actions}"
        )
    return model, meta


# -- batched masked inference (also the training opponents' forward pass) ----------------------
def masked_logits(policy, observations: np.ndarray, masks: np.ndarray) -> np.ndarray:
    """Action logits of an SB3 actor-critic policy for a batch, illegal actions at -inf.

    Calls only the actor half (features -> actor MLP -> action head); the value head is not
    needed to act, which saves about a third of the forward pass.
    """
    import torch as th

    with th.no_grad():
        obs = th.as_tensor(observations, dtype=th.float32)
        features = policy.extract_features(obs, policy.pi_features_extractor)
        latent = policy.mlp_extractor.forward_actor(features)
        logits = policy.action_net(latent).numpy()
    return np.where(masks.astype(bool), logits, -np.inf)


def choose_actions(
    logits: np.ndarray, deterministic: bool, rng: np.random.Generator | None
) -> np.ndarray:
    """Argmax, or a sample through the Gumbel-max trick with our own generator (reproducible)."""
    if deterministic:
        return logits.argmax(axis=1)
    u = rng.random(logits.shape)
    gumbel = -np.log(-np.log(u + 1e-20) + 1e-20)
    return (logits + gumbel).argmax(axis=1)


def policy_actions(
    policy, observations: np.ndarray, masks: np.ndarray, deterministic: bool = False,
    rng: np.random.Generator | None = None,
) -> np.ndarray:
    return choose_actions(masked_logits(policy, observations, masks), deterministic, rng)


class PolicyAgent:
    """An ``Agent`` that plays with a trained policy (one forward pass per decision).

    ``act_batch`` answers many decisions in one forward pass (training opponents, batched
    evaluation)."""

    def __init__(
        self,
        policy,
        name: str = "policy",
        seed: int | None = None,
        deterministic: bool = True,
        path: str | None = None,
        sha256: str | None = None,
        metadata: dict[str, Any] | None = None,
    ) -> None:
        self.policy = policy
        self.name = name
        self.deterministic = deterministic
        self.rng = np.random.default_rng(seed)
        self.path = path
        self.model_hash = sha256
        self.metadata = metadata or {}

    def act(self, decision: Decision) -> int:
        obs = decision.observation[None, :]
        mask = decision.action_mask[None, :]
        return int(policy_actions(self.policy, obs, mask, self.deterministic, self.rng)[0])

    def act_batch(self, observations: np.ndarray, masks: np.ndarray) -> np.ndarray:
        return policy_actions(self.policy, observations, masks, self.deterministic, self.rng)

    def seat_info(self) -> dict[str, Any]:
        """How a game log names this seat."""
        return {"kind": "model", "name": self.name, "path": self.path, "hash": self.model_hash}


def load_agent(
    path: str | os.PathLike, game: Game | str, seed: int | None = None, deterministic: bool = True
) -> PolicyAgent:
    """A ``PolicyAgent`` for ``game`` (a ``Game``, or an env id for its default config)."""
    if isinstance(game, str):
        from kabenvs.core.registry import make_game

        game = make_game(game)
    model, meta = load_sb3_model(path, game)
    zip_path, _ = model_paths(path)
    model.policy.set_training_mode(False)
    return PolicyAgent(
        model.policy,
        # a run's final_model is best named by its run folder
        name=zip_path.stem if zip_path.stem != "final_model" else zip_path.parent.name,
        seed=seed,
        deterministic=deterministic,
        path=str(zip_path),
        sha256=model_hash(zip_path),
        metadata=meta,
    )


# -- the shared trunk network ----------------------------------------------------------------------
def _make_trunk_extractor():
    import torch
    from stable_baselines3.common.torch_layers import BaseFeaturesExtractor

    class TrunkExtractor(BaseFeaturesExtractor):
        """One hidden layer shared by the actor and the critic, in front of their own heads.

        The observation vectors are long (thousands of entries) while the heads are small, so the
        first layer is nearly all of the cost of a forward/backward pass; sharing it halves the
        cost of training and acting compared with SB3's separate actor and critic MLPs."""

        def __init__(self, observation_space, features_dim: int = 64, activation: str = "tanh"):
            super().__init__(observation_space, features_dim)
            act = {"tanh": torch.nn.Tanh, "relu": torch.nn.ReLU}[activation]
            self.net = torch.nn.Sequential(
                torch.nn.Flatten(), torch.nn.Linear(int(np.prod(observation_space.shape)), features_dim), act()
            )

        def forward(self, observations):
            return self.net(observations)

    TrunkExtractor.__module__ = __name__
    TrunkExtractor.__qualname__ = "TrunkExtractor"
    return TrunkExtractor


def __getattr__(name: str):
    # Built on first use so that importing this module never imports torch; unpickling a saved
    # model looks the class up here by name and lands in this hook.
    if name == "TrunkExtractor":
        cls = _make_trunk_extractor()
        globals()[name] = cls
        return cls
    raise AttributeError(f"module {__name__!r} has no attribute {name!r}")


__all__ = [
    "ModelLoadError", "PolicyAgent", "check_compatible", "game_metadata", "load_agent",
    "model_hash", "model_paths", "policy_actions", "read_metadata", "save_model",
]
