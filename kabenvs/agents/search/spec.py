"""The seat spec of the search bot: ``search`` or ``search:key=value,key=value``.

Used wherever a seat is named by text (``scripts/play.py --seat``, ``scripts/evaluate.py``):

    search                          ISMCTS, 200 simulations a move, random rollouts
    search:sims=400,rollout=heuristic
    search:time=0.5,algo=pimc,worlds=10
    search:algo=paired,rollout=heuristic,sims=4000   the heuristic bot improved by paired rollouts
    search:model=runs/x/final_model.zip,sims=100
    search:model=zoo,sims=100       the agent shipped for the game (kabenvs.zoo) as prior and value
    search:others=heuristic,rollout=heuristic,sims=1000   a best response to the heuristic bot
    search:others=heuristic,infer=64,rollout=heuristic    ... in worlds weighed by the bot's past moves

A bad key or value is refused with one line (``ConfigError``) naming it and what is allowed.
"""

from __future__ import annotations

from typing import Any

from kabenvs.core.errors import ConfigError, brief

PREFIX = "search"
ALGOS = ("ismcts", "pimc", "flat", "paired")
ROLLOUTS = ("random", "heuristic")
LEAVES = ("rollout", "value")
OTHERS = ("search", "heuristic", "random")


def _int(low: int):
    def conv(key: str, text: str) -> int:
        try:
            value = int(text)
        except ValueError:
            raise ConfigError(f"search option {key}={brief(text)} must be an integer >= {low}") from None
        if value < low:
            raise ConfigError(f"search option {key}={brief(value)} must be an integer >= {low}")
        return value

    return conv


def _float(low: float, strict: bool):
    def conv(key: str, text: str) -> float:
        try:
            value = float(text)
        except ValueError:
            value = float("nan")
        if value != value or value in (float("inf"),) or (value <= low if strict else value < low):
            bound = f"> {low}" if strict else f">= {low}"
            raise ConfigError(f"search option {key}={brief(text)} must be a number {bound}")
        return value

    return conv


def _choice(allowed: tuple[str, ...]):
    def conv(key: str, text: str) -> str:
        if text not in allowed:
            raise ConfigError(f"search option {key}={brief(text)} is not allowed; choose one of {list(allowed)}")
        return text

    return conv


def _path(key: str, text: str) -> str:
    if not text:
        raise ConfigError(f"search option {key}= needs a model path")
    return text


# key -> (converter, what it means); the order is the order of the canonical name
OPTIONS: dict[str, tuple[Any, str]] = {
    "algo": (_choice(ALGOS), "ismcts (default) | pimc (determinized UCT) | flat (determinized flat MC) | "
                            "paired (every root move rolled out in the same worlds with the same future)"),
    "sims": (_int(1), "simulations per move (default 200)"),
    "time": (_float(0.0, strict=True), "seconds of wall clock per move, instead of sims"),
    "rollout": (_choice(ROLLOUTS), "random (default) | heuristic (the game's bot; random where it has none)"),
    "others": (_choice(OTHERS), "search (default: every seat is searched) | heuristic | random (the other seats "
                                "play that policy inside the tree: an opponent model, only this seat is searched)"),
    "infer": (_int(0), "with others=heuristic: draw this many worlds a move and weigh each by how many of the other "
                       "seats' past moves the bot would not have made there (x0.1 each); simulations walk them "
                       "by weight (default 0: every world as the resampler gives it)"),
    "c": (_float(0.0, strict=False), "exploration constant (default 1.4)"),
    "worlds": (_int(1), "worlds sampled by pimc/flat (default 8)"),
    "score": (_float(0.0, strict=False), "weight of the final score margin added to the returns (default 0)"),
    "model": (_path, "a trained model giving priors and values (PUCT); zoo: the shipped agent"),
    "leaf": (_choice(LEAVES), "with a model: value new leaves by the model (default) or by a rollout"),
    "norm": (_int(0), "with a model: 1 compares the means as shares of the tree's range of returns "
                      "(MuZero's rescaling; for values on a small scale), 0 (default) as they are"),
    "temp": (_float(0.0, strict=True), "with a model: prior temperature, probabilities ~ exp(logit / temp) "
                                       "(default 1; above 1 a near-certain policy leaves the search room to disagree)"),
}


def is_search_spec(spec: str) -> bool:
    """Whether a seat text names the search bot (``search`` or ``search:...``)."""
    return spec == PREFIX or spec.startswith(PREFIX + ":")


def parse_search_spec(spec: str) -> dict[str, Any]:
    """``'search:sims=400,rollout=heuristic'`` -> ``{'sims': 400, 'rollout': 'heuristic'}``."""
    if not isinstance(spec, str) or not is_search_spec(spec.strip()):
        raise ConfigError(f"{brief(spec)} is not a search spec; write search or search:key=value,... "
                          f"with keys {', '.join(OPTIONS)}")
    body = spec.strip()[len(PREFIX) + 1:]
    out: dict[str, Any] = {}
    for item in filter(None, (part.strip() for part in body.split(","))):
        key, sep, text = item.partition("=")
        key, text = key.strip(), text.strip()
        if not sep:
            raise ConfigError(f"search option {brief(item)} must look like key=value; keys: {', '.join(OPTIONS)}")
        if key not in OPTIONS:
            raise ConfigError(f"unknown search option {brief(key)} in {brief(spec)}; allowed: {', '.join(OPTIONS)}")
        if key in out:
            raise ConfigError(f"search option {brief(key)} given twice in {brief(spec)}")
        out[key] = OPTIONS[key][0](key, text)
    check_options(out)
    return out


def check_options(options: dict[str, Any]) -> None:
    """Combinations that make no sense, refused in one line."""
    if "sims" in options and "time" in options:
        raise ConfigError("search options sims= and time= exclude each other; give one budget")
    if "worlds" in options and options.get("algo", "ismcts") == "ismcts":
        raise ConfigError("search option worlds= applies to algo=pimc or algo=flat only "
                          "(ismcts draws a new world every simulation)")
    if "worlds" in options and options.get("algo") == "paired":
        raise ConfigError("search option worlds= applies to algo=pimc or algo=flat only "
                          "(paired draws a new world every round; sims= or time= sets how many)")
    if options.get("algo") == "paired" and "model" in options:
        raise ConfigError("search algo=paired takes no model=: it plays every root move out with the rollout "
                          "policy (rollout=heuristic or random); use algo=ismcts or pimc with a model")
    if options.get("algo") == "paired" and options.get("others", "search") != "search":
        raise ConfigError("search option others= applies to the tree searches (ismcts, pimc, flat); algo=paired "
                          "already plays every seat by the rollout policy after the root move")
    if options.get("infer", 0) and options.get("others", "search") != "heuristic":
        raise ConfigError("search option infer= needs others=heuristic: it weighs each world by the heuristic bot's "
                          "past moves for the other seats")
    if "leaf" in options and "model" not in options:
        raise ConfigError("search option leaf= needs model= (without a model, leaves are always rolled out)")
    if options.get("norm", 0) not in (0, 1):
        raise ConfigError(f"search option norm= must be 0 or 1, not {options['norm']}")
    if "norm" in options and "model" not in options:
        raise ConfigError("search option norm= needs model= (it rescales PUCT's means)")
    if "temp" in options and "model" not in options:
        raise ConfigError("search option temp= needs model= (it softens the model's policy prior)")


def canonical_name(options: dict[str, Any]) -> str:
    """``search`` plus the options given, in a fixed order (how tables and logs name the bot)."""
    parts = [f"{k}={options[k]}" for k in OPTIONS if k in options and k != "model"]
    if "model" in options:
        import os

        parts.append(f"model={os.path.basename(str(options['model']))}")
    return PREFIX + (":" + ",".join(parts) if parts else "")
