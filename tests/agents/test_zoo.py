"""The agents shipped with kabenvs (seat spec ``zoo``), the float16 safe format they use, and
``kabenvs zoo add``/``list``: every shipped agent loads, matches its game and plays whole games; a
game or player count without one is a one-line message naming the ones there are."""

from __future__ import annotations

import json
from pathlib import Path

import numpy as np
import pytest

pytest.importorskip("sb3_contrib")
pytest.importorskip("safetensors")

import kabenvs
import kabenvs.zoo as zoo
from kabenvs.agents.policy import load_agent, masked_logits, sample_decisions, save_model
from kabenvs.agents.safe_model import MAX_WIDTH, ModelLoadError, load_safe, read_tensors, safe_paths, save_actor
from kabenvs.commands.evaluate import main as evaluate_main
from kabenvs.commands.zoo import main as zoo_main
from kabenvs.core.errors import ConfigError
from kabenvs.core.registry import make_game
from kabenvs.play.cli import main as play_main
from kabenvs.wrappers import agent_factory
from training.build import make_env, make_model, make_pool
from training.config import validate

SHIPPED = zoo.shipped()


@pytest.fixture(scope="module")
def game():
    return make_game("kabaleo_v0", num_players=2)


@pytest.fixture(scope="module")
def saved(game, tmp_path_factory):
    """An untrained Kabaleo model saved as training saves it (archive + safe model)."""
    cfg = validate({
        "game": {"env_id": "kabaleo_v0", "num_players": 2},
        "algorithm": {"n_envs": 2, "n_steps": 8, "batch_size": 16, "trunk": 16, "net_arch": [8],
                      "activation": "relu"},
        "self_play": {"opponents": {"random": 1.0}},
    })
    model = make_model(cfg, make_env(cfg, game, make_pool(cfg, game, warn=False)))
    return save_model(model, tmp_path_factory.mktemp("saved") / "model.zip", game,
                      extra={"train_seconds": 1.5}).with_suffix("")


@pytest.fixture()
def zoo_dir(saved, tmp_path, monkeypatch, capsys):
    """A zoo folder holding that model as kabaleo_v0-2p, and the package's zoo pointed at it."""
    folder = tmp_path / "zoo"
    code = zoo_main(["add", str(saved), "--dir", str(folder), "--float16", "--deals", "2", "--against", "random",
                     "--command", "python scripts/train.py tiny.yaml", "--note", "a test agent"])
    assert code == 0, capsys.readouterr().err
    capsys.readouterr()
    monkeypatch.setattr(zoo, "ZOO_DIR", folder)
    return folder


# -- float16 weights --------------------------------------------------------------------------------
def test_float16_weights_halve_the_file_and_play_almost_the_same(saved, game, tmp_path):
    tensors, meta = read_tensors(saved, game)
    half, written = save_actor(meta["network"], tensors, tmp_path / "half", game,
                               value_network=meta["value_network"], weights_dtype="float16")
    assert written["weights_dtype"] == "float16"
    assert half.stat().st_size < 0.6 * safe_paths(saved)[0].stat().st_size
    full, _, _ = load_safe(saved, game)
    net, _, _ = load_safe(half, game)
    obs, masks = sample_decisions(game, count=64, seed=5)
    a, b = masked_logits(full, obs, masks), masked_logits(net, obs, masks)
    legal = np.isfinite(a)
    assert np.array_equal(legal, np.isfinite(b))
    assert np.abs(a[legal] - b[legal]).max() < 1e-2  # rounded weights, float32 arithmetic
    assert not np.array_equal(a, b)  # the rounding is real: the card's agreement figure measures it


@pytest.mark.parametrize("change, words", [
    ({"weights_dtype": "float32"}, "tensor trunk.weight is torch.float16"),  # file says one thing, tensors another
    ({"weights_dtype": "float64"}, "weights_dtype: 'float64' must be one of"),
    ({"weights_dtype": ["float16"]}, "weights_dtype: ['float16'] must be one of"),
])
def test_a_wrong_weights_dtype_is_one_clear_error(saved, game, tmp_path, change, words):
    tensors, meta = read_tensors(saved, game)
    weights, written = save_actor(meta["network"], tensors, tmp_path / "half", game,
                                  value_network=meta["value_network"], weights_dtype="float16")
    meta_path = safe_paths(weights)[1]
    meta_path.write_text(json.dumps({**written, **change}))
    with pytest.raises(ModelLoadError, match="^[^\n]*$") as err:
        load_safe(weights, game)
    assert words in str(err.value)


def test_weights_beyond_float16_are_refused_when_saving(saved, game, tmp_path):
    tensors, meta = read_tensors(saved, game)
    tensors["action.bias"][0] = 1e6
    with pytest.raises(ValueError, match="do not fit float16"):
        save_actor(meta["network"], tensors, tmp_path / "half", game, weights_dtype="float16")
    assert MAX_WIDTH  # the float32 limits are unchanged


# -- kabenvs zoo add / list ----------------------------------------------------------------------------
def test_zoo_add_writes_the_agent_its_card_and_its_measured_strength(zoo_dir, saved, game):
    (agent,) = zoo.shipped(zoo_dir)
    assert (agent.env_id, agent.num_players, agent.path.name) == ("kabaleo_v0", 2, "kabaleo_v0-2p")
    meta = json.loads(agent.path.with_suffix(".json").read_text())
    card = meta["zoo_card"]
    assert meta["weights_dtype"] == "float16" and meta["value_network"] is not None
    assert card["command"] == "python scripts/train.py tiny.yaml" and card["note"] == "a test agent"
    assert card["train_seconds"] == 1.5 and card["learner_steps"] == 0
    assert card["source_sha256"] == json.loads(safe_paths(saved)[1].read_text())["sha256"]
    assert 0.9 <= card["agreement"] <= 1.0 and card["agreement_decisions"] == 512
    (row,) = card["strength"]
    assert row["against"] == "random" and row["games"] == 4 and 0 <= row["win_rate"] <= 1
    assert row["command"] == "kabenvs evaluate zoo random --game kabaleo_v0 --players 2 --deals 2 --seed 7"
    text = agent.card.read_text()
    assert "python scripts/train.py tiny.yaml" in text and row["command"] in text and "a test agent" in text
    assert agent.size <= zoo.MAX_BYTES


def test_zoo_list_names_each_agent_with_its_strength(zoo_dir, capsys):
    assert zoo_main(["list", "--dir", str(zoo_dir)]) == 0
    out = capsys.readouterr().out
    assert "kabaleo_v0" in out and "vs random" in out
    assert zoo_main(["list", "--dir", str(zoo_dir / "empty")]) == 0
    assert "no shipped agents" in capsys.readouterr().out


@pytest.mark.parametrize("content", ["[1, 2]", "{not json", '{"zoo_card": 3}',
                                     '{"zoo_card": {"strength": [{"against": "x", "win_rate": "high", "ci95": []}]}}'])
def test_zoo_list_names_a_broken_card_in_its_row(zoo_dir, capsys, content):
    (zoo_dir / "kabaleo_v0-2p.json").write_text(content)
    assert zoo_main(["list", "--dir", str(zoo_dir)]) == 0
    row = capsys.readouterr().out.splitlines()[1]
    assert row.startswith("kabaleo_v0") and ("no readable model card" in row or "not measured" in row)
    with pytest.raises(ModelLoadError, match="^[^\n]*kabaleo_v0-2p[^\n]*$"):  # loading it: refused in one line
        agent_factory("zoo", make_game("kabaleo_v0", num_players=2))


@pytest.mark.parametrize("argv, words", [
    (["add", "MISSING", "--command", "x"], "model 'MISSING' does not exist"),
    (["add", "SAVED.zip", "--command", "x"], "is not a safe model (NAME.safetensors + NAME.json); export it first"),
    (["add", "SAVED", "--command", "  "], "--command must say how the model was trained"),
    (["add", "SAVED", "--command", "x", "--deals", "0"], "--deals=0 must be >= 1"),
    (["fly"], "invalid choice: 'fly'"),
])
def test_zoo_add_refuses_bad_input_in_one_line(saved, tmp_path, capsys, argv, words):
    argv = [a.replace("SAVED", str(saved)) for a in argv] + ["--dir", str(tmp_path)] * (argv[0] == "add")
    with pytest.raises(SystemExit) if argv[0] == "fly" else _nothing():
        assert zoo_main(argv) == 2
    err = capsys.readouterr().err
    assert words in err and len(err.strip().splitlines()) == 1
    assert not list(tmp_path.glob("*.safetensors"))


class _nothing:
    def __enter__(self):
        return self

    def __exit__(self, *exc):
        return False


def test_zoo_add_refuses_an_agent_over_the_size_limit(saved, tmp_path, monkeypatch, capsys):
    monkeypatch.setattr(zoo, "MAX_BYTES", 1000)
    assert zoo_main(["add", str(saved), "--dir", str(tmp_path), "--command", "x", "--deals", "1"]) == 2
    err = capsys.readouterr().err
    assert "over the zoo's 0.00 MB limit; --float16 halves it" in err
    assert not list(tmp_path.iterdir())  # nothing half-written is left to be shipped


def test_a_refused_or_interrupted_add_leaves_the_shipped_agent_as_it_was(zoo_dir, saved, monkeypatch, capsys):
    before = {p.name: p.read_bytes() for p in zoo_dir.iterdir()}
    monkeypatch.setattr(zoo, "MAX_BYTES", 1000)
    assert zoo_main(["add", str(saved), "--dir", str(zoo_dir), "--command", "y", "--deals", "1"]) == 2
    monkeypatch.undo()

    def interrupted(*args, **kwargs):
        raise KeyboardInterrupt  # Ctrl-C while the strength games are played

    monkeypatch.setattr("kabenvs.commands.zoo._strength", interrupted)
    with pytest.raises(KeyboardInterrupt):
        zoo_main(["add", str(saved), "--dir", str(zoo_dir), "--command", "y", "--deals", "1"])
    assert {p.name: p.read_bytes() for p in zoo_dir.iterdir()} == before  # no staging folder left either


def _tiny_model(path: Path, **options) -> Path:
    game = make_game("kabaleo_v0", **options)
    cfg = validate({"game": {"env_id": "kabaleo_v0", **options},
                    "algorithm": {"n_envs": 2, "n_steps": 8, "batch_size": 16, "trunk": 8, "net_arch": [8]},
                    "self_play": {"opponents": {"random": 1.0}}})
    model = make_model(cfg, make_env(cfg, game, make_pool(cfg, game, warn=False)))
    return save_model(model, path, game).with_suffix("")


def test_zoo_add_refuses_options_that_change_the_game(tmp_path, capsys):
    path = _tiny_model(tmp_path / "m.zip", num_players=2, mode="equitable")
    assert zoo_main(["add", str(path), "--dir", str(tmp_path / "z"), "--command", "x"]) == 2
    assert "non-default options ['mode']" in capsys.readouterr().err
    assert not (tmp_path / "z").exists() or not list((tmp_path / "z").iterdir())


def test_a_model_trained_for_the_score_margin_ships_for_the_default_game(tmp_path, capsys, monkeypatch):
    path = _tiny_model(tmp_path / "m.zip", num_players=2, reward="score")
    folder = tmp_path / "z"
    assert zoo_main(["add", str(path), "--dir", str(folder), "--command", "x", "--deals", "1",
                     "--against", "random"]) == 0
    (agent,) = zoo.shipped(folder)
    meta = json.loads(agent.path.with_suffix(".json").read_text())
    assert meta["game_config"]["reward"] == "win" and meta["zoo_card"]["trained_with"] == {"reward": "score"}
    assert '"reward": "score"' in agent.card.read_text()
    monkeypatch.setattr(zoo, "ZOO_DIR", folder)
    source = load_agent(path, make_game("kabaleo_v0", num_players=2, reward="score"))
    shipped = agent_factory("zoo", make_game("kabaleo_v0", num_players=2))(0)
    obs, masks = sample_decisions(make_game("kabaleo_v0", num_players=2), count=32, seed=2)
    assert np.array_equal(source.act_batch(obs, masks), shipped.act_batch(obs, masks))  # float32: the same play


# -- the seat spec -------------------------------------------------------------------------------------
def test_the_zoo_seat_plays_in_every_front_end(zoo_dir, game, capsys):
    factory = agent_factory("zoo", game)
    agent = factory(0)
    assert agent.name == "kabaleo_v0-2p"
    assert evaluate_main(["zoo", "random", "--game", "kabaleo_v0", "--deals", "2", "--json"]) == 0
    report = json.loads(capsys.readouterr().out)
    assert [c["name"] for c in report["competitors"]] == ["zoo", "random"] and report["games"] == 4
    assert play_main(["kabaleo_v0", "--seat", "zoo", "heuristic", "--seed", "3"]) == 0
    assert "kabaleo_v0-2p" in capsys.readouterr().out


def test_the_search_bot_takes_the_shipped_agent_as_its_prior(zoo_dir, game):
    from kabenvs.agents.search import search_agent_from_spec

    bot = search_agent_from_spec("search:model=zoo,sims=8", game, seed=1)
    assert bot.name == "search:sims=8,model=zoo" and bot.prior is not None
    with pytest.raises(ConfigError, match="no shipped agent .* kabaleo_v0 at 3 players"):
        search_agent_from_spec("search:model=zoo", make_game("kabaleo_v0", num_players=3), seed=1)


def test_a_count_without_a_shipped_agent_lists_the_ones_there_are(zoo_dir, capsys):
    four = make_game("kabaleo_v0", num_players=4)
    with pytest.raises(ConfigError, match="no shipped agent .* for kabaleo_v0 at 4 players; "
                                          "shipped agents: kabaleo_v0 at 2 players$"):
        agent_factory("zoo", four)
    assert evaluate_main(["zoo", "random", "--game", "kabaleo_v0", "--players", "4", "--deals", "1"]) == 2
    err = capsys.readouterr().err
    assert "no shipped agent (seat 'zoo') for kabaleo_v0 at 4 players" in err and len(err.splitlines()) == 1
    assert play_main(["barakka_v0", "--seat", "zoo", "random", "--seed", "1"]) == 2
    err = capsys.readouterr().err
    assert "for barakka_v0 at 2 players; shipped agents: kabaleo_v0 at 2 players" in err


def test_an_empty_zoo_says_so(tmp_path, monkeypatch, game):
    monkeypatch.setattr(zoo, "ZOO_DIR", tmp_path)
    with pytest.raises(ConfigError, match="shipped agents: none in this install"):
        agent_factory("zoo", game)


def test_the_web_lobby_offers_zoo_only_where_an_agent_ships(zoo_dir, tmp_path):
    pytest.importorskip("starlette")
    from kabenvs.web.live import Manager, WebError, build_agent
    from kabenvs.web.store import Store

    seat = build_agent("zoo", 1, make_game("kabaleo_v0", num_players=2), 3, None)
    assert seat.kind == "model" and seat.name == "kabaleo_v0-2p"
    with pytest.raises(WebError, match="no shipped agent"):
        build_agent("zoo", 1, make_game("kabaleo_v0", num_players=3), 3, None)
    games = {g["env_id"]: g for g in Manager(Store(tmp_path / "db.sqlite")).catalog()["games"]}
    assert games["kabaleo_v0"]["zoo_players"] == [2] and games["barakka_v0"]["zoo_players"] == []


# -- the agents that ship --------------------------------------------------------------------------------
def test_the_package_ships_agents():
    assert SHIPPED, "kabenvs/zoo/agents/ holds no agent"


@pytest.mark.parametrize("agent", SHIPPED, ids=[a.path.name for a in SHIPPED])
def test_a_shipped_agent_matches_its_game_fits_and_has_a_card(agent):
    meta = json.loads(agent.path.with_suffix(".json").read_text())
    default = make_game(agent.env_id, num_players=agent.num_players)
    # (an option added to the game after the agent was saved reads at its default: GameConfig.completed)
    assert meta["env_id"] == agent.env_id
    assert default.Config.completed(meta["game_config"]) == default.config.to_dict()
    assert agent.size <= zoo.MAX_BYTES
    card = meta["zoo_card"]
    assert card["name"] == agent.path.name and card["command"].startswith("python scripts/train.py configs/")
    assert card["learner_steps"] > 0 and card["train_seconds"] > 0
    assert {r["against"] for r in card["strength"]} >= {"heuristic", "random"}
    text = agent.card.read_text()
    assert card["command"] in text and all(r["command"] in text for r in card["strength"])


@pytest.mark.parametrize("agent", SHIPPED, ids=[a.path.name for a in SHIPPED])
def test_a_shipped_agent_plays_whole_games_through_the_env(agent):
    game = make_game(agent.env_id, num_players=agent.num_players)
    player = load_agent(agent.path, game, seed=0)  # the fingerprint check: refused if the game changed
    env = kabenvs.make(agent.env_id, num_players=agent.num_players)
    for seed in (0, 1):
        env.reset(seed=seed)
        steps = 0
        for name in env.agent_iter():
            obs, reward, terminated, truncated, info = env.last()
            if terminated or truncated:
                env.step(None)
                continue
            action = int(player.act_batch(obs["observation"][None], obs["action_mask"][None])[0])
            assert obs["action_mask"][action] == 1
            env.step(action)
            steps += 1
        assert steps > 0 and not env.agents
