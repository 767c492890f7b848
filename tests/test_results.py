"""Chunked simulation, results files with provenance, and the per-seat summary the CLI prints."""

import numpy as np
import pandas as pd
import pytest

import samsim
from samsim import components, engine, results
from samsim.stats import seat_summary, wilson_interval

DATA = components.load()


def test_chunks_concatenate_to_simulate():
    whole = engine.simulate(700, players=5, seed=11, data=DATA)
    parts = list(engine.simulate_chunks(700, 5, 11, DATA, chunk_size=256))
    assert [len(p) for p in parts] == [256 * 5, 256 * 5, 188 * 5]
    pd.testing.assert_frame_equal(pd.concat(parts, ignore_index=True), whole)


@pytest.mark.parametrize("kwargs", [{"games": 0}, {"games": 10, "players": 2},
                                    {"games": 10, "players": 7}, {"games": 10, "seed": -1},
                                    {"games": 10, "chunk_size": 0},
                                    {"games": 10, "params": {"take_pct": 101}}])
def test_bad_input_is_rejected_before_any_game(kwargs):
    with pytest.raises(ValueError):
        engine.simulate_chunks(data=DATA, **kwargs)  # not iterated: the check is eager


def test_run_writes_results_with_provenance(tmp_path):
    seen = []
    df = results.run_simulation(300, 3, seed=5, data=DATA, chunk_size=128, out=tmp_path / "run",
                                progress=seen.append)
    assert seen == [128, 128, 44]
    back = results.read_parquet(tmp_path / "run" / results.RESULTS_FILE)
    pd.testing.assert_frame_equal(back, engine.simulate(300, 3, 5, DATA))
    meta = back.attrs["samsim"]
    assert meta == df.attrs["samsim"]
    assert (meta["games"], meta["players"], meta["seed"]) == (300, 3, 5)
    assert meta["data_sha256"] == DATA.sha256 and meta["samsim_version"] == samsim.__version__


def test_unwritable_output_is_reported_first(tmp_path):
    blocker = tmp_path / "file"
    blocker.write_text("")
    with pytest.raises(OSError, match="cannot write"):
        results.run_simulation(10, 4, 0, DATA, out=blocker / "sub")


def test_wilson_matches_scipy_for_whole_counts():
    from scipy.stats import binomtest

    for k, n in [(0, 10), (3, 10), (50, 100), (997, 1000), (1000, 1000)]:
        ci = binomtest(k, n).proportion_ci(0.95, method="wilson")
        low, high = wilson_interval(k, n)
        assert low == pytest.approx(ci.low, abs=1e-12) and high == pytest.approx(ci.high, abs=1e-12)


def test_summary_shares_draws_and_counts_every_game():
    df = engine.simulate(2000, players=4, seed=3, data=DATA)
    summary = seat_summary(df)
    assert list(summary.index) == [0, 1, 2, 3]
    assert (summary["games"] == 2000).all()
    assert summary["wins"].sum() == pytest.approx(2000)  # a draw's credit adds up to one win
    assert (summary["win_low"] <= summary["win_rate"]).all()
    assert (summary["win_rate"] <= summary["win_high"]).all()
    seat0 = df[df["seat"] == 0]
    assert summary.loc[0, "median_score"] == np.median(seat0["score"])
    assert summary.loc[0, "mean_tiles"] == pytest.approx(seat0["tiles_bought"].mean())


def test_cli_default_chunk_is_the_engines():
    from samsim import cli

    assert cli.DEFAULT_CHUNK == engine.DEFAULT_CHUNK  # repeated there so `--help` skips numba
