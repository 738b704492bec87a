"""The imitation warm start: examples are the teacher's real choices from each seat's own view,
value targets are the seat's discounted return, fitting makes the policy agree with the teacher,
and a run with ``imitation.games`` records where the warm start left the policy."""

from __future__ import annotations

import csv
import json
from pathlib import Path

import numpy as np
import pytest

pytest.importorskip("sb3_contrib")

from kabenvs.agents import heuristic_agent
from kabenvs.agents.base import Decision
from kabenvs.core.registry import make_game
from training.config import TrainingConfigError, validate
from training.imitation import collect, fit
from training.run import train
from tests.training.test_smoke import tiny_config

ROOT = Path(__file__).resolve().parents[2]


def test_examples_are_the_teachers_real_choices_with_discounted_returns():
    game = make_game("cabula_v0", num_players=2)
    demos = collect(game, 6, "heuristic", gamma=0.9, seed=3)
    assert len(demos) > 30
    assert demos.observations().shape == (len(demos), game.observation_size)
    assert (demos.masks.sum(axis=1) >= 2).all()  # forced moves teach nothing and are left out
    assert demos.masks[np.arange(len(demos)), demos.actions].all()  # the teacher played legal moves
    # the last example of a seat in a game carries its return undiscounted, earlier ones less
    powers = 0.9 ** np.arange(200)
    for v in np.abs(demos.returns[demos.returns != 0]):
        assert np.isclose(powers, v, atol=1e-5).any(), v
    assert np.isclose(np.abs(demos.returns).max(), 1.0)


def replay_one_game(game, seed: int, make_bot):
    """The teacher's game ``collect(game, 1, ..., seed=seed)`` played again (the same draws: the
    deal, then one seed per seat): its real choices as (observation, action), and the end."""
    rng = np.random.default_rng(seed)
    state = game.new_state(np.random.default_rng(int(rng.integers(2**63))))
    bots = [make_bot(int(rng.integers(2**31))) for _ in range(game.num_players)]
    choices = []
    while state.current_player is not None:
        p = state.current_player
        d = Decision(p, state)
        a = int(bots[p].act(d))
        if len(d.legal_actions) > 1:
            choices.append((state.observation(p), a))
        state.apply(a)
    return choices, state


def test_examples_replay_the_teachers_moves_from_each_seats_own_view():
    game = make_game("kabaleo_v0", num_players=3)
    demos = collect(game, 1, "heuristic", gamma=1.0, seed=11)
    choices, state = replay_one_game(game, 11, lambda seed: heuristic_agent("kabaleo_v0", seed=seed))
    assert len(choices) == len(demos)
    whole = demos.observations()
    for k, (obs, action) in enumerate(choices):
        np.testing.assert_array_equal(whole[k], obs)  # kept by their non-zero entries, given back exactly
        assert demos.actions[k] == action
    rows = [len(choices) - 1, 0, 3, 3]  # any rows, in any order, repeated
    np.testing.assert_array_equal(demos.observations(rows), np.stack([choices[k][0] for k in rows]))
    winners = state.returns()
    assert all(r in (winners[p] for p in range(3)) for r in demos.returns)


def test_fitting_makes_the_policy_agree_with_the_teacher(tmp_path):
    from training.build import make_env, make_model, make_pool

    cfg = tiny_config(tmp_path, env_id="cabula_v0", num_players=2)
    game = make_game("cabula_v0", num_players=2)
    model = make_model(cfg, make_env(cfg, game, make_pool(cfg, game, warn=False)))
    demos = collect(game, 150, "heuristic", gamma=0.99, seed=0)
    before = fit(model.policy, demos, epochs=1, batch_size=256, learning_rate=1e-9, vf_coef=0.5, seed=0)
    after = fit(model.policy, demos, epochs=8, batch_size=128, learning_rate=3e-3, vf_coef=0.5, seed=0)
    assert after["teacher_agreement"] > 0.8 > before["teacher_agreement"] + 0.2
    assert after["nll"] < before["nll"]


def test_a_run_with_imitation_records_the_warm_start(tmp_path):
    cfg = tiny_config(tmp_path, env_id="cabula_v0", num_players=2)
    cfg["imitation"].update(games=30, epochs=2)
    trainer, _ = train(cfg, echo=lambda *a: None)
    run = trainer.run.path
    stats = json.loads((run / "imitation.json").read_text())
    assert stats["examples"] > 100 and stats["teacher"] == "heuristic" and 0 <= stats["teacher_agreement"] <= 1
    rows = list(csv.DictReader(open(run / "evaluations.csv")))
    assert [r["baseline"] for r in rows if r["phase"] == "imitation"] == ["random", "heuristic"]
    assert all(r["step"] == "0" for r in rows if r["phase"] == "imitation")


@pytest.mark.parametrize("bad, word", [
    ({"games": -1}, "imitation.games"),
    ({"teacher": "expert"}, "imitation.teacher"),
    ({"epochs": 0}, "imitation.epochs"),
    ({"gamez": 10}, "did you mean"),
])
def test_bad_imitation_settings_are_refused_by_name(bad, word):
    with pytest.raises(TrainingConfigError, match=word):
        validate({"game": {"env_id": "cabula_v0"}, "imitation": bad})


def test_the_search_bot_can_teach_one_step_of_expert_iteration():
    from kabenvs.agents.search import search_agent_from_spec

    game = make_game("kabaleo_v0", num_players=2)
    spec = "search:sims=6"
    demos = collect(game, 1, spec, gamma=1.0, seed=5)
    choices, _ = replay_one_game(game, 5, lambda seed: search_agent_from_spec(spec, game, seed=seed))
    assert [a for _, a in choices] == demos.actions.tolist() and len(choices) > 5  # the search's own choices
    cfg = validate({"game": {"env_id": "kabaleo_v0"}, "imitation": {"games": 10, "teacher": "search:model=zoo,sims=50"}})
    assert cfg["imitation"]["teacher"] == "search:model=zoo,sims=50"
    with pytest.raises(TrainingConfigError, match=r"imitation.teacher='search:sims=0': choose heuristic, random or a "
                                                  r"search spec \(search option sims=0 must be an integer >= 1\)"):
        validate({"game": {"env_id": "kabaleo_v0"}, "imitation": {"teacher": "search:sims=0"}})


def test_collecting_keeps_the_observations_compact():
    """The examples' observations are the largest part (Kabaal at 4 players: about 20 KB each whole,
    half a million of them for 2000 games; Alakazum! at 5 players, 5000 games, 22 GB whole, was
    killed for memory). Collecting keeps their non-zero entries only, and never holds them whole:
    measured as the peak resident memory of a fresh process over its memory before collecting,
    against what the whole observations would take."""
    import subprocess
    import sys

    code = """
import numpy as np
from kabenvs.core.registry import make_game
from training.imitation import collect
def kb(field):  # this process's own figures (ru_maxrss would carry the parent's peak over exec)
    line = next(x for x in open("/proc/self/status") if x.startswith(field + ":"))
    return int(line.split()[1]) * 1024
game = make_game("kabaal_v0", num_players=4)
collect(game, games=1, teacher="random", gamma=0.99, seed=1)  # imports and first-use costs
before = max(kb("VmRSS"), kb("VmHWM"))
demos = collect(game, games=12, teacher="random", gamma=0.99, seed=0)
print(len(demos) * game.observation_size * 4, demos.obs_nbytes, kb("VmHWM") - before)
"""
    out = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, timeout=300,
                         cwd=str(ROOT))
    assert out.returncode == 0, out.stderr[-2000:]
    whole, kept, grown = map(int, out.stdout.split())
    assert whole > 50_000_000  # enough examples for them to dominate everything else
    assert kept < whole / 10, (kept, whole)
    assert grown < whole / 5, (grown, kept, whole)
