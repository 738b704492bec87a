"""The safe model format: a policy's weights as safetensors plus a JSON metadata file.

A safe model is two files side by side::

    NAME.safetensors   the actor's tensors (trunk, hidden layers, action head), float32 (or
                       float16, as ``weights_dtype`` says: half the size, for shipping), and,
                       when the source had one, the critic's (value hidden layers, value head)
    NAME.json          metadata: format, env id, game config, sizes, fingerprints of the
                       observation layout and action catalog, network architecture (and the
                       value network's, or null), the kabenvs version, and the sha256 of
                       NAME.safetensors (which therefore covers the value tensors too)

Loading reads the JSON, checks it field by field, checks the weights' sha256, checks every
tensor's name, shape and dtype against the architecture the JSON declares, and only then
builds a plain torch network from those tensors. Nothing is unpickled: neither file can run
code. (Stable-Baselines3's ``.zip`` archives unpickle Python objects on load, which can run
anything the file's maker put there; ``kabenvs.agents.policy`` loads those only on request.)

The actor is what plays: the network computes exactly what SB3's policy computes to choose an
action (features -> actor MLP -> action logits), with the same float32 weights, so the loaded
agent acts identically. The critic (SB3's ``value_net`` and the value side of its
``mlp_extractor``, behind the same features) is stored too when the source has one, as
``value_network`` in the metadata: the search bot values its leaves with it
(``search:model=NAME,leaf=value``). A file without it (older kabenvs, an RLlib export) still
loads; its network then has no value (``has_value`` is False).

Importing this module does not import torch.
"""

from __future__ import annotations

import hashlib
import json
import os
import time
from pathlib import Path
from typing import Any

from kabenvs.core.errors import KabenvsError, brief
from kabenvs.core.files import atomic_write
from kabenvs.core.game import Game

SAFE_FORMAT = "kabenvs-model/2"
LEGACY_FORMAT = "kabenvs-model/1"  # a .zip + .json pair from before the safe format
WEIGHTS_SUFFIX = ".safetensors"
ACTIVATIONS = ("tanh", "relu")
# How the weights are stored. float16 halves a file (the shipped agents must fit 2 MB); the network
# always computes in float32, so a float16 file plays what its rounded weights say, which is close
# to, not always the same as, the float32 network it came from (``kabenvs zoo add`` measures it).
WEIGHTS_DTYPES = ("float32", "float16")
MAX_WIDTH = 1 << 16  # wider layers are no policy this project trains; refuse before allocating
MAX_LAYERS = 32


class ModelLoadError(KabenvsError, ValueError):
    """A model file that is missing, broken, tampered with, unsafe to load, or made for another
    game, config, observation layout or action space. The message is one line."""


# -- what a model must agree with ----------------------------------------------------------------
def sha256_bytes(data: bytes) -> str:
    return hashlib.sha256(data).hexdigest()


def sha256_file(path: str | os.PathLike) -> str:
    h = hashlib.sha256()
    with open(path, "rb") as f:
        for block in iter(lambda: f.read(1 << 20), b""):
            h.update(block)
    return h.hexdigest()


def fingerprints(game: Game) -> dict[str, str]:
    """Hashes of what the observation entries and action ids *mean* for ``game``.

    Two versions of a game can keep the observation size while moving or redefining blocks; a
    network trained on the old layout would then read garbage. The layout's table (block names,
    index ranges, shapes, meanings) and the catalog's table plus every action's name change
    whenever the meaning does."""
    layout = game.layout.table()
    catalog = game.catalog.table() + "\n" + "\n".join(game.catalog.name(a) for a in range(game.num_actions))
    return {
        "observation_layout": sha256_bytes(layout.encode("utf-8")),
        "action_catalog": sha256_bytes(catalog.encode("utf-8")),
    }


def game_metadata(game: Game) -> dict[str, Any]:
    """The fields of a model's metadata that describe the game it plays."""
    import kabenvs

    return {
        "env_id": game.env_id,
        "game_config": game.config.to_dict(),
        "observation_size": int(game.observation_size),
        "num_actions": int(game.num_actions),
        "fingerprint": fingerprints(game),
        "kabenvs_version": kabenvs.__version__,
    }


# -- checking metadata (untrusted input) ----------------------------------------------------------
def _is_int(value: Any, low: int, high: int) -> bool:
    return isinstance(value, int) and not isinstance(value, bool) and low <= value <= high


def _is_hash(value: Any) -> bool:
    return isinstance(value, str) and len(value) == 64 and all(c in "0123456789abcdef" for c in value)


def game_fields_problems(meta: dict[str, Any]) -> list[str]:
    """Type problems of the game fields every kabenvs metadata file has (either format)."""
    problems = []
    if not isinstance(meta.get("env_id"), str):
        problems.append(f"env_id: {brief(meta.get('env_id'))} must be a string")
    if not isinstance(meta.get("game_config"), dict):
        problems.append(f"game_config: {brief(meta.get('game_config'))} must be a mapping of game options")
    elif not all(isinstance(k, str) for k in meta["game_config"]):
        problems.append("game_config: every option name must be a string")
    for key in ("observation_size", "num_actions"):
        if not _is_int(meta.get(key), 1, 1 << 24):
            problems.append(f"{key}: {brief(meta.get(key))} must be a positive integer")
    return problems


def _network_problems(net: Any) -> list[str]:
    if not isinstance(net, dict):
        return [f"network: {brief(net)} must be a mapping"]
    problems = []
    if "trunk" not in net:  # every writer names it; the readers index it
        problems.append("network.trunk: missing (null when the network has no shared trunk)")
    trunk = net.get("trunk")
    if trunk is not None:
        if not isinstance(trunk, dict) or set(trunk) != {"size", "activation"}:
            problems.append(f"network.trunk: {brief(trunk)} must be null or {{size, activation}}")
        else:
            if not _is_int(trunk["size"], 1, MAX_WIDTH):
                problems.append(f"network.trunk.size: {brief(trunk['size'])} must be an integer in 1..{MAX_WIDTH}")
            if trunk["activation"] not in ACTIVATIONS:
                problems.append(f"network.trunk.activation: {brief(trunk['activation'])} must be one of {ACTIVATIONS}")
    hidden = net.get("hidden")
    if not isinstance(hidden, list) or len(hidden) > MAX_LAYERS or not all(_is_int(h, 1, MAX_WIDTH) for h in hidden):
        problems.append(f"network.hidden: {brief(hidden)} must be a list of at most {MAX_LAYERS} layer widths in 1..{MAX_WIDTH}")
    if net.get("activation") not in ACTIVATIONS:
        problems.append(f"network.activation: {brief(net.get('activation'))} must be one of {ACTIVATIONS}")
    return problems


def _value_network_problems(value: Any) -> list[str]:
    if value is None:
        return []  # no critic stored (older files, actor-only exports)
    if not isinstance(value, dict) or set(value) != {"hidden", "activation"}:
        return [f"value_network: {brief(value)} must be null or {{hidden, activation}}"]
    problems = []
    hidden = value["hidden"]
    if not isinstance(hidden, list) or len(hidden) > MAX_LAYERS or not all(_is_int(h, 1, MAX_WIDTH) for h in hidden):
        problems.append(f"value_network.hidden: {brief(hidden)} must be a list of at most {MAX_LAYERS} layer widths "
                        f"in 1..{MAX_WIDTH}")
    if value["activation"] not in ACTIVATIONS:
        problems.append(f"value_network.activation: {brief(value['activation'])} must be one of {ACTIVATIONS}")
    return problems


def safe_metadata_problems(meta: Any) -> list[str]:
    if not isinstance(meta, dict):
        return [f"the metadata must be a JSON object, not {type(meta).__name__}"]
    if meta.get("format") != SAFE_FORMAT:
        return [f"format: {brief(meta.get('format'))} is not {brief(SAFE_FORMAT)}"]
    problems = game_fields_problems(meta)
    fp = meta.get("fingerprint")
    if not isinstance(fp, dict) or not all(_is_hash(fp.get(k)) for k in ("observation_layout", "action_catalog")):
        problems.append("fingerprint: must hold the sha256 hex digests observation_layout and action_catalog")
    problems += _network_problems(meta.get("network"))
    problems += _value_network_problems(meta.get("value_network"))
    if meta.get("weights_dtype", "float32") not in WEIGHTS_DTYPES:
        problems.append(f"weights_dtype: {brief(meta.get('weights_dtype'))} must be one of {WEIGHTS_DTYPES}")
    if not _is_hash(meta.get("sha256")):
        problems.append(f"sha256: {brief(meta.get('sha256'))} must be a sha256 hex digest of the weights file")
    if not isinstance(meta.get("kabenvs_version"), str):
        problems.append(f"kabenvs_version: {brief(meta.get('kabenvs_version'))} must be a string")
    return problems


def read_json(path: Path) -> Any:
    try:
        return json.loads(path.read_text(encoding="utf-8"))
    except FileNotFoundError:
        raise ModelLoadError(f"metadata file {str(path)!r} does not exist") from None
    except (OSError, UnicodeDecodeError, ValueError) as exc:
        raise ModelLoadError(f"metadata file {str(path)!r} is broken: {_one_line(exc)}") from None
    except RecursionError:  # json recurses per nesting level; Python's own message means nothing to a user
        raise ModelLoadError(f"metadata file {str(path)!r} is broken: its JSON is nested too deeply "
                             "to be model metadata") from None


def _one_line(exc: BaseException) -> str:
    return " ".join(f"{type(exc).__name__}: {exc}".split())


def _describe(meta: dict[str, Any]) -> str:
    def cut(text: str, limit: int) -> str:  # metadata is untrusted: a megabyte name is not echoed
        return text if len(text) <= limit else text[:limit - 3] + "..."

    opts = cut(", ".join(f"{cut(k, 40)}={brief(v, 40)}" for k, v in sorted(meta["game_config"].items())), 600)
    return f"{cut(meta['env_id'], 60)}({opts}) [observation size {meta['observation_size']}, {meta['num_actions']} actions]"


def check_compatible(meta: dict[str, Any], game: Game, path: str | os.PathLike = "model") -> None:
    """Raise ``ModelLoadError`` naming both sides if the model was made for another game, config,
    size, or (when the metadata carries fingerprints) another observation layout / action catalog."""
    want = game_metadata(game)
    if isinstance(meta.get("game_config"), dict) and meta.get("env_id") == game.env_id:
        # a model saved before an option was added played it at its default (GameConfig.completed)
        meta = {**meta, "game_config": game.Config.completed(meta["game_config"])}
    fields = ("env_id", "game_config", "observation_size", "num_actions")
    diffs = [f for f in fields if meta.get(f) != want[f]]
    if diffs:
        raise ModelLoadError(
            f"model {str(path)!r} was trained for {_describe(meta)} but is asked to play {_describe(want)} "
            f"(differs in: {', '.join(diffs)})"
        )
    fp = meta.get("fingerprint")
    if fp is None:
        return  # a legacy or foreign model: only its sizes can be checked
    changed = [k.replace("_", " ") for k in ("observation_layout", "action_catalog") if fp.get(k) != want["fingerprint"][k]]
    if changed:
        raise ModelLoadError(
            f"model {str(path)!r} was trained on another {' and '.join(changed)} of {_describe(want)} than this "
            f"kabenvs {want['kabenvs_version']} uses (model saved by kabenvs {meta.get('kabenvs_version')!r}); "
            "the sizes agree but the entries mean other things, so it would play blind: retrain it"
        )


# -- the network ---------------------------------------------------------------------------------
def expected_shapes(meta: dict[str, Any]) -> dict[str, tuple[int, ...]]:
    """Tensor name -> shape the architecture in ``meta`` needs."""
    shapes: dict[str, tuple[int, ...]] = {}
    width = meta["observation_size"]
    trunk = meta["network"]["trunk"]
    if trunk is not None:
        shapes["trunk.weight"], shapes["trunk.bias"] = (trunk["size"], width), (trunk["size"],)
        width = trunk["size"]
    for i, h in enumerate(meta["network"]["hidden"]):
        shapes[f"hidden.{i}.weight"], shapes[f"hidden.{i}.bias"] = (h, width), (h,)
        width = h
    shapes["action.weight"], shapes["action.bias"] = (meta["num_actions"], width), (meta["num_actions"],)
    value = meta.get("value_network")
    if value is not None:  # the critic reads the same features (the shared trunk, or the observation)
        width = trunk["size"] if trunk is not None else meta["observation_size"]
        for i, h in enumerate(value["hidden"]):
            shapes[f"value_hidden.{i}.weight"], shapes[f"value_hidden.{i}.bias"] = (h, width), (h,)
            width = h
        shapes["value.weight"], shapes["value.bias"] = (1, width), (1,)
    return shapes


def _activation_name(module) -> str:
    import torch

    for name, cls in (("tanh", torch.nn.Tanh), ("relu", torch.nn.ReLU)):
        if type(module) is cls:
            return name
    raise ModelLoadError(f"activation {type(module).__name__} is not one the safe format stores ({ACTIVATIONS})")


def actor_of_sb3_policy(policy) -> tuple[dict[str, Any], dict[str, Any]]:
    """``(network metadata, tensors)`` of the acting half of an SB3 actor-critic policy.

    Supports what this project trains: no features extractor (flatten) or the shared
    ``TrunkExtractor``, an MLP of Linear+activation pairs, and a linear action head."""
    import torch
    from stable_baselines3.common.torch_layers import FlattenExtractor

    tensors: dict[str, Any] = {}
    extractor = policy.pi_features_extractor
    if isinstance(extractor, FlattenExtractor):
        trunk = None
    elif type(extractor).__name__ == "TrunkExtractor":
        linear, act = extractor.net[1], extractor.net[2]
        trunk = {"size": int(linear.out_features), "activation": _activation_name(act)}
        tensors["trunk.weight"], tensors["trunk.bias"] = linear.weight, linear.bias
    else:
        raise ModelLoadError(f"features extractor {type(extractor).__name__} is not one the safe format stores")
    layers = list(policy.mlp_extractor.policy_net)
    hidden, acts = _plain_stack(layers, "actor")
    if len(acts) > 1:
        raise ModelLoadError(f"the actor network mixes activations {sorted(acts)}")
    for i, linear in enumerate(layers[::2]):
        tensors[f"hidden.{i}.weight"], tensors[f"hidden.{i}.bias"] = linear.weight, linear.bias
    if not isinstance(policy.action_net, torch.nn.Linear):
        raise ModelLoadError("the policy's action head is not a Linear layer")
    tensors["action.weight"], tensors["action.bias"] = policy.action_net.weight, policy.action_net.bias
    activation = acts.pop() if acts else (trunk["activation"] if trunk else "tanh")
    network = {"trunk": trunk, "hidden": hidden, "activation": activation}
    # own, contiguous float32 copies: safetensors refuses tensors that share storage
    tensors = {k: v.detach().to("cpu", torch.float32).contiguous().clone() for k, v in tensors.items()}
    return network, tensors


def _plain_stack(layers, what: str) -> tuple[list[int], set[str]]:
    """Widths and activation names of a Linear + activation stack (refused otherwise)."""
    import torch

    layers = list(layers)
    if len(layers) % 2 or not all(isinstance(m, torch.nn.Linear) for m in layers[::2]):
        raise ModelLoadError(f"the policy's {what} network is not a plain stack of Linear + activation layers")
    return [int(m.out_features) for m in layers[::2]], {_activation_name(m) for m in layers[1::2]}


def critic_of_sb3_policy(policy, network: dict[str, Any]) -> tuple[dict[str, Any] | None, dict[str, Any]]:
    """``(value network metadata, tensors)`` of an SB3 actor-critic policy's critic, or
    ``(None, {})`` when it has none the format can store: no ``value_net``, or a critic behind
    features of its own (``share_features_extractor=False`` with a trunk; this project's
    training shares them)."""
    import torch
    from stable_baselines3.common.torch_layers import FlattenExtractor

    value_net = getattr(policy, "value_net", None)
    mlp = getattr(policy, "mlp_extractor", None)
    if not isinstance(value_net, torch.nn.Linear) or value_net.out_features != 1 or mlp is None:
        return None, {}
    vf = getattr(policy, "vf_features_extractor", None)
    shared = vf is policy.pi_features_extractor
    if not shared and not (isinstance(vf, FlattenExtractor) and network["trunk"] is None):
        return None, {}
    layers = list(mlp.value_net)
    hidden, acts = _plain_stack(layers, "value")
    if len(acts) > 1:
        raise ModelLoadError(f"the value network mixes activations {sorted(acts)}")
    tensors: dict[str, Any] = {}
    for i, linear in enumerate(layers[::2]):
        tensors[f"value_hidden.{i}.weight"], tensors[f"value_hidden.{i}.bias"] = linear.weight, linear.bias
    tensors["value.weight"], tensors["value.bias"] = value_net.weight, value_net.bias
    value = {"hidden": hidden, "activation": acts.pop() if acts else network["activation"]}
    return value, {k: v.detach().to("cpu", torch.float32).contiguous().clone() for k, v in tensors.items()}


class ActorNetwork:
    """A loaded safe model's network: observation batch -> action logits (torch, no grad), and,
    when the file holds a critic, -> values (``has_value``)."""

    def __init__(self, layers, value_layers=None, shared: int = 0) -> None:
        self.layers = layers  # torch.nn.Sequential
        self.value_layers = value_layers  # torch.nn.Sequential or None
        self.shared = shared  # how many leading modules (the trunk) the two stacks share

    @property
    def has_value(self) -> bool:
        return self.value_layers is not None

    def parameters(self):
        """The weights (torch's Module API), e.g. to find which device they are on."""
        return self.layers.parameters()

    def action_logits(self, obs):
        return self.layers(obs)

    def values(self, obs):
        """The critic's values, shape ``(batch, 1)`` like SB3's ``predict_values``."""
        if self.value_layers is None:
            raise ModelLoadError("this safe model holds no value head (saved without the critic)")
        return self.value_layers(obs)

    def logits_and_values(self, obs):
        """``action_logits`` and ``values`` (None without a critic) with the shared trunk run
        once: the same modules on the same numbers, so the same results as the two calls."""
        k = self.shared
        h = self.layers[:k](obs) if k else obs
        logits = self.layers[k:](h)
        return logits, (None if self.value_layers is None else self.value_layers[k:](h))


def build_actor(meta: dict[str, Any], tensors: dict[str, Any]) -> ActorNetwork:
    import torch

    act = {"tanh": torch.nn.Tanh, "relu": torch.nn.ReLU}

    def linear(prefix: str):
        w, b = tensors[f"{prefix}.weight"], tensors[f"{prefix}.bias"]
        layer = torch.nn.Linear(w.shape[1], w.shape[0], device="meta")
        layer.weight = torch.nn.Parameter(w, requires_grad=False)
        layer.bias = torch.nn.Parameter(b, requires_grad=False)
        return layer

    def head(features, prefix: str, widths, activation: str, out: str):
        modules = list(features)
        for i in range(len(widths)):
            modules += [linear(f"{prefix}.{i}"), act[activation]()]
        modules.append(linear(out))
        stack = torch.nn.Sequential(*modules)
        stack.eval()
        return stack

    net = meta["network"]
    features = [] if net["trunk"] is None else [linear("trunk"), act[net["trunk"]["activation"]]()]
    layers = head(features, "hidden", net["hidden"], net["activation"], "action")
    value = meta.get("value_network")
    # the critic reads the same trunk modules as the actor: one set of shared weights
    value_layers = None if value is None else head(features, "value_hidden", value["hidden"], value["activation"], "value")
    return ActorNetwork(layers, value_layers, shared=len(features))


# -- files -----------------------------------------------------------------------------------------
def model_stem(path: str | os.PathLike) -> Path:
    """A model's NAME: the path less a ``.safetensors``, ``.json`` or ``.zip`` suffix. A path with
    no file name (``.``, ``/``, empty) names no model: refused in one line."""
    p = Path(path)
    if p.suffix in (WEIGHTS_SUFFIX, ".json", ".zip"):
        p = p.with_suffix("")
    if not p.name:
        raise ModelLoadError(f"model {brief(str(path))} names a folder, not a model: give NAME, NAME.safetensors "
                             "or NAME.zip")
    return p


def safe_paths(path: str | os.PathLike) -> tuple[Path, Path]:
    """``(NAME.safetensors, NAME.json)`` for NAME given bare or with either suffix."""
    p = model_stem(path)
    return p.with_name(p.name + WEIGHTS_SUFFIX), p.with_name(p.name + ".json")


def save_safe(
    policy, path: str | os.PathLike, game: Game, extra: dict[str, Any] | None = None
) -> tuple[Path, dict[str, Any]]:
    """Write an SB3 policy's actor, and its critic where it has one, as ``NAME.safetensors`` +
    ``NAME.json``; returns the weights path and the metadata written. Each file is replaced
    atomically (weights first, then the metadata that names their hash)."""
    network, tensors = actor_of_sb3_policy(policy)
    value, value_tensors = critic_of_sb3_policy(policy, network)
    return save_actor(network, {**tensors, **value_tensors}, path, game, extra, value_network=value)


def save_actor(
    network: dict[str, Any], tensors: dict[str, Any], path: str | os.PathLike, game: Game,
    extra: dict[str, Any] | None = None, value_network: dict[str, Any] | None = None,
    weights_dtype: str = "float32",
) -> tuple[Path, dict[str, Any]]:
    """Write an actor given as ``(network metadata, tensors)`` (float32, contiguous, named as
    ``expected_shapes`` says) as a safe model; what ``save_safe`` does after reading an SB3 policy,
    and what other trainers (RLlib) export through. ``value_network`` (``{hidden, activation}``)
    declares critic tensors among ``tensors``; None stores none. ``weights_dtype="float16"``
    stores the weights rounded to half precision (half the file)."""
    import torch
    from safetensors.torch import save

    if weights_dtype not in WEIGHTS_DTYPES:
        raise ValueError(f"weights_dtype={weights_dtype!r}: must be one of {WEIGHTS_DTYPES}")
    if weights_dtype == "float16":
        tensors = {k: v.to(torch.float16).contiguous() for k, v in tensors.items()}
        big = sorted(k for k, v in tensors.items() if not bool(torch.isfinite(v).all()))
        if big:  # beyond float16's range (65504): the file would be refused on load
            raise ValueError(f"weights {big} do not fit float16; save them as float32")
    weights_path, meta_path = safe_paths(path)
    data = save(tensors)
    meta = {"format": SAFE_FORMAT, **game_metadata(game), "network": network, "value_network": value_network,
            "weights_dtype": weights_dtype,
            "sha256": sha256_bytes(data), "saved_at": time.strftime("%Y-%m-%dT%H:%M:%SZ", time.gmtime())}
    shapes = expected_shapes(meta)
    assert {k: tuple(v.shape) for k, v in tensors.items()} == shapes, "the actor does not fit the game's sizes"
    for key, value in (extra or {}).items():
        meta.setdefault(key, value)  # extras never overwrite what the loader checks
    atomic_write(weights_path, data)
    atomic_write(meta_path, json.dumps(meta, indent=2, sort_keys=True) + "\n")
    return weights_path, meta


def read_safe_metadata(path: str | os.PathLike) -> dict[str, Any]:
    """The checked metadata of a safe model (no weights read)."""
    weights_path, meta_path = safe_paths(path)
    if not meta_path.is_file():
        raise ModelLoadError(f"model {str(weights_path)!r} has no metadata file {str(meta_path)!r}")
    meta = read_json(meta_path)
    problems = safe_metadata_problems(meta)
    if problems:
        raise ModelLoadError(f"metadata file {str(meta_path)!r} is broken: {'; '.join(problems)}")
    return meta


def load_safe(path: str | os.PathLike, game: Game) -> tuple[ActorNetwork, dict[str, Any], Path]:
    """Load a safe model for ``game``: ``(network, metadata, weights path)``. Every problem is a
    one-line ``ModelLoadError``."""
    tensors, meta, weights_path = _read_checked(path, game)
    return build_actor(meta, tensors), meta, weights_path


def read_tensors(path: str | os.PathLike, game: Game) -> tuple[dict[str, Any], dict[str, Any]]:
    """A safe model's checked tensors, as float32, and its metadata (what ``load_safe`` builds
    the network from): for writing the same network again, e.g. in half precision."""
    tensors, meta, _ = _read_checked(path, game)
    return tensors, meta


def _read_checked(path: str | os.PathLike, game: Game) -> tuple[dict[str, Any], dict[str, Any], Path]:
    """Every check ``load_safe`` promises, once: ``(float32 tensors, metadata, weights path)``."""
    weights_path, meta_path = safe_paths(path)
    if not weights_path.is_file():
        raise ModelLoadError(f"model weights file {str(weights_path)!r} does not exist")
    meta = read_safe_metadata(path)
    check_compatible(meta, game, weights_path)
    try:
        data = weights_path.read_bytes()  # hash and parse the same bytes
    except OSError as exc:
        raise ModelLoadError(f"cannot read model weights {str(weights_path)!r}: {_one_line(exc)}") from None
    digest = sha256_bytes(data)
    if digest != meta["sha256"]:
        raise ModelLoadError(
            f"model weights {str(weights_path)!r} do not match their metadata: the file's sha256 is {digest} "
            f"but {meta_path.name} says {meta['sha256']} (changed or corrupted after saving)"
        )
    tensors = _parse_tensors(data, weights_path)
    _check_tensors(tensors, expected_shapes(meta), weights_path, meta.get("weights_dtype", "float32"))
    # the network computes in float32 (a float32 file's tensors are returned as they are)
    return {k: v.float().contiguous() for k, v in tensors.items()}, meta, weights_path


def _parse_tensors(data: bytes, path: Path) -> dict[str, Any]:
    from safetensors.torch import load

    try:
        return load(data)
    except Exception as exc:  # the parser's own error types vary across versions
        raise ModelLoadError(f"model weights {str(path)!r} are not a readable safetensors file: {_one_line(exc)}") from None


def _check_tensors(tensors: dict[str, Any], shapes: dict[str, tuple[int, ...]], path: Path,
                   dtype_name: str = "float32") -> None:
    import torch

    dtype = getattr(torch, dtype_name)
    missing, extra = sorted(set(shapes) - set(tensors)), sorted(set(tensors) - set(shapes))
    if missing or extra:
        raise ModelLoadError(
            f"model weights {str(path)!r} do not hold the network the metadata describes "
            f"(missing tensors: {missing or 'none'}; unexpected: {extra or 'none'})"
        )
    for name, shape in shapes.items():
        t = tensors[name]
        if tuple(t.shape) != shape or t.dtype != dtype:
            raise ModelLoadError(
                f"model weights {str(path)!r}: tensor {name} is {t.dtype} {tuple(t.shape)}, "
                f"the metadata's network needs {dtype_name} {shape}"
            )
        if not bool(torch.isfinite(t).all()):
            raise ModelLoadError(f"model weights {str(path)!r}: tensor {name} holds NaN or infinite values")


__all__ = [
    "ActorNetwork", "ModelLoadError", "SAFE_FORMAT", "check_compatible", "critic_of_sb3_policy", "fingerprints",
    "game_metadata",
    "load_safe", "read_safe_metadata", "read_tensors", "safe_paths", "save_actor", "save_safe",
]
