"""Traces: every event of a game as a table, written to disk with its provenance, and replayable.

The point of a trace is that any game behind a statistic can be pulled out, read and played again;
so the tests check the table against the engine's log, the files against the table, and that a
replay from the seed alone confirms the trace (and catches a trace that was tampered with).
"""

import json

import pandas as pd
import pytest

import samsim
from samsim import components, engine
from samsim.kernel.events import KIND_NAMES
from samsim.runs import trace
from samsim.runs.trace import (
    TRACE_COLUMNS,
    ReplayMismatch,
    read_trace,
    replay_check,
    trace_games,
    write_games,
    write_trace,
)

DATA = components.load()
SEED = 7
PLAYERS = 4


@pytest.fixture(scope="module")
def traced():
    return trace_games(PLAYERS, SEED, games=3, data=DATA)


def test_table_is_the_engines_log(traced):
    assert tuple(traced.columns) == TRACE_COLUMNS
    assert sorted(set(traced["game"])) == [0, 1, 2]
    for game, rows in traced.groupby("game"):
        events = engine.play_game(DATA, PLAYERS, SEED, game, log=True).events
        assert list(rows["seq"]) == list(range(len(events)))
        as_rows = [(r, KIND_NAMES.index(k), s, a, b, c, d) for r, k, s, a, b, c, d in zip(
            rows["round"], rows["kind"], rows["seat"], rows["a"], rows["b"], rows["c"], rows["d"])]
        assert as_rows == [tuple(e) for e in events]
        finals = rows[rows["kind"] == "FINAL"]
        assert list(finals["seat"]) == list(range(PLAYERS))
    assert traced["text"].str.len().min() > 0
    hosts = traced[traced["kind"] == "HOST"]["text"]
    assert hosts.str.contains(" hosts ").all()


def test_games_as_ids_and_metadata():
    df = trace_games(PLAYERS, SEED, games=[2], data=DATA)
    again = trace_games(PLAYERS, SEED, games=3, data=DATA)
    assert df.drop(columns="game").equals(
        again[again["game"] == 2].drop(columns="game").reset_index(drop=True))
    meta = df.attrs["samsim"]
    assert meta["seed"] == SEED and meta["players"] == PLAYERS and meta["games"] == [2]
    assert meta["data_sha256"] == DATA.sha256
    assert meta["samsim_version"] == samsim.__version__


@pytest.mark.parametrize("games", [0, [], [-1], "3"])
def test_bad_games_are_rejected(games):
    with pytest.raises(ValueError):
        trace_games(PLAYERS, SEED, games=games, data=DATA)


def test_parquet_round_trip_keeps_provenance(traced, tmp_path):
    import pyarrow.parquet as pq

    path = write_trace(traced, tmp_path / "trace.parquet")
    meta = json.loads(pq.read_schema(path).metadata[b"samsim"])
    assert meta["seed"] == SEED and meta["players"] == PLAYERS and meta["params"] is None
    assert meta["data_sha256"] == DATA.sha256 and meta["samsim_version"] == samsim.__version__
    back = read_trace(path)
    pd.testing.assert_frame_equal(back, traced, check_dtype=False)
    assert back.attrs["samsim"] == meta


def test_jsonl_round_trip_keeps_provenance(traced, tmp_path):
    path = write_trace(traced, tmp_path / "trace.jsonl")
    lines = path.read_text(encoding="utf-8").splitlines()
    assert len(lines) == len(traced) + 1
    meta = json.loads(lines[0])["samsim"]
    assert meta["seed"] == SEED and meta["players"] == PLAYERS
    assert meta["data_sha256"] == DATA.sha256 and meta["samsim_version"] == samsim.__version__
    assert list(json.loads(lines[1])) == list(TRACE_COLUMNS)
    back = read_trace(path)
    pd.testing.assert_frame_equal(back, traced, check_dtype=False)
    assert back.attrs["samsim"] == json.loads(json.dumps(traced.attrs["samsim"]))


def test_unknown_suffix_is_rejected(traced, tmp_path):
    with pytest.raises(ValueError, match="jsonl or .parquet"):
        write_trace(traced, tmp_path / "trace.csv")


def test_replay_confirms_every_event(traced, tmp_path):
    assert replay_check(traced) == len(traced)
    assert replay_check(traced, 1) == (traced["game"] == 1).sum()
    path = write_trace(traced, tmp_path / "trace.parquet")
    assert replay_check(path, engine="reference") == len(traced)


def test_replay_of_jsonl_from_the_file_alone(traced, tmp_path):
    path = write_trace(traced, tmp_path / "trace.jsonl")
    assert replay_check(path) == len(traced)


def test_replay_without_provenance_needs_the_seed(traced, tmp_path):
    path = tmp_path / "events-only.jsonl"  # as another tool might write it: events, no header
    path.write_text(traced[list(TRACE_COLUMNS)].to_json(orient="records", lines=True), encoding="utf-8")
    with pytest.raises(ValueError, match="seed"):
        replay_check(path)
    assert replay_check(path, players=PLAYERS, seed=SEED) == len(traced)


def test_replay_catches_a_changed_event(traced):
    tampered = traced.copy()
    tampered.attrs = traced.attrs
    host = tampered.index[tampered["kind"] == "HOST"][0]
    tampered.loc[host, "c"] += 1  # the guest paid one more than the game says
    with pytest.raises(ReplayMismatch, match=f"event {tampered.loc[host, 'seq']}"):
        replay_check(tampered)


def test_replay_with_another_seed_fails(traced):
    with pytest.raises(ReplayMismatch):
        replay_check(traced, 0, seed=SEED + 1)


def test_replay_refuses_other_data(traced, tmp_path):
    variant = tmp_path / "variant.toml"
    text = components.default_data_path().read_text(encoding="utf-8")
    variant.write_text(text.replace("starting_money = 25", "starting_money = 30"), encoding="utf-8")
    with pytest.raises(ValueError, match="data file"):
        replay_check(traced, data=components.load(variant))


# ------------------------------------------------------------------------------ streamed traces


@pytest.mark.parametrize("suffix", [".jsonl", ".parquet"])
def test_streamed_file_is_the_traced_table(suffix, tmp_path):
    ids = [0, 1, 2, 5, 6, 40]  # runs of consecutive ids and gaps, more games than one chunk
    calls = []
    streamed = write_games(PLAYERS, SEED, ids, DATA, tmp_path / f"streamed{suffix}", chunk=4,
                           progress=lambda n, frame: calls.append((n, len(frame))))
    whole = write_trace(trace_games(PLAYERS, SEED, ids, data=DATA), tmp_path / f"whole{suffix}")
    assert [n for n, _ in calls] == [4, 2]
    back, expected = read_trace(streamed), read_trace(whole)
    pd.testing.assert_frame_equal(back, expected)
    assert sum(rows for _, rows in calls) == len(back)
    assert back.attrs["samsim"] == expected.attrs["samsim"]
    assert back.attrs["samsim"]["games"] == ids
    if suffix == ".jsonl":
        assert streamed.read_bytes() == whole.read_bytes()
    assert replay_check(streamed, [5, 40]) > 0
    assert sorted(p.name for p in tmp_path.iterdir()) == sorted([streamed.name, whole.name])


def test_a_failed_stream_leaves_no_file(tmp_path):
    path = tmp_path / "trace.parquet"

    def stop(n, frame):
        raise KeyboardInterrupt

    with pytest.raises(KeyboardInterrupt):
        write_games(PLAYERS, SEED, 6, DATA, path, chunk=2, progress=stop)
    assert list(tmp_path.iterdir()) == []  # neither the trace nor its temporary file


@pytest.mark.parametrize("bad", [{"players": 9}, {"seed": -1}, {"games": 0}, {"chunk": 0},
                                 {"path": "trace.csv"}])
def test_streaming_checks_its_arguments_first(bad, tmp_path):
    args = {"players": PLAYERS, "seed": SEED, "games": 2, "chunk": 1, "path": "trace.jsonl", **bad}
    with pytest.raises(ValueError):
        write_games(args["players"], args["seed"], args["games"], DATA, tmp_path / args["path"],
                    chunk=args["chunk"])
    assert list(tmp_path.iterdir()) == []


def _peak(path, games: int, chunk: int) -> int:
    import tracemalloc

    tracemalloc.start()
    try:
        write_games(PLAYERS, SEED, games, DATA, path, chunk=chunk)
        return tracemalloc.get_traced_memory()[1]
    finally:
        tracemalloc.stop()


@pytest.mark.parametrize("suffix", [".jsonl", ".parquet"])
def test_trace_memory_flat(suffix, tmp_path, monkeypatch):
    """Writing 4x the games with the same chunk size must not need 4x the memory (tracemalloc
    sees numpy's arrays and every Python string of the text column; holding every game, as
    ``write_trace(trace_games(...))`` does, measures about 4x here)."""
    monkeypatch.setattr(trace, "_BATCH", 4)  # the kernel's event buffer: small, so n can be
    n, chunk = 16, 4
    path = tmp_path / f"trace{suffix}"
    _peak(path, chunk, chunk)  # imports and first-use caches, outside the measurement
    small, large = _peak(path, n, chunk), _peak(path, 4 * n, chunk)
    assert large < 1.5 * small + 2**20, (small, large)
    assert read_trace(path)["game"].nunique() == 4 * n  # the large run did write its games


def test_event_text_names_tiles_in_english():
    """Tile kinds read as words with the right article, never as data-file keys: "an extra room
    tile", not "a extra_room"."""
    import re

    df = pd.concat([trace_games(players, SEED, games=6, data=DATA) for players in (3, 6)])
    text = df["text"]
    assert not text.str.contains(r"\ba [aeiou]").any(), text[text.str.contains(r"\ba [aeiou]")]
    assert not text.str.contains(r"\b[a-z]+_[a-z]+").any()  # extra_room, send_home as keys
    tiles = text[df["kind"].isin(["REVEAL", "BUY"])]
    assert tiles.str.contains("an extra room tile").any()
    assert tiles.str.contains(r"\ba (?:suite|pool|switch|send home|recall) tile").any()
    for line in tiles:
        assert re.search(r"\ban? [a-z ]+ tile\b", line), line
