"""samsim tune: it finds a planted optimum, candidates meet common deals, an interrupted tune
resumes to the same result as an uninterrupted one, and bad setups or folders are refused."""

import json
import os
import signal
import subprocess
import sys
import time
from pathlib import Path

import numpy as np
import pandas as pd
import pytest

from samsim import components
from samsim.analysis import tune as tuning
from samsim.analysis.tune import Setup, TuneError
from samsim.engine.designs import around, design_size

DATA = components.load()
PLANTED = str(Path(__file__).parent / "strategies" / "planted.py")
SAMSIM = str(Path(sys.executable).parent / "samsim")
#: a small tune of the toy: 6 candidates and the centre, 200 games each at first
SMALL = dict(start=PLANTED, players=4, field=("greedy",), games=200, popsize=6, sigma=0.2)


def test_a_tune_finds_the_planted_optimum():
    """The toy's win rate peaks at a = 7, b = 3 (b whole): CMA-ES from a = 2, b = 8 gets there
    within a step on 300,000 games (the slow test tries six more seeds),
    and the learning curve (the centre, unbiased) rises."""
    result = tuning.tune(Setup(**SMALL, budget=300_000, seed=0), DATA)
    assert abs(result.best_params["a"] - 7) <= 1 and abs(result.best_params["b"] - 3) <= 1
    assert float(result.best_params["b"]).is_integer()
    curve = [g.centre_rate for g in result.generations]
    assert np.mean(curve[-3:]) > curve[0] + 0.05
    assert result.stopped == "the budget" and result.games <= 300_000
    # the games per candidate only grow, and only after a generation whose ranking was noise
    deals = [g.deals for g in result.generations]
    assert deals == sorted(deals)
    for before, after in zip(result.generations, result.generations[1:]):
        assert (after.deals > before.deals) == (not before.f >= tuning.TRUSTED_F) or \
            after.deals == before.deals == Setup(**SMALL, budget=1).deals()[1]


def test_candidates_meet_the_same_deals_in_the_same_seats():
    """Two copies of one strategy on common deals play identical games; a different one does not,
    yet the deal is shared: the centre column of a generation is an ordinary game of its own."""
    share, score = tuning.play([("greedy", ["fixed"]), ("greedy", ["fixed"]),
                                ("undercut", ["fixed"])], 4, 3, 10, 40, DATA)
    assert share.shape == (40, 3)
    assert np.array_equal(score[:, 0], score[:, 1]) and not np.array_equal(score[:, 0], score[:, 2])
    from samsim import engine

    # deal 11 (row 1) is game id 11 x 3 + column, with the trial in seat 11 mod 4 = 3
    alone = engine.run_batch(1, 4, 3, 11 * 3 + 2, DATA, per_deal=3,
                             strategies=["fixed", "fixed", "fixed", "undercut"])
    assert alone.score[0, 3] == score[1, 2]


def test_around_is_balanced():
    """The trial seat goes round the table, and the field's seats are its pool design: every
    field strategy sits in every other seat, and every two meet, equally often."""
    rows = around(5, 3)
    assert len(rows) == 5 * design_size(4, 3)
    trial = rows == -1
    assert (trial.sum(axis=1) == 1).all() and len(set(trial.sum(axis=0))) == 1
    for k in range(3):
        counts = (rows == k).sum(axis=0)
        assert len(set(counts)) == 1  # every seat alike
    assert (around(4, 1) == np.array([[-1, 0, 0, 0], [0, -1, 0, 0], [0, 0, -1, 0],
                                      [0, 0, 0, -1]])).all()


def test_space_rounds_to_steps_and_limits():
    sp = tuning.space("weighted(w_money=2)", ["w_money", "switch_gain"])
    assert sp.start["w_money"] == 2.0 and sp.names == ("w_money", "switch_gain")
    values = sp.values([3.14159, 57.6])
    assert values["w_money"] == 3.14 and values["switch_gain"] == 58.0
    assert sp.values([99, -5]) == {**sp.start, "w_money": 10.0, "switch_gain": 0.0}
    assert sp.strategy([3.14159, 57.6]).spec() == "weighted(w_money=3.14, switch_gain=58)"
    with pytest.raises(TuneError, match="no parameter 'w_nope'"):
        tuning.space("weighted", ["w_nope"])


@pytest.mark.parametrize("change, message", [
    ({"field": ()}, "one of them"),
    ({"self_play": True}, "one of them"),
    ({"budget": 100}, "does not cover one generation"),
    ({"sigma": 0}, "share of each parameter's range"),
    ({"popsize": 1}, "popsize must be a whole number of at least 2"),
    ({"players": 7}, "players must be 3..6"),
    ({"start": "nosuch"}, "unknown strategy 'nosuch'"),
    ({"params": ("a", "a")}, "name each parameter once"),
])
def test_bad_setups_are_refused_before_any_game(change, message):
    with pytest.raises(TuneError, match=message):
        Setup(**{**SMALL, "budget": 50_000, **change}).check(DATA)


def test_an_interrupted_tune_resumes_to_the_same_result(tmp_path):
    """Stopped in the middle of a generation, then resumed: the folder ends byte for byte as an
    uninterrupted tune's, every saved evaluation included."""
    setup = Setup(**SMALL, budget=30_000, seed=1)
    whole = tuning.tune(setup, DATA, tmp_path / "whole")
    played = [0]

    def stop(n):
        played[0] += n
        if played[0] > 9_000:
            raise KeyboardInterrupt

    with pytest.raises(KeyboardInterrupt):
        tuning.tune(setup, DATA, tmp_path / "cut", progress=stop)
    kept = json.loads((tmp_path / "cut" / tuning.TUNE_FILE).read_text())
    assert 0 < len(kept["generations"]) < len(whole.generations) and not kept["complete"]
    found = []
    again = tuning.tune(setup, DATA, tmp_path / "cut", resume=True, found=found.append)
    assert len(found[0]) == len(kept["generations"])
    assert again.best == whole.best and again.games == whole.games
    assert (tmp_path / "cut" / tuning.TUNE_FILE).read_text() == \
        (tmp_path / "whole" / tuning.TUNE_FILE).read_text()
    for path in sorted((tmp_path / "whole" / tuning.EVALUATIONS).iterdir()):
        assert pd.read_parquet(path).equals(pd.read_parquet(tmp_path / "cut" / tuning.EVALUATIONS
                                                            / path.name))
    assert tuning.load(tmp_path / "cut").best == whole.best


def test_a_tune_folder_is_not_reused_silently(tmp_path):
    setup = Setup(**SMALL, budget=6_000, seed=2)
    tuning.tune(setup, DATA, tmp_path / "t")
    with pytest.raises(TuneError, match="already holds a tune"):
        tuning.tune(setup, DATA, tmp_path / "t")
    with pytest.raises(TuneError, match=r"another configuration \(sigma"):
        tuning.tune(Setup(**{**SMALL, "sigma": 0.3}, budget=6_000, seed=2), DATA, tmp_path / "t",
                    resume=True)
    # tampered: a saved game's result changed
    path = tmp_path / "t" / tuning.EVALUATIONS / "gen-0000.parquet"
    frame = pd.read_parquet(path)
    frame.loc[0, "win_credit"] = 1.0 - frame.loc[0, "win_credit"]
    frame.to_parquet(path)
    with pytest.raises(TuneError, match="does not hold the games"):
        tuning.tune(setup, DATA, tmp_path / "t", resume=True)
    path.unlink()
    with pytest.raises(TuneError, match="missing or damaged"):
        tuning.tune(setup, DATA, tmp_path / "t", resume=True)
    # --overwrite starts again; a folder of something else is never written into
    assert tuning.tune(setup, DATA, tmp_path / "t", overwrite=True).generations
    (tmp_path / "other").mkdir()
    (tmp_path / "other" / "notes.txt").write_text("mine")
    with pytest.raises(TuneError, match="holds no tune"):
        tuning.tune(setup, DATA, tmp_path / "other")


def test_self_play_tunes_against_its_own_centre():
    """Each generation's candidates meet copies of its centre; the centre itself is measured
    against the start, so the curve says how far the tune has come."""
    result = tuning.tune(Setup(start=PLANTED, players=3, self_play=True, budget=20_000,
                               games=200, popsize=4, sigma=0.2, seed=4), DATA)
    for g in result.generations:
        assert g.field == [g.centre]
    assert result.generations[0].centre_rate == pytest.approx(1 / 3, abs=0.08)


def test_common_deals_spread_is_calibrated():
    """Known null (candidates alike; deals differ, results are win shares): the F test rejects
    at most alpha of the time. Known effect: found. Deal luck shared by the candidates is what
    common deals remove: the gain is above 1 then."""
    from samsim.stats.inference import common_deals_spread

    rng = np.random.default_rng(5)
    rejections, gains = 0, []
    for _ in range(400):
        luck = rng.uniform(0.05, 0.6, size=(300, 1))  # the deal: how likely the trial seat wins
        wins = (rng.random((300, 6)) < luck).astype(float)
        spread = common_deals_spread(wins)
        rejections += spread.p_value < 0.05
        gains.append(spread.gain)
    assert rejections / 400 <= 0.05 + 2 * np.sqrt(0.05 * 0.95 / 400)
    assert np.mean(gains) > 1.05
    better = (rng.random((300, 6)) < np.array([0.25] * 5 + [0.40])).astype(float)
    assert common_deals_spread(better).p_value < 1e-3
    same = np.tile(rng.random((50, 1)) < 0.3, (1, 4)).astype(float)  # identical games
    assert np.isnan(common_deals_spread(same).f)


def test_the_command_tunes_reports_and_resumes(tmp_path):
    """samsim tune end to end: Ctrl-C keeps the generations played (exit 130), --resume ends
    it, the report holds the tuned spec, the learning curve and the confirmation."""
    out = tmp_path / "tune"
    # 60,000 games: seconds after the first generation is saved, so Ctrl-C always finds it running
    args = [SAMSIM, "tune", PLANTED, "--against", "greedy", "--budget", "60000", "--games", "200",
            "--popsize", "4", "--sigma", "0.2", "--out", str(out), "--confirm-games", "1200"]
    proc = subprocess.Popen(args, stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True,
                            start_new_session=True)
    deadline = time.time() + 120
    while time.time() < deadline and not (out / tuning.TUNE_FILE).is_file():
        time.sleep(0.05)
    os.killpg(proc.pid, signal.SIGINT)
    _, err = proc.communicate(timeout=60)
    assert proc.returncode == 130 and "add --resume" in err and "Traceback" not in err
    done = subprocess.run([*args, "--resume"], capture_output=True, text=True, timeout=300)
    assert done.returncode == 0, done.stderr
    assert "tuned: planted(" in done.stdout
    text = (out / "report" / "tune.md").read_text()
    assert "**Tuned:** `planted(" in text and "## Confirmation at 4 players" in text
    assert (out / "report" / "learning_curve.png").stat().st_size > 1000
    assert (out / "report" / "confirm" / "4p" / "compare.md").is_file()


@pytest.mark.parametrize("extra, message", [
    (["--against", "greedy", "--self-play"], "one of them"),
    ([], "one of them"),
    (["--against", "greedy", "--budget", "10"], "does not cover one generation"),
    (["--against", "greedy", "--params", "c"], "no parameter 'c'"),
    (["--against", "greedy", "--confirm-players", "2"], "--confirm-players: give player counts"),
])
def test_the_command_refuses_bad_input_in_one_line(tmp_path, extra, message):
    run = subprocess.run([SAMSIM, "tune", PLANTED, "--out", str(tmp_path / "t"), *extra],
                         capture_output=True, text=True, timeout=120)
    assert run.returncode == 2 and message in run.stderr
    assert run.stderr.count("\n") == 1 and "Traceback" not in run.stderr


def test_an_experiment_file_tunes(tmp_path):
    """kind = "tune": the tune in results/NAME/<N>p/, its report in results/NAME/report/; a
    tune's mistakes are one line before any game."""
    exp = tmp_path / "toy.toml"
    exp.write_text(f'kind = "tune"\nstrategy = "{PLANTED}"\nagainst = "greedy"\ngames = 6000\n'
                   f'generation_games = 200\npopsize = 4\nsigma = 0.2\nconfirm_games = 0\n',
                   encoding="utf-8")
    done = subprocess.run([SAMSIM, "run", str(exp), "--results", str(tmp_path / "r")],
                          capture_output=True, text=True, timeout=300)
    assert done.returncode == 0, done.stderr
    assert (tmp_path / "r" / "toy" / "4p" / tuning.TUNE_FILE).is_file()
    assert "**Tuned:** `planted" in (tmp_path / "r" / "toy" / "report" / "tune.md").read_text()
    for text, message in (('kind = "tune"\nagainst = "greedy"\ngames = 6000\n', "strategy ="),
                          (f'kind = "tune"\nstrategy = "{PLANTED}"\ngames = 6000\n', "one of them"),
                          (f'kind = "tune"\nstrategy = "{PLANTED}"\nagainst = "greedy"\n'
                           f'players = [3, 4]\ngames = 6000\n', "one player count")):
        exp.write_text(text, encoding="utf-8")
        bad = subprocess.run([SAMSIM, "run", str(exp), "--results", str(tmp_path / "bad")],
                             capture_output=True, text=True, timeout=120)
        assert bad.returncode == 2 and message in bad.stderr and bad.stderr.count("\n") == 1
        assert not (tmp_path / "bad").exists() or not any((tmp_path / "bad").rglob("*.parquet"))


def test_the_library_strategy_tuned_is_the_committed_tune():
    """strategies/tuned.py holds the spec results/tuning/report/tune.md reports (samsim run
    experiments/tuning.toml), plays its games, and is weighted's code."""
    import re

    from samsim import engine
    from samsim.engine.registry import parse_spec

    report = Path(__file__).parent.parent / "results" / "tuning" / "report" / "tune.md"
    spec = re.search(r"\*\*Tuned:\*\* `([^`]+)`", report.read_text(encoding="utf-8")).group(1)
    tuned, found = parse_spec("tuned"), parse_spec(spec)
    assert found.name == "weighted" and tuned.params == found.params
    assert tuned.info.function("card") is found.info.function("card")
    a = engine.run_batch(300, 4, 2, data=DATA, strategies=["tuned", "greedy", "lookahead", "undercut"])
    b = engine.run_batch(300, 4, 2, data=DATA, strategies=[spec, "greedy", "lookahead", "undercut"])
    assert np.array_equal(a.score, b.score)


@pytest.mark.slow
@pytest.mark.parametrize("seed", range(6))
def test_slow_the_planted_optimum_is_found_from_any_seed(seed):
    result = tuning.tune(Setup(**SMALL, budget=300_000, seed=seed + 10), DATA)
    assert abs(result.best_params["a"] - 7) <= 1 and abs(result.best_params["b"] - 3) <= 1


@pytest.mark.slow
def test_slow_common_deals_spread_false_positives_at_most_alpha():
    """The fast calibration, with 5,000 nulls and other shapes (3 and 12 candidates, 60 and 2,000
    deals): the rejection rate stays within sampling error of at most alpha."""
    from samsim.stats.inference import common_deals_spread

    rng = np.random.default_rng(6)
    for deals, k in ((60, 3), (2000, 12), (300, 6)):
        p = np.array([common_deals_spread(
            (rng.random((deals, k)) < rng.uniform(0.05, 0.6, size=(deals, 1))).astype(float)
        ).p_value for _ in range(5000 if deals < 2000 else 1000)])
        assert (p < 0.05).mean() <= 0.05 + 3 * np.sqrt(0.05 * 0.95 / len(p)), (deals, k)
