"""Training configs: a YAML file validated against one schema before any training starts.

Sections: ``game`` (env id + the game's own Config fields, one to one), ``algorithm``
(MaskablePPO hyperparameters, network, seed, threads), ``self_play`` (opponent pool),
``imitation`` (an optional warm start from a teacher bot's games),
``evaluation`` and ``output``. Every mistake stops with a ``TrainingConfigError`` naming the file,
the key, the value and what is allowed; a typo gets a "did you mean".
"""

from __future__ import annotations

import copy
import difflib
import math
from dataclasses import dataclass
from pathlib import Path
from typing import Any

from kabenvs.core.errors import ConfigError, brief


class TrainingConfigError(ConfigError):
    """A bad training config (a ConfigError, so callers can catch either)."""


@dataclass(frozen=True)
class Key:
    kind: str  # "int", "float", "bool", "str", "int_list", "str_list", "weights"
    default: Any
    low: float | None = None
    high: float | None = None
    choices: tuple | None = None
    doc: str = ""
    low_open: bool = False  # strict lower bound (> low)


SCHEMA: dict[str, dict[str, Key]] = {
    "algorithm": {
        "total_timesteps": Key("int", 200_000, 1, doc="learner decisions to train for"),
        "n_envs": Key("int", 64, 1, 4096, doc="games played side by side in the vectorised env"),
        "n_steps": Key("int", 64, 1, doc="rollout length per game slot between updates"),
        "batch_size": Key("int", 512, 2, doc="minibatch size of the PPO update"),
        "n_epochs": Key("int", 4, 1, 100, doc="passes over each rollout"),
        "learning_rate": Key("float", 5e-4, 0.0, 1.0, low_open=True),
        "gamma": Key("float", 0.99, 0.0, 1.0),
        "gae_lambda": Key("float", 0.95, 0.0, 1.0),
        "clip_range": Key("float", 0.2, 0.0, 1.0, low_open=True),
        "ent_coef": Key("float", 0.005, 0.0, 1.0),
        "vf_coef": Key("float", 0.5, 0.0, 10.0),
        "max_grad_norm": Key("float", 0.5, 0.0, 100.0, low_open=True),
        "target_kl": Key("float", None, 0.0, 10.0, low_open=True, doc="null disables early stopping"),
        "trunk": Key("int", 128, 0, 4096, doc="width of a hidden layer shared by actor and critic (0: none)"),
        "net_arch": Key("int_list", [64], 1, 4096, doc="hidden layer sizes of the actor and of the critic, after the trunk"),
        "activation": Key("str", "relu", choices=("tanh", "relu")),
        "seed": Key("int", 0, 0, 2**31 - 1),
        "torch_threads": Key("int", 1, 1, 64, doc="torch intra-op threads while games are played (1 is fastest for small nets)"),
        "update_threads": Key("int", 0, 0, 64, doc="torch intra-op threads for the PPO update and the imitation fit, "
                              "where no game is played (0: the usable cores, at most 4)"),
        "device": Key("str", "cpu", choices=("cpu", "cuda", "auto")),
        "env_workers": Key("int", 1, 1, 64, doc="processes that play the self-play games at once, the "
                           "learner's own among them (1: every game in the learner's process; more than the "
                           "cores there are is slower)"),
    },
    "self_play": {
        "opponents": Key(
            "weights", {"self": 0.4, "snapshots": 0.3, "random": 0.2, "heuristic": 0.1},
            choices=("self", "snapshots", "random", "heuristic", "search"),
            doc="weight of each opponent kind; each opponent seat draws one kind per game",
        ),
        "search_spec": Key(
            "str", "search:sims=20",
            doc="the search bot that plays the 'search' opponents: a seat spec (docs/search.md)",
        ),
        "snapshot_interval": Key("int", 20_000, 1, doc="learner steps between snapshots of the policy"),
        "max_snapshots": Key("int", 10, 1, 1000, doc="oldest snapshots are dropped beyond this"),
        "deterministic_opponents": Key("bool", False, doc="policy opponents play their argmax"),
        "skip_forced": Key(
            "bool", False,
            doc="the learner's decisions with a single legal action are played for it (no learner step)",
        ),
    },
    "imitation": {
        "games": Key("int", 0, 0, 1_000_000, doc="teacher games to imitate before PPO (0: no warm start)"),
        "teacher": Key(
            "str", "heuristic",
            doc="heuristic, random, or a search spec (search:model=zoo,sims=100: expert iteration, docs/training.md)",
        ),
        "epochs": Key("int", 10, 1, 1000, doc="passes over the teacher's decisions"),
        "batch_size": Key("int", 256, 1, 1_000_000),
        "learning_rate": Key("float", 1e-3, 0.0, 1.0, low_open=True),
    },
    "evaluation": {
        "interval": Key("int", 25_000, 1, doc="learner steps between evaluations"),
        "deals": Key("int", 30, 1, doc="deals per evaluation (each played once per seat rotation)"),
        "final_deals": Key("int", 100, 1, doc="deals of the evaluation after training"),
        "baselines": Key("str_list", ["random", "heuristic"], choices=("random", "heuristic")),
        "seed": Key("int", 12345, 0, 2**31 - 1),
        "deterministic": Key("bool", True, doc="the trained agent plays its argmax"),
    },
    "ray": {  # engine: rllib only (docs/training.md, "Training with Ray RLlib")
        "address": Key("str", None, doc="join this Ray cluster ('auto', 'HOST:6379', 'ray://HOST:10001'); "
                       "null: RAY_ADDRESS if set, else start a local Ray"),
        "num_cpus": Key("int", None, 1, 4096, doc="CPUs of the local Ray (null: all); ignored on a cluster"),
        "num_env_runners": Key("int", 1, 0, 4096, doc="sampling actors (0: sample in the driver)"),
        "num_envs_per_env_runner": Key("int", 1, 1, 1024, doc="games each env runner steps side by side"),
        "num_learners": Key("int", 0, 0, 1024, doc="learner actors (0: learn in the driver)"),
        "num_gpus_per_learner": Key("float", 0.0, 0.0, 64.0),
    },
    "output": {
        "dir": Key("str", "runs", doc="parent folder of run folders"),
        "name": Key("str", None, doc="run folder name (default: config file stem)"),
        "checkpoint_interval": Key("int", 50_000, 1),
        "keep_checkpoints": Key("int", 3, 1, 1000, doc="the newest checkpoints kept on disk (older ones deleted)"),
        "tensorboard": Key("bool", True),
        "progress_bar": Key("bool", True),
        "verbose": Key("int", 0, 0, 2),
    },
}
SECTIONS = ("engine", "game", *SCHEMA)
ENGINES = ("sb3", "rllib")  # the top-level key ``engine`` (a name, not a section): who trains


def _key_path(section: str, key: Any) -> str:
    """``section.key`` as an error names it: a key that is not a short plain name (a YAML key can be
    any text, a number or a megabyte) is shown through ``brief``, so the message stays one line."""
    plain = isinstance(key, str) and key.isidentifier() and key.isascii() and len(key) <= 40
    return f"{section}.{key}" if plain else f"{section}.{brief(key)}"


def _suggest(word: str, options) -> str:
    close = difflib.get_close_matches(str(word), [str(o) for o in options], n=1, cutoff=0.6)
    return f" (did you mean {brief(close[0])}?)" if close else ""


def _is_int(v) -> bool:
    return isinstance(v, int) and not isinstance(v, bool)


def _is_number(v) -> bool:
    return (isinstance(v, (int, float)) and not isinstance(v, bool)) and math.isfinite(v)


def _check_range(where: str, value, key: Key) -> None:
    low, high = key.low, key.high
    bad_low = low is not None and (value <= low if key.low_open else value < low)
    bad_high = high is not None and value > high
    if bad_low or bad_high:
        lo = f"> {low}" if key.low_open else f">= {low}"
        bound = f"{lo} and <= {high}" if high is not None else lo
        raise TrainingConfigError(f"{where}={brief(value)} is out of range; it must be {bound}")


def _check_value(where: str, value, key: Key):
    """Return the validated (normalised) value or raise naming ``where``."""
    kind = key.kind
    if value is None and key.default is None:
        return None
    if kind == "int":
        if not _is_int(value):
            raise TrainingConfigError(f"{where}={brief(value)} must be an integer")
        _check_range(where, value, key)
    elif kind == "float":
        if isinstance(value, str):  # YAML reads 3e-4 (no dot) as a string
            try:
                value = float(value)
            except ValueError:
                raise TrainingConfigError(f"{where}={brief(value)} must be a number") from None
        if not _is_number(value):
            raise TrainingConfigError(f"{where}={brief(value)} must be a number")
        value = float(value)
        _check_range(where, value, key)
    elif kind == "bool":
        if not isinstance(value, bool):
            raise TrainingConfigError(f"{where}={brief(value)} must be true or false")
    elif kind == "str":
        if not isinstance(value, str) or not value:
            raise TrainingConfigError(f"{where}={brief(value)} must be a non-empty string")
        if key.choices and value not in key.choices:
            raise TrainingConfigError(
                f"{where}={brief(value)} is not allowed{_suggest(value, key.choices)}; choose one of {list(key.choices)}"
            )
    elif kind == "int_list":
        if not isinstance(value, list) or not all(_is_int(v) for v in value):
            raise TrainingConfigError(f"{where}={brief(value)} must be a list of integers, e.g. [64, 64]")
        for v in value:
            _check_range(where, v, key)
    elif kind == "str_list":
        if not isinstance(value, list) or not all(isinstance(v, str) for v in value):
            raise TrainingConfigError(f"{where}={brief(value)} must be a list of names from {list(key.choices)}")
        for v in value:
            if v not in key.choices:
                raise TrainingConfigError(
                    f"{where} contains {brief(v)}{_suggest(v, key.choices)}; allowed: {list(key.choices)}"
                )
    elif kind == "weights":
        if not isinstance(value, dict) or not value:
            raise TrainingConfigError(
                f"{where}={brief(value)} must be a mapping of opponent kind to weight, e.g. {{self: 0.5, random: 0.5}}"
            )
        weights = {}
        for k, w in value.items():
            if k not in key.choices:
                raise TrainingConfigError(
                    f"{where}.{k}: unknown opponent kind{_suggest(k, key.choices)}; allowed: {list(key.choices)}"
                )
            weight = w
            if isinstance(w, str):  # YAML reads 1e-1 (no dot) as a string: read it as the float keys do
                try:
                    weight = float(w)
                except ValueError:
                    pass
            if not _is_number(weight) or weight < 0:
                raise TrainingConfigError(f"{where}.{k}={brief(w)} must be a number >= 0")
            weights[k] = float(weight)
        if sum(weights.values()) <= 0:
            raise TrainingConfigError(f"{where}: the weights {weights} must not all be 0")
        value = weights
    return value


def validate(raw: Any, source: str = "config") -> dict[str, Any]:
    """Check a parsed YAML document; return the resolved config (defaults filled in)."""
    if not isinstance(raw, dict):
        raise TrainingConfigError(f"{source}: the top level must be a mapping with sections {list(SECTIONS)}")
    for section in raw:
        if section not in SECTIONS:
            raise TrainingConfigError(
                f"{source}: unknown section {brief(section)}{_suggest(section, SECTIONS)}; allowed sections: {list(SECTIONS)}"
            )
    out: dict[str, Any] = {}
    engine = raw.get("engine", "sb3")
    out["engine"] = _check_value(f"{source}: engine", engine, Key("str", "sb3", choices=ENGINES))
    out["game"] = _validate_game(raw.get("game"), source)
    for section, keys in SCHEMA.items():
        given = raw.get(section)
        if given is None:  # absent, or a header with nothing under it: the defaults
            given = {}
        # 0, false, '' or [] is a mistake, not "nothing to change": `or {}` used to take them as empty
        if not isinstance(given, dict):
            raise TrainingConfigError(f"{source}: section {brief(section)} must be a mapping, got {brief(given)}")
        resolved = {}
        for k in given:
            if k not in keys:
                raise TrainingConfigError(
                    f"{source}: unknown key {_key_path(section, k)}{_suggest(k, keys)}; allowed keys in {section}: {list(keys)}"
                )
        for k, key in keys.items():
            value = given[k] if k in given else copy.deepcopy(key.default)
            resolved[k] = _check_value(f"{source}: {section}.{k}", value, key)
        out[section] = resolved
    _cross_checks(out, source)
    _engine_checks(out, raw.get("ray") or {}, source)
    return out


# what engine: rllib cannot do (yet), each a clear error instead of a silently ignored key
_RLLIB_UNSUPPORTED = {
    ("imitation", "games"): (0, "the imitation warm start trains an SB3 policy; use engine: sb3"),
    ("self_play", "skip_forced"): (False, "RLlib steps every decision"),
    ("self_play", "deterministic_opponents"): (False, "RLlib's snapshot policies sample their moves"),
}


def _engine_checks(cfg: dict[str, Any], given_ray: dict, source: str) -> None:
    defaults = {k: key.default for k, key in SCHEMA["ray"].items()}
    if cfg["engine"] == "sb3":
        changed = [k for k in given_ray if given_ray[k] != defaults.get(k)]
        if changed:
            raise TrainingConfigError(
                f"{source}: ray.{changed[0]} applies to engine: rllib only; this config trains with engine: sb3 "
                "(set engine: rllib, or remove the ray section)")
        return
    if cfg["self_play"]["opponents"].get("search", 0) > 0:
        raise TrainingConfigError(
            f"{source}: self_play.opponents.search={cfg['self_play']['opponents']['search']!r} is not supported "
            "with engine: rllib (its env plays self, snapshots, random and heuristic opponents); it must be 0")
    for (section, key), (allowed, why) in _RLLIB_UNSUPPORTED.items():
        if cfg[section][key] != allowed:
            raise TrainingConfigError(
                f"{source}: {section}.{key}={cfg[section][key]!r} is not supported with engine: rllib ({why}); "
                f"it must be {allowed!r}")
    if cfg["algorithm"]["device"] == "cuda":
        raise TrainingConfigError(
            f"{source}: algorithm.device='cuda' is not used by engine: rllib; give the learners GPUs with "
            "ray.num_gpus_per_learner")


def _validate_game(game: Any, source: str) -> dict[str, Any]:
    from kabenvs.core.registry import env_ids, game_class

    if not isinstance(game, dict) or "env_id" not in game:
        raise TrainingConfigError(f"{source}: section 'game' must be a mapping with 'env_id' and the game's options")
    env_id = game["env_id"]
    known = env_ids()
    if env_id not in known:
        raise TrainingConfigError(
            f"{source}: game.env_id={brief(env_id)} is not a registered env id{_suggest(env_id, known)}; known: {known}"
        )
    options = {k: v for k, v in game.items() if k != "env_id"}
    cls = game_class(env_id)
    allowed = cls.Config.field_names()
    for k in options:
        if k not in allowed:
            raise TrainingConfigError(
                f"{source}: unknown key {_key_path('game', k)} for {env_id}{_suggest(k, allowed)}; allowed: {['env_id', *allowed]}"
            )
    try:
        config = cls.Config.from_dict(options)
    except ConfigError as exc:
        raise TrainingConfigError(f"{source}: game: {exc}") from None
    return {"env_id": env_id, **config.to_dict()}


def _cross_checks(cfg: dict[str, Any], source: str) -> None:
    from kabenvs.agents.search.spec import parse_search_spec

    spec = cfg["self_play"]["search_spec"]
    try:
        parse_search_spec(spec)  # a model= path is loaded (and checked) when the pool is built
    except ConfigError as exc:
        raise TrainingConfigError(f"{source}: self_play.search_spec={brief(spec)}: {exc}") from None
    teacher = cfg["imitation"]["teacher"]
    if teacher not in ("heuristic", "random"):
        try:
            parse_search_spec(teacher)
        except ConfigError as exc:
            raise TrainingConfigError(f"{source}: imitation.teacher={brief(teacher)}: choose heuristic, random or "
                                      f"a search spec ({exc})") from None
    alg = cfg["algorithm"]
    rollout = alg["n_envs"] * alg["n_steps"]
    if alg["batch_size"] > rollout:
        raise TrainingConfigError(
            f"{source}: algorithm.batch_size={alg['batch_size']} is larger than a rollout "
            f"(n_envs*n_steps = {rollout}); it must be <= {rollout}"
        )


def apply_overrides(raw: Any, overrides: list[str], source: str) -> Any:
    """``section.key=value`` strings from the command line (values read as YAML) into ``raw``."""
    import yaml

    if not overrides:
        return raw
    if not isinstance(raw, dict):
        return raw  # validate() reports the shape problem
    for item in overrides:
        name, sep, text = item.partition("=")
        if sep and name.strip() == "engine":  # the one top-level key that is not a section
            raw["engine"] = text.strip()
            continue
        parts = name.strip().split(".")
        if not sep or len(parts) != 2 or not all(parts):
            raise TrainingConfigError(f"--set {brief(item)}: write SECTION.KEY=VALUE, e.g. game.num_players=4")
        section, key = parts
        if section not in SECTIONS:
            raise TrainingConfigError(
                f"--set {brief(item)}: unknown section {brief(section)}{_suggest(section, SECTIONS)}; allowed: {list(SECTIONS)}"
            )
        try:
            value = yaml.load(text, Loader=StrictLoader)
        except yaml.YAMLError as exc:
            if getattr(exc, "duplicate", False):
                raise TrainingConfigError(f"--set {brief(item)}: {exc.problem}") from None
            value = text
        except RecursionError:
            value = text  # not YAML: the text itself (validate() says if a string is wrong there)
        except ValueError as exc:  # an integer past Python's 4300-digit limit
            raise TrainingConfigError(f"--set {brief(item)}: the value cannot be read ({_digits(exc)})") from None
        if raw.get(section) is None:
            raw[section] = {}
        if not isinstance(raw[section], dict):
            raise TrainingConfigError(f"{source}: section {brief(section)} must be a mapping")
        raw[section][key] = value
    return raw


def _strict_loader():
    import yaml

    class StrictLoader(yaml.SafeLoader):
        """PyYAML's SafeLoader, except that a key given twice in one mapping is refused (the plain
        loader silently keeps the last one, so a pasted second ``n_envs:`` would win unnoticed)."""

        def construct_mapping(self, node, deep=False):
            if isinstance(node, yaml.MappingNode):
                seen: dict[Any, int] = {}
                for key_node, _ in node.value:
                    if key_node.tag == "tag:yaml.org,2002:merge":
                        continue  # "<<: *defaults" may be overridden by design
                    key = self.construct_object(key_node, deep=True)
                    try:
                        first = seen.get(key)
                    except TypeError:
                        continue  # unhashable: the base class reports it
                    line = key_node.start_mark.line + 1
                    if first is not None:
                        raise DuplicateKeyError(key, first, line, key_node.start_mark)
                    seen[key] = line
            return super().construct_mapping(node, deep)

    class DuplicateKeyError(yaml.constructor.ConstructorError):
        duplicate = True

        def __init__(self, key, first: int, second: int, mark) -> None:
            super().__init__(None, None, f"duplicated key {brief(key)} (lines {first} and {second}); "
                             "each key may appear once in a mapping", mark)

    return StrictLoader


class _LazyLoader:
    """The loader class is built on first use (importing this module must not import yaml)."""

    _cls = None

    def __call__(self, stream):
        if _LazyLoader._cls is None:
            _LazyLoader._cls = _strict_loader()
        return _LazyLoader._cls(stream)


StrictLoader = _LazyLoader()


def parse_yaml(text: str, source: str) -> Any:
    """Parse YAML text with ``StrictLoader``; any problem is a one-line ``TrainingConfigError``."""
    import yaml

    try:
        return yaml.load(text, Loader=StrictLoader)
    except yaml.YAMLError as exc:
        mark = getattr(exc, "problem_mark", None)
        where = f" at line {mark.line + 1}, column {mark.column + 1}" if mark else ""
        problem = getattr(exc, "problem", None) or str(exc).splitlines()[0]
        raise TrainingConfigError(f"{source}: malformed YAML{where}: {problem}") from None
    except RecursionError:
        raise TrainingConfigError(f"{source}: the YAML is nested too deeply to be a training config") from None
    except ValueError as exc:  # PyYAML converts an integer past Python's 4300-digit limit and fails
        raise TrainingConfigError(f"{source}: malformed YAML: {_digits(exc)}") from None


def _digits(exc: ValueError) -> str:
    """What a ValueError out of a parser says, in a few words (its text names Python internals)."""
    text = str(exc)
    return "a number with more than 4300 digits" if "digits" in text else brief(text, 120)


def load_yaml_file(path: str | Path) -> Any:
    """Read a YAML file (UTF-8) and parse it strictly; errors name the file and the problem."""
    p = Path(path)
    try:
        if p.is_dir():  # "does not exist" would send the user looking for a missing path
            raise TrainingConfigError(
                f"config file {brief(str(p), 200)} is a folder; give the path of a YAML file")
        if not p.is_file():
            raise TrainingConfigError(f"config file {brief(str(p), 200)} does not exist")
        text = p.read_bytes().decode("utf-8")
    except UnicodeDecodeError as exc:
        raise TrainingConfigError(
            f"{p}: not UTF-8 text (byte 0x{exc.object[exc.start]:02x} at offset {exc.start}); "
            "save the config as UTF-8"
        ) from None
    except OSError as exc:  # is_dir/is_file raise too, for a name too long
        raise TrainingConfigError(
            f"{brief(str(p), 200)}: cannot read the config ({exc.strerror or exc})") from None
    return parse_yaml(text, str(p))


def load_config(path: str | Path, overrides: list[str] | None = None) -> dict[str, Any]:
    """Read and validate a YAML config file (plus ``--set`` overrides)."""
    p = Path(path)
    raw = load_yaml_file(p)
    raw = apply_overrides(raw, overrides or [], str(p))
    cfg = validate(raw, source=str(p))
    if cfg["output"]["name"] is None:
        cfg["output"]["name"] = p.stem
    return cfg


def game_options(cfg: dict[str, Any]) -> dict[str, Any]:
    return {k: v for k, v in cfg["game"].items() if k != "env_id"}


def make_game_from_config(cfg: dict[str, Any], **override):
    from kabenvs.core.registry import make_game

    return make_game(cfg["game"]["env_id"], **{**game_options(cfg), **override})


def dump_config(cfg: dict[str, Any], path: Path) -> None:
    import yaml

    from kabenvs.core.files import atomic_write

    atomic_write(path, yaml.safe_dump(cfg, sort_keys=False))

