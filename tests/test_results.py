"""Results as data: the schema, the per-round record, run folders (chunked, resumable, refusing
to clobber), ``samsim.load``, and the tally every summary is computed from."""

import json
import os

import numpy as np
import pandas as pd
import pyarrow as pa
import pyarrow.parquet as pq
import pytest

import samsim
from samsim import components, engine
from samsim.analysis.report import load_report
from samsim.engine import play
from samsim.engine.designs import pool_design
from samsim.engine.lineup import lineup
from samsim.runs import results, schema
from samsim.runs.results import ResultsError
from samsim.runs.simulate import simulate, simulate_chunks
from samsim.stats.tally import Tally, tally, wilson_interval

DATA = components.load()
POOL = ["greedy", "undercut", "saver", "holiday", "random"]


# ------------------------------------------------------------------------------------ schema


def _dtype(col):
    return "category" if col.dtype == "category" else np.dtype(col.dtype)


def test_simulate_has_the_schema_dtypes():
    df = simulate(50, 4, seed=1, data=DATA)
    assert list(df.columns) == [c.name for c in schema.RESULTS]
    for col in schema.RESULTS:
        assert df[col.name].dtype == _dtype(col), col.name
    assert (df["players"] == 4).all() and (df["strategy"] == "random").all()


def test_chunks_concatenate_to_simulate():
    whole = simulate(700, players=5, seed=11, data=DATA)
    parts = list(simulate_chunks(700, 5, 11, DATA, chunk_size=256))
    assert [len(p) for p in parts] == [256 * 5, 256 * 5, 188 * 5]
    pd.testing.assert_frame_equal(pd.concat(parts, ignore_index=True), whole)


@pytest.mark.parametrize("kwargs", [{"games": 0}, {"games": 10, "players": 2},
                                    {"games": 10, "players": 7}, {"games": 10, "seed": -1},
                                    {"games": 10, "chunk_size": 0},
                                    {"games": 10, "params": {"take_pct": 101}}])
def test_bad_input_is_rejected_before_any_game(kwargs):
    with pytest.raises(ValueError):
        simulate_chunks(data=DATA, **kwargs)  # not iterated: the check is eager


@pytest.fixture(scope="module")
def recorded():
    """300 4-player games of a rotated pool with their per-round records."""
    seats = pool_design(4, POOL)
    st = engine.run_batch(300, 4, 9, 0, DATA, record=True, strategies=seats)
    specs = seats.specs()
    return (st, schema.results_frame(st, 0, 300, specs), schema.rounds_frame(st, 0, 300, specs))


def test_rounds_record_agrees_with_the_final_state(recorded):
    st, res, rounds = recorded
    assert list(rounds.columns) == [c.name for c in schema.ROUNDS]
    for col in schema.ROUNDS:
        assert rounds[col.name].dtype == _dtype(col), col.name
    assert len(rounds) == 300 * 4 * DATA.components.rounds
    last = rounds[rounds["round"] == 12].reset_index(drop=True)
    assert (last["money"].to_numpy() == res["money"].to_numpy()).all()
    assert (last["strategy"] == res["strategy"]).all()
    per_seat = rounds.groupby(["game", "seat"], sort=True)
    assert (per_seat["hosted"].sum().to_numpy() == res["tourists_hosted"].to_numpy()).all()
    bought = per_seat["tile"].apply(lambda t: int((t >= 0).sum()))
    assert (bought.to_numpy() == res["tiles_bought"].to_numpy()).all()
    assert rounds["card"].between(0, DATA.n_cards - 1).all()
    assert rounds["tile"].between(-1, 5).all()
    assert rounds["rooms_filled"].between(0, 12).all()


def test_rounds_record_is_the_event_log(recorded):
    """Cards played and tiles bought in the record are the ones the event log shows."""
    st, _, rounds = recorded
    seats = pool_design(4, POOL)
    game = 7
    one = engine.run_batch(1, 4, 9, game, DATA, log=True, strategies=seats.seating(game))
    ev = pd.DataFrame(one.events[0, :one.n_events[0]], columns=["round", "kind", "seat", "a", "b",
                                                                 "c", "d"])
    from samsim.kernel import events

    rows = rounds[rounds["game"] == game]
    for (rnd, seat), row in rows.set_index(["round", "seat"]).iterrows():
        played = ev[(ev["round"] == rnd) & (ev["seat"] == seat) & (ev["kind"].isin(
            [int(events.PLAY), int(events.SWITCH)]))]
        card = played.iloc[-1]["a"] if played.iloc[-1]["kind"] == events.PLAY else played.iloc[-1]["b"]
        assert row["card"] == card
        buy = ev[(ev["round"] == rnd) & (ev["seat"] == seat) & (ev["kind"] == int(events.BUY))]
        assert row["tile"] == (buy.iloc[0]["a"] if len(buy) else -1)


def test_market_record_is_the_event_log(recorded):
    """Arrivals and tourists turned away are the log's ARRIVE and LEFTOVER events; free rooms are
    every hotel's rooms minus its guests as they arrive; the record's income ends at the final
    income; every tourist on offer is hosted or turned away."""
    from samsim.kernel import events

    st, res, rounds = recorded
    seats = pool_design(4, POOL)
    for game in (3, 7):
        one = engine.run_batch(1, 4, 9, game, DATA, log=True, strategies=seats.seating(game))
        ev = pd.DataFrame(one.events[0, :one.n_events[0]], columns=list(events.FIELDS))
        rows = rounds[(rounds["game"] == game) & (rounds["seat"] == 0)].set_index("round")
        for rnd, row in rows.iterrows():
            now = ev[ev["round"] == rnd]
            assert row["arrived"] == (now["kind"] == int(events.ARRIVE)).sum()
            assert row["turned_away"] == (now["kind"] == int(events.LEFTOVER)).sum()
    per_round = rounds.groupby(["game", "round"])
    game_level = per_round[["arrived", "free_rooms", "turned_away"]].nunique()
    assert (game_level == 1).all().all(), "market fields must be the same on every seat's row"
    market = per_round.agg(arrived=("arrived", "first"), turned_away=("turned_away", "first"),
                           hosted=("hosted", "sum"))
    assert (market["arrived"] - market["turned_away"] == market["hosted"]).all()
    first = rounds[rounds["round"] == 1].groupby("game")["free_rooms"].first()
    assert (first == 4 * DATA.components.base_rooms).all()  # empty hotels before any guest
    last = rounds[rounds["round"] == 12].reset_index(drop=True)
    assert (last["income"].to_numpy() == res["income"].to_numpy()).all()


def _ties_from_log(game_events, players: int, c) -> np.ndarray:
    """Each seat's ties, recounted from the cards the log shows (after SWITCH) and the rulebook's
    orders: equal bids clockwise from the tie-breaker card, equal prices counter-clockwise."""
    from samsim.kernel import events

    ties = np.zeros((players, 4), np.int64)
    t = 0
    for rnd in range(1, c.rounds + 1):
        now = game_events[game_events["round"] == rnd]
        card = {}
        for _, e in now.iterrows():
            if e["kind"] == events.PLAY:
                card[e["seat"]] = e["a"]
            elif e["kind"] == events.SWITCH:
                card[e["seat"]] = e["b"]
        for p in range(players):
            for q in range(players):
                if p == q or c.holiday_card in (card[p], card[q]):
                    continue
                if c.card_bid[card[p]] == c.card_bid[card[q]]:
                    ties[p, 0 if (p - t) % players < (q - t) % players else 1] += 1
                if c.card_price[card[p]] == c.card_price[card[q]]:
                    ties[p, 2 if (t - 1 - p) % players < (t - 1 - q) % players else 3] += 1
        t = (t + 1) % players
    return ties


def test_ties_are_recounted_from_the_log():
    from samsim.kernel import events

    for players, game in ((3, 2), (4, 5), (6, 1)):
        one = engine.run_batch(1, players, 11, game, DATA, log=True, strategies="fixed")
        ev = pd.DataFrame(one.events[0, :one.n_events[0]], columns=list(events.FIELDS))
        expected = _ties_from_log(ev, players, DATA.components)
        assert expected.sum() > 0, "no tie at all: the test would prove nothing"
        assert (one.ties[0] == expected).all(), (one.ties[0], expected)
    res = schema.results_frame(one, 0, 1, [["fixed"] * 6])
    assert res["build_ties_won"].tolist() == one.ties[0, :, 0].tolist()


def test_duplicate_deals_share_the_deal_and_nothing_else():
    """per_deal=S: the S games of a group have one deal (flags, tile stack, tourist cards, the
    draws), seated by the line-up's S seatings; each is that seating played alone on the deal."""
    seats = pool_design(4, POOL)
    size = len(POOL)
    st = engine.run_batch(3 * size, 4, 13, 0, DATA, strategies=seats, per_deal=size)
    for name in ("flags", "tile_stack", "card_order"):
        a = getattr(st, name)
        for group in range(3):
            rows = a[group * size:(group + 1) * size]
            assert (rows == rows[0]).all(), name
        assert (a[0] != a[size]).any(), f"two groups share {name}"
    for game in (0, size + 2, 2 * size + 4):
        alone = engine.run_batch(1, 4, 13, game // size, DATA, strategies=seats.seating(game))
        assert st.money[game].tolist() == alone.money[0].tolist()


def test_recording_changes_no_game():
    seats = pool_design(4, POOL)
    plain = engine.run_batch(100, 4, 3, 0, DATA, strategies=seats)
    kept = engine.run_batch(100, 4, 3, 0, DATA, strategies=seats, record=True)
    for name in ("money", "score", "rank", "win_credit", "tiles_bought"):
        assert (getattr(plain, name) == getattr(kept, name)).all()


def test_schema_docs_in_the_readme_are_generated_from_the_schema():
    readme = (os.path.dirname(__file__) + "/../README.md")
    text = open(readme, encoding="utf-8").read()
    for table in schema.TABLES:
        assert schema.markdown(table) in text, f"README's {table} table is out of date: paste " \
                                               f"samsim.runs.schema.markdown({table!r})"


# ------------------------------------------------------------------------------------ run folders


def _run(out, games=600, chunk=128, **kwargs):
    kwargs.setdefault("strategies", pool_design(4, POOL))
    return results.run_simulation(games, 4, seed=5, data=DATA, chunk_size=chunk, out=out, **kwargs)


def test_run_folder_holds_chunks_with_provenance(tmp_path):
    seen = []
    tl = _run(tmp_path / "run", progress=seen.append, record=("rounds",))
    assert seen[0] == 0 and sum(seen) == 600 and len(seen) > 1  # as the games are played
    files = sorted((tmp_path / "run" / "results").iterdir())
    assert [f.name for f in files][:2] == ["000000000000-000000000128.parquet",
                                          "000000000128-000000000256.parquet"]
    meta = results.read_metadata(files[1])
    assert (meta["first_game"], meta["stop_game"], meta["players"], meta["seed"]) == (128, 256, 4, 5)
    assert meta["data_sha256"] == DATA.sha256 and meta["samsim_version"] == samsim.__version__
    assert meta["schema_version"] == schema.SCHEMA_VERSION
    assert (meta["pool"], meta["design"]) == (POOL, "balanced-1") and "seatings" not in meta
    df = samsim.load(tmp_path / "run")
    pd.testing.assert_frame_equal(df, simulate(600, 4, 5, DATA,
                                                      strategies=pool_design(4, POOL)))
    assert df.attrs["samsim"]["complete"] and df.attrs["samsim"]["games_found"] == 600
    assert tl.n_games == 600
    rounds = samsim.load(tmp_path / "run", "rounds")
    assert len(rounds) == 600 * 4 * 12
    one = samsim.load(files[1])  # a single chunk file loads on its own
    assert one["game"].min() == 128 and len(one) == 128 * 4


def test_resume_plays_only_the_missing_games_and_equals_an_uninterrupted_run(tmp_path):
    whole = tmp_path / "whole"
    _run(whole, record=("rounds",))
    cut = tmp_path / "cut"
    _run(cut, record=("rounds",))
    # a run killed mid-way: two chunks never written, one in flight (temporary files), the
    # manifest not marked complete
    parts = sorted((cut / "results").iterdir())
    parts[1].unlink()
    parts[4].unlink()
    (cut / "results" / ".000000000512-000000000600.parquet.123.tmp").write_bytes(b"half")
    doc = json.loads((cut / "run.json").read_text())
    doc["complete"] = False
    (cut / "run.json").write_text(json.dumps(doc))
    assert not samsim.load(cut).attrs["samsim"]["complete"]
    seen = []
    tl = _run(cut, chunk=50, resume=True, record=("rounds",), progress=seen.append)
    assert seen[0] == 600 - 128 - 88 and sum(seen) == 600
    for table in ("results", "rounds"):
        pd.testing.assert_frame_equal(samsim.load(cut, table), samsim.load(whole, table))
    assert not list((cut / "results").glob(".*.tmp"))
    assert tl.n_games == 600  # the summary covers the kept chunks too
    pd.testing.assert_frame_equal(tl.summary(), tally(samsim.load(whole)).summary())


def test_resume_replays_an_unreadable_chunk(tmp_path):
    _run(tmp_path)
    bad = sorted((tmp_path / "results").iterdir())[2]
    bad.write_bytes(b"not parquet")
    warnings = []
    _run(tmp_path, resume=True, warn=warnings.append)
    assert len(warnings) == 1 and bad.name in warnings[0]
    pd.testing.assert_frame_equal(samsim.load(tmp_path),
                                  simulate(600, 4, 5, DATA, strategies=pool_design(4, POOL)))


def test_an_existing_run_is_never_clobbered(tmp_path):
    _run(tmp_path)
    with pytest.raises(ResultsError, match="already holds a finished run: add --resume to use it "
                                           "as it is .*--overwrite to replace it"):
        _run(tmp_path)
    with pytest.raises(ResultsError, match=r"holds a different run \(design"):
        _run(tmp_path, resume=True, strategies="greedy")
    with pytest.raises(ResultsError, match=r"different run \(games 600, not 700\)"):
        _run(tmp_path, games=700, resume=True)
    with pytest.raises(ResultsError, match="not both"):
        _run(tmp_path, resume=True, overwrite=True)
    (tmp_path / "notes.txt").write_text("mine")
    _run(tmp_path, games=300, overwrite=True, strategies="greedy")
    assert (tmp_path / "notes.txt").read_text() == "mine"  # only samsim's own files go
    assert len(samsim.load(tmp_path)) == 300 * 4


def test_output_folders_that_are_not_runs_are_refused(tmp_path):
    (tmp_path / "theirs").mkdir()
    (tmp_path / "theirs" / "data.csv").write_text("x")
    with pytest.raises(ResultsError, match="not empty and holds no samsim run"):
        _run(tmp_path / "theirs", overwrite=True)
    (tmp_path / "file").write_text("")
    with pytest.raises(ResultsError, match="is a file, not a folder"):
        _run(tmp_path / "file")
    with pytest.raises(ResultsError, match="cannot write"):
        _run(tmp_path / "file" / "sub")
    assert (tmp_path / "theirs" / "data.csv").read_text() == "x"


def test_load_explains_what_it_cannot_read(tmp_path):
    with pytest.raises(ResultsError, match="does not exist"):
        samsim.load(tmp_path / "nowhere")
    foreign = tmp_path / "foreign.parquet"
    pq.write_table(pa.table({"x": [1, 2]}), foreign)
    with pytest.raises(ResultsError, match="not written by samsim"):
        samsim.load(foreign)
    corrupt = tmp_path / "corrupt.parquet"
    corrupt.write_bytes(b"PAR1 garbage")
    with pytest.raises(ResultsError, match="not a readable Parquet file"):
        samsim.load(corrupt)
    df = simulate(10, 3, 1, DATA)
    future = tmp_path / "future.parquet"
    results.write_parquet(df, future, {"schema_version": schema.SCHEMA_VERSION + 1})
    with pytest.raises(ResultsError, match="newer than this samsim"):
        samsim.load(future)
    partial = tmp_path / "partial.parquet"
    results.write_parquet(df.drop(columns="rank"), partial, {"schema_version": 1})
    with pytest.raises(ResultsError, match="no column 'rank'"):
        samsim.load(partial)
    run = tmp_path / "run"
    _run(run, games=100)
    with pytest.raises(ResultsError, match="no rounds records: simulate with --record rounds"):
        samsim.load(run, "rounds")
    (tmp_path / "empty").mkdir()
    with pytest.raises(ResultsError, match="holds no samsim results"):
        samsim.load(tmp_path / "empty")


# ------------------------------------------------------------------------------------ tally


@pytest.fixture(scope="module")
def mixed():
    return simulate(3000, 4, seed=3, data=DATA, strategies=pool_design(4, POOL))


def test_tally_summary_matches_direct_computation(mixed):
    summary = tally(mixed).summary(("players", "strategy", "seat"))
    for (players, name, seat), row in summary.iterrows():
        rows = mixed[(mixed["strategy"] == name) & (mixed["seat"] == seat)]
        score = rows["score"].to_numpy()
        assert row["games"] == len(rows)
        assert row["wins"] == pytest.approx(rows["win_credit"].sum())
        assert row["mean"] == pytest.approx(score.mean())
        assert row["median"] == np.median(score)
        assert row["sd"] == pytest.approx(score.std(ddof=1))
        assert row["q10"] == pytest.approx(np.quantile(score, 0.1))
        assert row["q90"] == pytest.approx(np.quantile(score, 0.9))
        # one seat a game: each seat-game is a unit; Wilson's interval at the sample size the
        # credits' own variance implies (draws make it a little smaller than p(1 - p))
        credit = rows["win_credit"].to_numpy()
        p = credit.mean()
        var = credit.var(ddof=1) / len(credit)
        n_eff = p * (1 - p) / var if var > 0 else len(credit)  # never won: Wilson's own
        low, high = wilson_interval(p * n_eff, n_eff)
        assert (row["win_low"], row["win_high"]) == (pytest.approx(low), pytest.approx(high))


def test_tally_merges_and_folds_to_the_same_counts(mixed):
    whole = tally(mixed)
    parts = Tally()
    for _, chunk in mixed.groupby(mixed["game"] // 37):  # 82 chunks: folds at 64
        parts.merge(Tally().add(chunk))
    pd.testing.assert_frame_equal(parts.seats, whole.seats)
    pd.testing.assert_frame_equal(parts.games, whole.games)
    assert whole.n_games == 3000


def test_game_summary_counts_draws_and_spreads(mixed):
    games = tally(mixed).game_summary().loc[4]
    per_game = mixed.groupby("game")
    spread = per_game["score"].max() - per_game["score"].min()
    assert games["games"] == 3000
    assert games["draws"] == pytest.approx((per_game["win_credit"].max() < 1).mean())
    assert games["spread_mean"] == pytest.approx(spread.mean())
    assert games["spread_median"] == np.median(spread)


def test_round_summary_means(recorded):
    _, _, rounds = recorded
    summary = tally(recorded[1], rounds).round_summary()
    row = summary.loc[(4, "greedy", 6)]
    sel = rounds[(rounds["strategy"] == "greedy") & (rounds["round"] == 6)]
    assert row["money"] == pytest.approx(sel["money"].mean())
    assert row["money_sd"] == pytest.approx(sel["money"].std(ddof=0))
    assert row["bought_tile"] == pytest.approx((sel["tile"] >= 0).mean())


def test_wilson_matches_scipy_for_whole_counts():
    from scipy.stats import binomtest

    for k, n in [(0, 10), (3, 10), (50, 100), (997, 1000), (1000, 1000)]:
        ci = binomtest(k, n).proportion_ci(0.95, method="wilson")
        low, high = wilson_interval(k, n)
        assert low == pytest.approx(ci.low, abs=1e-12) and high == pytest.approx(ci.high, abs=1e-12)


def test_cli_default_chunk_is_the_engines():
    from samsim import cli

    assert cli.DEFAULT_CHUNK == engine.DEFAULT_CHUNK  # repeated there so `--help` skips numba


def test_tally_checks_its_chunks_against_each_other():
    """Chunks of one run agree (MANOVA over games); a chunk whose seats were mixed up (here: seat
    labels rotated, as a seeding or seating bug would) is named in the report's notes."""
    from samsim.analysis.report import Report

    df = simulate(12000, 4, seed=8, data=DATA, strategies="greedy", chunk_size=1000)
    chunks = [df[df["game"] // 1000 == k].copy() for k in range(12)]
    good = Tally()
    for chunk in chunks:
        good.add(chunk, "run")
    [(source, players, check)] = good.chunk_checks()
    assert (source, players) == ("run", 4) and not check.rejected
    assert any("consistent" in line for line in Report(good, []).notes())
    chunks[2]["seat"] = (chunks[2]["seat"] + 1) % 4  # greedy's seat effect lands elsewhere
    bad = Tally()
    for chunk in chunks:
        bad.add(chunk, "run")
    [(_, _, check)] = bad.chunk_checks()
    assert check.rejected and check.flagged[0] == 2
    assert any(line.startswith("warning: run (4 players)") for line in Report(bad, []).notes())


# ------------------------------------------------------------------------------------ whole runs


def _parts(run, table="results"):
    return sorted((run / table).glob("*.parquet"))


def test_a_deleted_chunk_makes_the_run_partial_and_says_which_games(tmp_path):
    _run(tmp_path, record=("rounds",))
    _parts(tmp_path)[1].unlink()  # games 128..255
    meta = samsim.load(tmp_path).attrs["samsim"]
    assert not meta["complete"] and meta["games_found"] == 600 - 128
    assert meta["missing"] == [[128, 256]]
    assert results.survey(tmp_path).describe() == "472 of 600 games; missing 128-255"
    with pytest.raises(ResultsError, match=r"not a whole run \(damaged: chunks are missing; "
                                           r"472 of 600 games; missing 128-255\).*--partial"):
        load_report([tmp_path])
    partial = load_report([tmp_path], partial=True)
    assert partial.tally.n_games == 472
    assert any("PARTIAL: 472 of 600 games; missing 128-255" in line for line in partial.notes())


def test_a_copied_chunk_is_refused_not_counted_twice(tmp_path):
    _run(tmp_path)
    first = _parts(tmp_path)[0]
    copy = first.with_name(results.part_name(600, 728))
    copy.write_bytes(first.read_bytes())  # the same games under another name
    with pytest.raises(ResultsError, match="named for games 600..727 but holds others"):
        samsim.load(tmp_path)
    copy.unlink()
    (tmp_path / "results" / "backup.parquet").write_bytes(first.read_bytes())
    assert len(samsim.load(tmp_path)) == 600 * 4  # a file not named as a chunk is not one
    copy.write_bytes(first.read_bytes())
    with pytest.raises(ResultsError, match="renamed or copied"):
        _run(tmp_path, resume=True)


def test_overlapping_chunks_of_two_writers_are_refused(tmp_path):
    _run(tmp_path, chunk=128)
    other = tmp_path / "other"
    _run(other, chunk=100)
    stray = _parts(other)[1]  # games 100..199, overlapping this run's 0..127 and 128..255
    (tmp_path / "results" / stray.name).write_bytes(stray.read_bytes())
    with pytest.raises(ResultsError, match="both hold games 100..127"):
        samsim.load(tmp_path)
    with pytest.raises(ResultsError, match="both hold games"):
        load_report([tmp_path], partial=True)


def test_a_chunk_of_another_run_is_refused(tmp_path):
    _run(tmp_path)
    other = tmp_path / "other"
    results.run_simulation(600, 4, seed=6, data=DATA, chunk_size=128, out=other,
                           strategies=pool_design(4, POOL))
    mine = _parts(tmp_path)[2]
    mine.write_bytes(_parts(other)[2].read_bytes())  # same name, same games, another seed
    with pytest.raises(ResultsError, match=rf"{mine.name} is not a chunk of the run .*\(seed 5, "
                                           rf"not 6\)"):
        samsim.load(tmp_path)
    with pytest.raises(ResultsError, match="not a chunk of the run"):
        load_report([tmp_path])
    with pytest.raises(ResultsError, match="not a chunk of the run"):
        _run(tmp_path, resume=True)  # resuming would mix two runs


def test_a_chunk_whose_rows_were_edited_is_refused(tmp_path):
    _run(tmp_path)
    part = _parts(tmp_path)[0]
    df = results.read_parquet(part)
    results.write_parquet(df.iloc[4:], part)  # metadata kept, a game's rows gone
    with pytest.raises(ResultsError, match="rows do not"):
        samsim.load(tmp_path)


def test_a_corrupt_chunk_is_named(tmp_path):
    _run(tmp_path)
    bad = _parts(tmp_path)[3]
    bad.write_bytes(b"PAR1 not really")
    with pytest.raises(ResultsError, match=rf"{bad}.* not a readable Parquet file"):
        load_report([tmp_path])


def test_the_same_games_given_twice_to_a_report_are_refused(tmp_path):
    _run(tmp_path / "a")
    with pytest.raises(ValueError, match=r"both hold games 0..599 of seed 5 at 4 players \(the "
                                         r"same run twice\)"):
        load_report([tmp_path / "a", tmp_path / "a"])
    results.run_simulation(300, 4, seed=5, data=DATA, out=tmp_path / "b", strategies="greedy")
    with pytest.raises(ValueError, match="share their deals"):  # another line-up, same deals
        load_report([tmp_path / "a", tmp_path / "b"])
    results.run_simulation(300, 4, seed=8, data=DATA, out=tmp_path / "c", strategies="greedy")
    assert load_report([tmp_path / "a", tmp_path / "c"]).tally.n_games == 900


def test_one_name_for_two_codes_is_never_pooled(tmp_path):
    for seed in (1, 2):
        results.run_simulation(100, 4, seed=seed, data=DATA, out=tmp_path / str(seed),
                               strategies="greedy")
    run = tmp_path / "2"  # as if greedy had been edited between the two runs
    doc = json.loads((run / "run.json").read_text())
    doc["samsim"]["strategy_sources"]["greedy"] = "0123456789abcdef"
    (run / "run.json").write_text(json.dumps(doc))
    for part in _parts(run):
        df = results.read_parquet(part)
        results.write_parquet(df, part, {**df.attrs["samsim"],
                                         "strategy_sources": doc["samsim"]["strategy_sources"]})
    with pytest.raises(ValueError, match="strategy greedy is different code"):
        load_report([tmp_path / "1", run])


def test_a_lone_chunk_reads_with_its_rounds(tmp_path):
    _run(tmp_path, record=("rounds",))
    chunk = _parts(tmp_path)[1]
    rounds = samsim.load(chunk, "rounds")  # from the sibling rounds/ chunk
    assert set(rounds["game"]) == set(range(128, 256))
    report = load_report([chunk], partial=True)
    assert report.tally.n_games == 128 and report.tally.rounds is not None
    with pytest.raises(ResultsError, match="not a whole run"):
        load_report([chunk])


def test_a_runs_results_folder_reads_with_its_rounds_when_run_json_is_gone(tmp_path):
    """What the message for a run without run.json advises must work with rounds recorded."""
    _run(tmp_path, record=("rounds",))
    (tmp_path / results.RUN_FILE).unlink()
    with pytest.raises(ResultsError, match=r"give .*results to read them as they are"):
        load_report([tmp_path], partial=True)
    report = load_report([tmp_path / "results"])
    assert report.tally.n_games == len(samsim.load(tmp_path / "results")) // 4
    assert report.tally.rounds is not None
    assert len(samsim.load(tmp_path / "results", "rounds")) == report.tally.n_games * 4 * 12


def test_one_writer_per_folder_and_a_dead_writers_lock_is_taken_over(tmp_path):
    import fcntl

    out = tmp_path / "run"
    out.mkdir()
    lock = out / results.LOCK_FILE
    lock.write_text("samsim pid 999999 on gone since yesterday\n")  # a crashed writer's file
    _run(out, games=200)  # not stuck: nobody holds it
    assert samsim.load(out).attrs["samsim"]["complete"]
    with open(lock) as held:  # another writer, alive
        fcntl.flock(held, fcntl.LOCK_EX | fcntl.LOCK_NB)
        with pytest.raises(ResultsError, match=rf"{out} is being written by samsim pid "
                                               rf"{os.getpid()}"):
            _run(out, games=200, overwrite=True)
    assert samsim.load(out).attrs["samsim"]["complete"]  # untouched by the refused writer


def test_a_full_disk_names_the_file(tmp_path, monkeypatch):
    import errno

    def full(*args, **kwargs):
        raise OSError(errno.ENOSPC, os.strerror(errno.ENOSPC))

    monkeypatch.setattr(pq, "write_table", full)
    with pytest.raises(ResultsError, match=r"cannot write .*results/000000000000-000000000128"
                                           r"\.parquet: No space left on device"):
        _run(tmp_path)


def test_an_interrupt_keeps_the_games_played_and_resume_completes_the_run(tmp_path, monkeypatch):
    """Ctrl-C between two units of a chunk: the chunk's finished units are written as a shorter
    chunk, and resuming plays only the rest."""
    calls = []
    real = play.run_batch

    def interrupted_third_unit(*args, **kwargs):
        calls.append(args[0])
        if len(calls) == 3:
            raise KeyboardInterrupt
        return real(*args, **kwargs)

    monkeypatch.setattr(play, "run_batch", interrupted_third_unit)
    monkeypatch.setattr(play, "UNIT_SECONDS", 0.0)  # the smallest units
    with pytest.raises(KeyboardInterrupt):
        _run(tmp_path, games=600, chunk=600)
    kept = calls[0] + calls[1]
    assert samsim.load(tmp_path).attrs["samsim"]["missing"] == [[kept, 600]]
    monkeypatch.setattr(play, "run_batch", real)
    _run(tmp_path, games=600, chunk=600, resume=True)
    pd.testing.assert_frame_equal(samsim.load(tmp_path), simulate(
        600, 4, 5, DATA, strategies=pool_design(4, POOL)))


def test_units_grow_with_the_speed_measured(monkeypatch):
    sizes = []
    real = play.run_batch

    def counted(*args, **kwargs):
        sizes.append(args[0])
        return real(*args, **kwargs)

    monkeypatch.setattr(play, "run_batch", counted)
    chunks = [(first, n) for first, n, _ in engine.batches(
        [(0, 3000)], 4, 1, DATA, lineup(4, "greedy"), chunk_size=3000)]
    assert chunks == [(0, 3000)] and sum(sizes) == 3000
    assert sizes[0] == 4 * play.numba.get_num_threads() and max(sizes) > sizes[0]


def test_game_ids_beyond_int64_are_refused():
    with pytest.raises(ValueError, match=r"games must be at most 9,223,372,036,854,775,807"):
        engine.checked(2**63, 4, 1, DATA, None, 100, None, "random")
    with pytest.raises(ValueError, match="game ids are whole numbers"):
        engine.run_batch(1, 4, 1, 2**63 - 1, DATA)


def test_a_full_disk_while_writing_a_report_names_the_file(tmp_path, monkeypatch):
    import errno
    from pathlib import Path

    from samsim.analysis.report import write_report

    _run(tmp_path / "run", games=200)
    report = load_report([tmp_path / "run"])

    def full(self, *args, **kwargs):
        raise OSError(errno.ENOSPC, os.strerror(errno.ENOSPC))

    monkeypatch.setattr(Path, "write_text", full)
    with pytest.raises(ResultsError, match=r"cannot write .*report\.md: No space left on device"):
        write_report(report, tmp_path / "out")
    assert not list((tmp_path / "out").glob(".*tmp"))  # nothing half-written left behind


_SIGNALS = """
import os, signal, sys, time
from samsim.runs import interrupt

with interrupt.handlers():
    try:
        with interrupt.deferred():  # a chunk being written: the first signal waits for it
            os.kill(os.getpid(), signal.SIGINT)
            time.sleep(0.2)
            print("block finished", flush=True)
    except KeyboardInterrupt:
        print("first: stop after the block", flush=True)
    os.kill(os.getpid(), signal.SIGTERM)  # the second: the process ends at once
    time.sleep(5)
    print("not reached", flush=True)
"""


def test_the_first_signal_stops_after_the_write_and_the_second_at_once():
    import subprocess
    import sys

    done = subprocess.run([sys.executable, "-c", _SIGNALS], capture_output=True, text=True,
                          timeout=60)
    assert done.returncode == 130, done.stderr
    assert done.stdout.splitlines() == ["block finished", "first: stop after the block"]
    assert "stopped at once (second interrupt)" in done.stderr


def test_the_compiling_line_is_shown_only_when_something_compiles(tmp_path):
    from samsim.engine.registry import load_strategy

    path = tmp_path / "fresh.py"
    path.write_text('"""A strategy never compiled before."""\nfrom samsim.kernel.contract import '
                    'decision\nfrom samsim.kernel import moves\n\nPARAMS = {}\n\n\n@decision\ndef '
                    'card(comp, view, params, rng, out):\n    moves.default_card(comp, view, '
                    f'params, rng, out)\n    # {tmp_path}\n')
    info = load_strategy(str(path))
    engine.run_batch(1, 4, 1, 0, DATA)
    assert engine.compiled() and engine.compiled([load_strategy("random")])
    assert not engine.compiled([info])
    info.addresses()
    assert engine.compiled([info])


def test_a_chunk_without_its_rounds_is_missing_and_resume_plays_it_again(tmp_path):
    whole = tmp_path / "whole"
    _run(whole, record=("rounds",))
    cut = tmp_path / "cut"
    _run(cut, record=("rounds",))
    _parts(cut, "rounds")[2].unlink()  # games 256..383: results kept, per-round records gone
    meta = samsim.load(cut).attrs["samsim"]
    assert not meta["complete"] and meta["missing"] == [[256, 384]]
    assert len(samsim.load(cut, "rounds")) == (600 - 128) * 4 * 12  # the same games as results
    with pytest.raises(ResultsError, match="missing 256-383"):
        load_report([cut])
    warnings = []
    _run(cut, record=("rounds",), resume=True, warn=warnings.append)
    assert len(warnings) == 1 and "no rounds records beside it" in warnings[0]
    for table in ("results", "rounds"):
        pd.testing.assert_frame_equal(samsim.load(cut, table), samsim.load(whole, table))


def test_runs_of_two_data_files_are_not_pooled(tmp_path):
    text = components.default_data_path().read_text(encoding="utf-8")
    variant = tmp_path / "variant.toml"
    variant.write_text(text.replace("starting_money = 25", "starting_money = 40"))
    assert variant.read_text() != text
    results.run_simulation(100, 4, seed=1, data=DATA, out=tmp_path / "a", strategies="greedy")
    results.run_simulation(100, 4, seed=2, data=components.load(variant), out=tmp_path / "b",
                           strategies="greedy")
    with pytest.raises(ValueError, match="played with different data files"):
        load_report([tmp_path / "a", tmp_path / "b"])


def test_messages_blame_what_changed(tmp_path):
    import fcntl

    _run(tmp_path / "run", games=400)
    manifest = tmp_path / "run" / results.RUN_FILE
    doc = json.loads(manifest.read_text())
    doc["samsim"]["seed"] = 6
    manifest.write_text(json.dumps(doc))
    with pytest.raises(ResultsError, match=r"run\.json disagrees with every chunk of the run "
                                           r"\(seed 6, not 5\): was it edited\?"):
        samsim.load(tmp_path / "run")
    manifest.unlink()
    with pytest.raises(ResultsError, match=r"has chunks in results/ but no run\.json"):
        samsim.load(tmp_path / "run")
    assert len(samsim.load(tmp_path / "run" / "results")) == 400 * 4

    _run(tmp_path / "busy", games=400)
    doc = json.loads((tmp_path / "busy" / results.RUN_FILE).read_text())
    doc["complete"] = False  # as while it is being written
    (tmp_path / "busy" / results.RUN_FILE).write_text(json.dumps(doc))
    with open(tmp_path / "busy" / results.LOCK_FILE, "w") as held:
        held.write("samsim pid 4242 on here since now\n")
        held.flush()
        fcntl.flock(held, fcntl.LOCK_EX | fcntl.LOCK_NB)
        with pytest.raises(ResultsError, match="is being written now \\(by samsim pid 4242"):
            load_report([tmp_path / "busy"])
    with pytest.raises(ResultsError, match="not a whole run \\(unfinished"):
        load_report([tmp_path / "busy"])


_LOST = """
import gc, os, signal
from pathlib import Path
from samsim import components
from samsim.runs import interrupt, results

def in_gc(phase, info):  # Ctrl-C while a gc callback runs: Python drops the KeyboardInterrupt
    if phase == "start" and armed:
        armed.clear()
        os.kill(os.getpid(), signal.SIGINT)

armed = []
gc.callbacks.append(in_gc)
played = []
def progress(n):
    played.append(n)
    if len(played) == 3:
        armed.append(1)
        gc.collect()

with interrupt.handlers():
    try:
        results.run_simulation(20000, 4, 5, components.load(), chunk_size=256, out=Path(OUT),
                               progress=progress)
        print("finished")
    except KeyboardInterrupt:
        print("stopped")
"""


def test_a_ctrl_c_python_drops_in_a_callback_still_stops_the_run(tmp_path):
    """The interrupted frame was a gc callback (Dask's client has one): the raise is lost there,
    the engine stops at its next unit all the same, and the finished games are kept; Python's
    report of the lost raise (a traceback) is not shown."""
    import subprocess
    import sys

    out = tmp_path / "run"
    done = subprocess.run([sys.executable, "-c", f"OUT = {str(out)!r}\n" + _LOST],
                          capture_output=True, text=True, timeout=300)
    assert done.stdout.split() == ["stopped"], done.stdout + done.stderr
    assert "Traceback" not in done.stderr and "KeyboardInterrupt" not in done.stderr, done.stderr
    assert 0 < results.run_metadata(out)["games_found"] < 20000


@pytest.mark.parametrize("passes, words", [
    (1, ", 1 pass"), (2, ", 2 passes"), (0.5, ", 0.5 passes (not whole: unbalanced until finished)")])
def test_the_report_counts_a_pools_passes_in_words(passes, words):
    from samsim.analysis.report import _design
    from samsim.engine.designs import design_size

    size = design_size(4, 3)
    line = _design({"pool": ["a", "b", "c"], "players": 4, "games_found": passes * size})
    assert line.startswith("; pool of 3") and line[line.rindex(", "):] == words, line
