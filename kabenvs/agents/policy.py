"""PolicyAgent: a trained policy playing one seat of any kabenvs game; saving and loading models.

Two kinds of model file exist:

* the **safe model** ``NAME.safetensors`` + ``NAME.json`` (``kabenvs.agents.safe_model``): the
  actor's weights (and the critic's, for the search bot's leaf values) and checked metadata. Loading it never unpickles anything, so a model from
  anyone can be played. This is what ``load_agent``, ``scripts/play.py`` and
  ``scripts/evaluate.py`` load by default, and what training writes for every checkpoint and
  the final model.
* a **Stable-Baselines3 archive** ``NAME.zip``: what ``--resume`` continues from. Loading one
  unpickles Python objects from the file, which runs whatever code its maker put there, so
  it is loaded only with ``trust_pickle=True`` (``--trust-pickle`` on the scripts).
  ``scripts/export_model.py`` turns a trusted archive into a safe model.

The metadata is checked before any weights are read, so a model made for another game, config,
observation layout or action space fails with a message naming both, never with a torch error.

Importing this module does not import torch (``import kabenvs`` must stay light): torch,
Stable-Baselines3 and sb3-contrib are imported inside the functions that need them.
"""

from __future__ import annotations

import io
import os
import time
import zipfile
from pathlib import Path
from typing import Any

import numpy as np

from kabenvs.agents.base import Decision
from kabenvs.agents.safe_model import (
    ActorNetwork, LEGACY_FORMAT, SAFE_FORMAT, WEIGHTS_SUFFIX, ModelLoadError, _is_hash, check_compatible,
    game_fields_problems, game_metadata, load_safe, model_stem, read_json, read_safe_metadata, safe_paths, save_safe,
    sha256_bytes, sha256_file,
)
from kabenvs.core.errors import brief
from kabenvs.core.files import atomic_write
from kabenvs.core.game import Game

TRUST_HINT = "--trust-pickle (trust_pickle=True in the API)"


# -- which kind of file ----------------------------------------------------------------------------
def model_paths(path: str | os.PathLike) -> tuple[Path, Path]:
    """``(NAME.zip, NAME.json)`` of an SB3 archive given with or without its ``.zip`` suffix."""
    p = model_stem(path)
    return p.with_name(p.name + ".zip"), p.with_name(p.name + ".json")


def model_kind(path: str | os.PathLike) -> tuple[str, Path]:
    """``("safe", NAME.safetensors)`` or ``("sb3", NAME.zip)`` for a model path.

    ``NAME.safetensors`` and ``NAME.json`` name the safe model (a ``.json`` that describes only an
    archive names the archive); ``NAME.zip`` names the archive; a bare ``NAME`` prefers the safe
    model when both exist."""
    p = Path(path)
    try:
        return _model_kind(p)
    except OSError as exc:  # a name too long for the file system, a path through a file, ...
        raise ModelLoadError(f"model {brief(str(p))} cannot be looked up: {exc.strerror or exc}") from None


def _model_kind(p: Path) -> tuple[str, Path]:
    weights, meta = safe_paths(p)
    archive, _ = model_paths(p)
    if p.suffix == ".zip":
        return "sb3", p
    if p.suffix == WEIGHTS_SUFFIX:
        return "safe", p
    if p.suffix == ".json":
        return ("sb3", archive) if archive.is_file() and not weights.is_file() else ("safe", weights)
    if weights.is_file():
        return "safe", weights
    if archive.is_file():  # (a NAME.json beside it describes the archive: older kabenvs wrote those)
        return "sb3", archive
    if meta.is_file():
        return "safe", weights  # loading then says the weights file is missing
    if p.is_file():
        return ("sb3", p) if zipfile.is_zipfile(p) else ("safe", weights)
    raise ModelLoadError(f"model {brief(str(p))} does not exist (looked for it as {WEIGHTS_SUFFIX}, .json and .zip)")


def model_exists(path: str | os.PathLike) -> bool:
    """Whether ``path`` names any model file (for the scripts' seat parsing)."""
    p = Path(path)
    try:
        return p.is_file() or any(q.is_file() for q in (*safe_paths(p), model_paths(p)[0]))
    except (OSError, ModelLoadError):  # a name too long for the file system, or no name at all
        return False


def model_hash(path: str | os.PathLike) -> str:
    """sha256 of the file that holds the weights (game logs name the exact weights that played)."""
    _, file = model_kind(path)
    return sha256_file(file)


def _archive_metadata(zip_path: Path) -> dict[str, Any] | None:
    """The checked kabenvs metadata that describes an SB3 archive, or None when it has none."""
    p = zip_path.with_suffix("")
    meta_path = p.with_name(p.name + ".json")
    if not meta_path.is_file():
        return None
    meta = read_json(meta_path)
    if not isinstance(meta, dict):
        raise ModelLoadError(f"metadata file {str(meta_path)!r} is broken: the metadata must be a JSON object")
    problems = game_fields_problems(meta)
    key = {LEGACY_FORMAT: "sha256", SAFE_FORMAT: "archive_sha256"}.get(meta.get("format"))
    if key is None:
        problems.append(f"format: {brief(meta.get('format'))} is none of {[LEGACY_FORMAT, SAFE_FORMAT]}")
    elif not _is_hash(meta.get(key)):
        problems.append(f"{key}: {brief(meta.get(key))} must be the sha256 hex digest of {zip_path.name}")
    if problems:
        raise ModelLoadError(f"metadata file {str(meta_path)!r} is broken: {'; '.join(problems)}")
    return {**meta, "archive_sha256": meta[key]}


def model_metadata(path: str | os.PathLike) -> dict[str, Any] | None:
    """The checked metadata of a model (reads JSON only, never the weights; safe for any file).
    None for an SB3 archive that has no kabenvs metadata next to it."""
    kind, file = model_kind(path)
    return read_safe_metadata(file) if kind == "safe" else _archive_metadata(file)


def read_metadata(path: str | os.PathLike) -> dict[str, Any]:
    """Like ``model_metadata`` but a model without metadata is an error."""
    meta = model_metadata(path)
    if meta is None:
        raise ModelLoadError(f"model {str(path)!r} has no kabenvs metadata file (env id, game config, sizes)")
    return meta


# -- saving ----------------------------------------------------------------------------------------
def save_model(model, path: str | os.PathLike, game: Game, extra: dict[str, Any] | None = None) -> Path:
    """Save an SB3 model as ``NAME.zip`` (SB3's archive, for resuming training) plus the safe model
    ``NAME.safetensors`` + ``NAME.json`` (for sharing and playing). Returns the ``.zip`` path.

    The metadata names the hash of both: ``sha256`` (the weights) and ``archive_sha256``."""
    zip_path, _ = model_paths(path)
    buf = io.BytesIO()
    model.save(buf)
    archive = buf.getvalue()
    atomic_write(zip_path, archive)
    meta = {"algorithm": type(model).__name__, "num_timesteps": int(getattr(model, "num_timesteps", 0)),
            "archive_sha256": sha256_bytes(archive), **(extra or {})}
    save_safe(model.policy, zip_path, game, extra=meta)
    return zip_path


# -- loading ---------------------------------------------------------------------------------------
def pickle_refusal(zip_path: Path) -> ModelLoadError:
    weights, _ = safe_paths(zip_path)
    instead = (f"load the safe model {str(weights)!r} next to it instead" if weights.is_file() else
               "load a safe model (NAME.safetensors + NAME.json; scripts/export_model.py converts an archive you trust)")
    return ModelLoadError(
        f"model {str(zip_path)!r} is a Stable-Baselines3 archive: loading it unpickles Python objects from the "
        f"file, which runs any code its maker put there, so it is refused; {instead}, or pass {TRUST_HINT} "
        "only if you trust this file like a program you run"
    )


def load_sb3_model(
    path: str | os.PathLike, game: Game, device: str = "cpu", trust_pickle: bool = False
):
    """Load a MaskablePPO archive (runs code from the file: only with ``trust_pickle=True``).

    Its kabenvs metadata, when present, is checked against ``game`` and its recorded hash against
    the archive before anything is unpickled; without metadata ``game`` stands in for it and the
    network's sizes are checked against the game. Returns ``(model, metadata)``."""
    zip_path, _ = model_paths(path)
    if not zip_path.is_file():
        raise ModelLoadError(f"model file {str(zip_path)!r} does not exist")
    if not trust_pickle:
        raise pickle_refusal(zip_path)
    meta = _archive_metadata(zip_path)
    if meta is not None:
        check_compatible(meta, game, zip_path)
        digest = sha256_file(zip_path)
        if digest != meta["archive_sha256"]:
            raise ModelLoadError(
                f"model archive {str(zip_path)!r} does not match its metadata: the file's sha256 is {digest} "
                f"but the metadata says {meta['archive_sha256']} (changed or corrupted after saving)"
            )
    from sb3_contrib import MaskablePPO

    try:
        model = MaskablePPO.load(str(zip_path), device=device)
    except Exception as exc:  # a truncated/corrupt archive surfaces as many exception types
        raise ModelLoadError(f"cannot read model file {str(zip_path)!r}: {' '.join(f'{type(exc).__name__}: {exc}'.split())}") from None
    obs_shape = getattr(model.observation_space, "shape", None)
    n_act = getattr(model.action_space, "n", None)
    if obs_shape != (game.observation_size,) or n_act != game.num_actions:
        source = "its metadata and the game say" if meta is not None else "the game says"
        raise ModelLoadError(
            f"model file {str(zip_path)!r} holds a network for observation shape {obs_shape} and {n_act} "
            f"actions, but {source} ({game.observation_size},) and {game.num_actions}"
        )
    if meta is None:
        meta = {k: v for k, v in game_metadata(game).items() if k != "fingerprint"}
        meta["metadata"] = "none in the archive; the game given stands in for it"
    return model, meta


def _as_game(game: Game | str) -> Game:
    if isinstance(game, str):
        from kabenvs.core.registry import make_game

        return make_game(game)
    return game


def _agent_name(file: Path) -> str:
    # a run's final_model is best named by its run folder
    return file.stem if file.stem != "final_model" else (file.parent.name or file.stem)


# -- batched masked inference (also the training opponents' forward pass) ----------------------
def masked_logits(policy, observations: np.ndarray, masks: np.ndarray) -> np.ndarray:
    """Action logits of an SB3 actor-critic policy for a batch, illegal actions at -inf.

    Calls only the actor half (features -> actor MLP -> action head); the value head is not
    needed to act, which saves about a third of the forward pass.
    """
    import torch as th

    with th.no_grad():
        obs = th.as_tensor(observations, dtype=th.float32, device=_device_of(policy))
        if isinstance(policy, ActorNetwork):  # a safe model: the same layers, rebuilt from its tensors
            logits = policy.action_logits(obs)
        else:
            logits = _sb3_actor_logits(policy, _sb3_features(policy, obs))
    return _masked(logits, masks)


def _sb3_features(policy, obs):
    return policy.extract_features(obs, policy.pi_features_extractor)


def _sb3_actor_logits(policy, features):
    return policy.action_net(policy.mlp_extractor.forward_actor(features))


def _masked(logits, masks: np.ndarray) -> np.ndarray:
    return np.where(masks.astype(bool), logits.cpu().numpy(), -np.inf)


def policy_logits_and_values(policy, observations: np.ndarray, masks: np.ndarray) -> tuple[np.ndarray, np.ndarray | None]:
    """``masked_logits`` and ``policy_values`` of one batch in one pass: where the actor and the
    critic share their features (the trunk), it runs once. The same modules on the same numbers,
    so the same results as the two calls, bit for bit (a search's leaf needs both)."""
    import torch as th

    with th.no_grad():
        obs = th.as_tensor(observations, dtype=th.float32, device=_device_of(policy))
        if isinstance(policy, ActorNetwork):
            logits, values = policy.logits_and_values(obs)
        else:
            features = _sb3_features(policy, obs)
            logits = _sb3_actor_logits(policy, features)
            if not hasattr(policy, "predict_values"):
                values = None
            elif policy.vf_features_extractor is not policy.pi_features_extractor:
                values = policy.predict_values(obs)
            else:  # predict_values with the features above (SB3's own steps after them)
                values = policy.value_net(policy.mlp_extractor.forward_critic(features))
    return _masked(logits, masks), (None if values is None else values.cpu().numpy().reshape(-1))


def _device_of(policy):
    """Where the policy's weights are: a learner trained with ``algorithm.device: cuda`` also
    plays its own training opponents (``self``, snapshots), so its inputs go to the GPU and its
    outputs come back to the CPU."""
    for param in policy.parameters():
        return param.device
    return None


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
        self.seed = seed
        self.rng = np.random.default_rng(seed)
        self.path = path
        self.model_hash = sha256
        self.metadata = metadata or {}

    def reseed(self, game_seed: int) -> None:
        """A fresh generator for one game (``play_match`` calls it before each game), so a
        sampling model's moves depend on the game, not on the games it played before."""
        self.rng = np.random.default_rng([self.seed or 0, game_seed])

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
    path: str | os.PathLike, game: Game | str, seed: int | None = None, deterministic: bool = True,
    trust_pickle: bool = False,
) -> PolicyAgent:
    """A ``PolicyAgent`` for ``game`` (a ``Game``, or an env id for its default config).

    ``path`` names a safe model (``NAME``, ``NAME.safetensors`` or ``NAME.json``), loaded without
    unpickling anything. An SB3 archive (``NAME.zip``) is refused unless ``trust_pickle=True``:
    loading one runs code from the file."""
    game = _as_game(game)
    kind, file = model_kind(path)
    if kind == "safe":
        network, meta, file = load_safe(file, game)
        policy, digest = network, meta["sha256"]
    else:
        model, meta = load_sb3_model(file, game, trust_pickle=trust_pickle)
        model.policy.set_training_mode(False)
        policy, digest = model.policy, sha256_file(file)
    return PolicyAgent(policy, name=_agent_name(file), seed=seed, deterministic=deterministic,
                       path=str(file), sha256=digest, metadata=meta)


# -- export: SB3 archive -> safe model ----------------------------------------------------------------
def sample_decisions(game: Game, count: int = 64, seed: int = 0) -> tuple[np.ndarray, np.ndarray]:
    """Observations and masks of ``count`` real decisions from random games of ``game``."""
    rng = np.random.default_rng(seed)
    obs, masks = [], []
    state = game.new_state(rng)
    while len(obs) < count:
        if state.is_terminal():
            state = game.new_state(rng)
            continue
        d = Decision(state.current_player, state)
        obs.append(d.observation)
        masks.append(d.action_mask)
        legal = state.legal_actions()
        state.apply(int(legal[rng.integers(len(legal))]))
    return np.stack(obs).astype(np.float32), np.stack(masks)


def export_model(
    source: str | os.PathLike, target: str | os.PathLike, game: Game | str | None = None,
    trust_pickle: bool = False,
) -> tuple[Path, dict[str, Any]]:
    """Convert an SB3 archive into the safe model ``target`` (``NAME.safetensors`` + ``NAME.json``).

    Loading the archive runs code from it, hence ``trust_pickle``. ``game`` defaults to the one
    the archive's metadata names. The safe model is loaded back and must choose the same actions
    with the same logits on real decisions of the game, or nothing is claimed."""
    zip_path, _ = model_paths(source)
    if not zip_path.is_file():
        raise ModelLoadError(f"model file {str(zip_path)!r} does not exist")
    if not trust_pickle:
        raise pickle_refusal(zip_path)
    if game is None:
        meta = _archive_metadata(zip_path)
        if meta is None:
            raise ModelLoadError(f"model {str(zip_path)!r} has no kabenvs metadata: say which game it plays")
        from kabenvs.core.registry import make_game

        game = make_game(meta["env_id"], **meta["game_config"])
    game = _as_game(game)
    model, meta = load_sb3_model(zip_path, game, trust_pickle=True)
    extra = {"algorithm": type(model).__name__, "num_timesteps": int(getattr(model, "num_timesteps", 0)),
             "archive_sha256": sha256_file(zip_path), "exported_from": zip_path.name,
             "exported_at": time.strftime("%Y-%m-%dT%H:%M:%SZ", time.gmtime())}
    weights, written = save_safe(model.policy, target, game, extra=extra)
    network, _, _ = load_safe(weights, game)
    obs, masks = sample_decisions(game)
    model.policy.set_training_mode(False)
    before, after = masked_logits(model.policy, obs, masks), masked_logits(network, obs, masks)
    if not np.array_equal(before, after):
        raise ModelLoadError(f"the exported model {str(weights)!r} does not reproduce the archive's logits")
    if network.has_value and not np.array_equal(policy_values(model.policy, obs), policy_values(network, obs)):
        raise ModelLoadError(f"the exported model {str(weights)!r} does not reproduce the archive's values")
    return weights, written


def policy_values(policy, observations: np.ndarray) -> np.ndarray | None:
    """The critic's values for a batch of observations, shape ``(batch,)``: SB3's
    ``predict_values``, or a safe model's stored value head; None when the policy has no critic
    (a safe model saved without one)."""
    import torch as th

    obs = th.as_tensor(observations, dtype=th.float32, device=_device_of(policy))
    with th.no_grad():
        if isinstance(policy, ActorNetwork):
            return policy.values(obs).cpu().numpy().reshape(-1) if policy.has_value else None
        if not hasattr(policy, "predict_values"):
            return None
        return policy.predict_values(obs).cpu().numpy().reshape(-1)


# -- the shared trunk network ----------------------------------------------------------------------
# The update multiplies only the used columns of a minibatch while they are fewer than this share
# of the observation (gathering them costs less than the products it saves).
_GATHER_BELOW = 0.7

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
            if torch.is_grad_enabled() and not observations.requires_grad and observations.dim() == 2:
                # The PPO update (the only pass with gradients): most entries of these long
                # observations are zero in every row of a minibatch (padding rows of bounded
                # blocks, phases not reached), so the first layer multiplies only the columns
                # some row uses. The same function and weight gradient (a zero column adds
                # nothing to either) in a fraction of the multiply-adds; acting (no gradients)
                # stays the plain product, so a saved model acts exactly as before. Not when the
                # caller wants gradients by the observation itself (saliency): a zero entry
                # still has one.
                used = _used_columns(observations)
                if used.numel() < _GATHER_BELOW * observations.shape[1]:
                    linear = self.net[1]
                    return self.net[2](torch.nn.functional.linear(
                        observations.index_select(1, used), linear.weight.index_select(1, used), linear.bias))
            return self.net(observations)

    def _used_columns(observations):
        """The columns some row uses (a nonzero entry, NaN included), ascending."""
        if observations.device.type == "cpu" and observations.dtype in (torch.float32, torch.float64):
            # numpy's any over the rows: a quarter to a third of torch's abs().sum() over them
            return torch.from_numpy(np.flatnonzero(observations.numpy().any(axis=0)))
        return observations.abs().sum(dim=0).nonzero().squeeze(1)

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
    "ModelLoadError", "PolicyAgent", "check_compatible", "export_model", "game_metadata", "load_agent",
    "load_sb3_model", "model_exists", "model_hash", "model_kind", "model_metadata", "model_paths",
    "policy_actions", "policy_logits_and_values", "policy_values", "read_metadata", "save_model",
]
