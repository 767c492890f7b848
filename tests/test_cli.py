"""The installed ``samsim`` command, run as a user runs it: in a subprocess.

Running the real console script (not typer's test runner) is what catches a broken entry point, a
missing dependency or a traceback escaping to the terminal. Every bad input must end in exactly one
line on stderr and exit code 2.
"""

import json
import os
import re
import shutil
import signal
import subprocess
import sys
import time
from pathlib import Path

import pandas as pd
import pytest

import samsim
from samsim import components, engine
from samsim.engine.designs import pool_design
from samsim.kernel.events import KIND_NAMES
from samsim.runs import results
from samsim.runs.simulate import simulate
from samsim.runs.trace import replay_check
from samsim.stats.tally import tally

DATA = components.load()
#: The first command of a fresh install compiles the kernel (about a minute on a small machine).
TIMEOUT = 900


def _samsim_command() -> str:
    beside = Path(sys.executable).with_name("samsim")
    found = str(beside) if beside.exists() else shutil.which("samsim")
    if found is None:
        pytest.fail("the samsim command is not installed (pip install '.[test]')")
    return found


SAMSIM = _samsim_command()


def run(*args, cwd=None) -> subprocess.CompletedProcess:
    return subprocess.run([SAMSIM, *map(str, args)], capture_output=True, text=True,
                          timeout=TIMEOUT, cwd=cwd, stdin=subprocess.DEVNULL)


def _variant(tmp_path: Path, old: str, new: str) -> Path:
    text = components.default_data_path().read_text(encoding="utf-8")
    assert old in text
    path = tmp_path / "variant.toml"
    path.write_text(text.replace(old, new), encoding="utf-8")
    return path


def test_tests_import_the_installed_package():
    """conftest.py keeps ``python -m pytest`` (run from the checkout) on the installed package;
    only an editable install may resolve to the checkout itself."""
    from importlib import metadata

    # Every copy of samsim's metadata: a build leaves a samsim.egg-info in the checkout too.
    urls = [d.read_text("direct_url.json") for d in metadata.distributions(name="samsim")]
    installed = [json.loads(u) for u in urls if u]
    if not installed:  # deliberate: running the tests from a checkout without installing samsim
        pytest.skip("samsim is not installed by pip: nothing to check")
    editable = any(u.get("dir_info", {}).get("editable") for u in installed)
    checkout = Path(__file__).resolve().parent.parent
    assert (checkout in Path(samsim.__file__).resolve().parents) == editable, samsim.__file__


# ----------------------------------------------------------------------------------------- help

COMMANDS = ["simulate", "report", "compare", "balance", "play", "strategies", "bench", "run", "trace"]


@pytest.mark.parametrize("args", [["--help"], *([c, "--help"] for c in COMMANDS), []],
                         ids=["samsim", *COMMANDS, "bare"])
def test_help_shows_an_example(args):
    done = run(*args)
    assert done.returncode == 0, done.stderr
    assert "Example: samsim " in done.stdout
    if not args or args == ["--help"]:
        for command in COMMANDS:
            assert command in done.stdout


def test_version():
    done = run("--version")
    assert done.returncode == 0
    assert done.stdout.strip() == f"samsim {samsim.__version__}"


# ------------------------------------------------------------------------------------- simulate


def test_simulate_prints_the_summary_and_writes_a_run_folder(tmp_path):
    done = run("simulate", "--players", 3, "--games", 600, "--seed", 5, "--chunk-size", 256,
               "--threads", 1, "--out", tmp_path / "run")
    assert done.returncode == 0, done.stderr
    assert "Traceback" not in done.stderr
    lines = done.stdout.splitlines()
    assert any(line.split()[:2] == ["seat", "games"] for line in lines), done.stdout
    seat_rows = [line.split() for line in lines if line.split()[:2] in (["0", "600"], ["1", "600"],
                                                                        ["2", "600"])]
    assert len(seat_rows) == 3, done.stdout
    assert "hotel_samoa.toml" in done.stdout and "assumed" in done.stdout

    df = samsim.load(tmp_path / "run")
    pd.testing.assert_frame_equal(df, simulate(600, 3, 5, DATA))
    meta = df.attrs["samsim"]
    assert (meta["games"], meta["players"], meta["seed"], meta["complete"]) == (600, 3, 5, True)
    assert meta["data_sha256"] == DATA.sha256
    assert meta["samsim_version"] == samsim.__version__
    assert len(list((tmp_path / "run" / "results").glob("*.parquet"))) == 3


def test_simulate_with_a_rules_variant(tmp_path):
    variant = _variant(tmp_path, "starting_money = 25", "starting_money = 40")
    done = run("simulate", "--players", 4, "--games", 200, "--rules", variant, "--out",
               tmp_path / "run")
    assert done.returncode == 0, done.stderr
    meta = samsim.load(tmp_path / "run").attrs["samsim"]
    assert meta["data_sha256"] == components.load(variant).sha256 != DATA.sha256


def test_simulate_a_pool_then_report_it(tmp_path):
    pool = "greedy,undercut,saver,holiday,random"
    done = run("simulate", "--players", 4, "--games", 998, "--seed", 3, "--pool", pool,
               "--record", "rounds", "--out", tmp_path / "run")
    assert done.returncode == 0, done.stderr
    assert "games rounded up to 1,080" in done.stderr
    df = samsim.load(tmp_path / "run")
    seats = pool_design(4, pool.split(","))
    pd.testing.assert_frame_equal(df, simulate(1080, 4, 3, DATA, strategies=seats))
    counts = df.groupby(["strategy", "seat"], observed=True).size()
    assert (counts == 216).all() and len(counts) == 5 * 4
    for name in pool.split(","):
        assert any(line.split()[:2] == [name, "864"] for line in done.stdout.splitlines()), name
    assert "every two strategies met in 648 games" in done.stdout

    shown = run("report", tmp_path / "run", "--out", tmp_path / "report")
    assert shown.returncode == 0, shown.stderr
    summary = tally(df).summary(("players", "strategy"))
    for (_, name), row in summary.iterrows():
        line = next(l.split() for l in shown.stdout.splitlines() if l.split()[:1] == [name])
        assert line[1] == f"{int(row['games']):,}" and line[3] == f"{row['win_rate']:.2%}"
    for file in ("report.md", "win_rate_by_seat.png", "score_by_strategy.png", "money_by_round.png"):
        assert (tmp_path / "report" / file).stat().st_size > 0, file
    md = (tmp_path / "report" / "report.md").read_text(encoding="utf-8")
    assert "## 4 players" in md and "seed 3" in md and "![win rate by seat]" in md


def test_report_of_several_runs_and_player_counts(tmp_path):
    for players in (3, 5):
        done = run("simulate", "--players", players, "--games", 120, "--strategies", "greedy",
                   "--out", tmp_path / f"p{players}")
        assert done.returncode == 0, done.stderr
    shown = run("report", tmp_path / "p3", tmp_path / "p5")
    assert shown.returncode == 0, shown.stderr
    assert "3 players: 120 games" in shown.stdout and "5 players: 120 games" in shown.stdout


# ------------------------------------------------------------------------------ killed and resumed

KILLED_GAMES = 15_000
KILL_ARGS = ["simulate", "--players", 4, "--games", KILLED_GAMES, "--seed", 11, "--chunk-size", 1000,
             "--threads", 1, "--record", "rounds"]


@pytest.fixture(scope="module")
def uninterrupted(tmp_path_factory):
    out = tmp_path_factory.mktemp("whole")
    results.run_simulation(KILLED_GAMES, 4, 11, DATA, chunk_size=1000, out=out, record=("rounds",))
    return out


#: Ctrl-C in CI; the other two signals take the same path to the same files (slow checks).
@pytest.mark.parametrize("sig", [
    pytest.param(signal.SIGINT, id="ctrl-c"),
    pytest.param(signal.SIGTERM, id="sigterm", marks=pytest.mark.slow),
    pytest.param(signal.SIGKILL, id="sigkill", marks=pytest.mark.slow)])
def test_a_killed_run_resumes_to_the_uninterrupted_result(sig, tmp_path, uninterrupted):
    out = tmp_path / "run"
    args = [*map(str, KILL_ARGS), "--out", str(out)]
    # A shell starts background jobs with SIGINT ignored, and children inherit that: restore it,
    # as a terminal's Ctrl-C finds it.
    proc = subprocess.Popen([SAMSIM, *args], stdout=subprocess.PIPE, stderr=subprocess.PIPE,
                            text=True, stdin=subprocess.DEVNULL,
                            preexec_fn=lambda: signal.signal(signal.SIGINT, signal.SIG_DFL))
    deadline = time.monotonic() + TIMEOUT
    while len(list((out / "results").glob("*.parquet"))) < 3:
        assert proc.poll() is None and time.monotonic() < deadline, proc.communicate()
        time.sleep(0.02)
    proc.send_signal(sig)
    _, stderr = proc.communicate(timeout=120)
    kept = results.run_metadata(out)["games_found"]
    assert 3000 <= kept < KILLED_GAMES, f"the run must be killed mid-way: {kept}, {stderr}"
    if sig == signal.SIGKILL:
        assert proc.returncode == -signal.SIGKILL
    else:
        assert proc.returncode == 130, stderr
        assert "Traceback" not in stderr
        assert f"interrupted after {kept:,} of {KILLED_GAMES:,} games" in stderr, stderr
        assert "add --resume to the same command" in stderr, stderr

    done = run(*args, "--resume")
    assert done.returncode == 0, done.stderr
    assert not list((out / "results").glob(".*"))
    for table in ("results", "rounds"):  # the same games, whatever chunks they came in
        df = samsim.load(out, table)
        assert df.attrs["samsim"]["complete"]
        pd.testing.assert_frame_equal(df, samsim.load(uninterrupted, table))


_PEAK = """
import atexit, resource, sys
atexit.register(lambda: print("peak", resource.getrusage(resource.RUSAGE_SELF).ru_maxrss,
                              file=sys.stderr))
from samsim.cli import app
app(sys.argv[1:])
"""


def _peak_kib(cwd: Path, *args) -> int:
    # Run from cwd, not the checkout: `python -c` puts its working folder first on sys.path, and
    # from the repository root that would import (and compile) the checkout, not the install.
    done = subprocess.run([sys.executable, "-c", _PEAK, *map(str, args)], capture_output=True,
                          text=True, timeout=TIMEOUT, stdin=subprocess.DEVNULL, cwd=cwd)
    assert done.returncode == 0, done.stderr
    return int(done.stderr.split("peak")[-1].split()[0])


def test_memory_is_bounded_by_the_chunk_size_not_the_games(tmp_path):
    """Ten times the games (written to disk, summarised) in the memory of one chunk's worth
    (small chunks, so that 200,000 games are 49 of them): the benchmark
    benchmarks/bench_memory.py measures 100,000 against 10 million at the default chunk size."""
    chunks = ("--chunk-size", 4096)
    small = _peak_kib(tmp_path, "simulate", "--games", 20_000, *chunks, "--out", tmp_path / "small")
    large = _peak_kib(tmp_path, "simulate", "--games", 200_000, *chunks, "--out", tmp_path / "large")
    assert len(samsim.load(tmp_path / "large")) == 800_000
    assert large <= small * 1.10 + 20_000, (small, large)


# --------------------------------------------------------------------------- play, strategies, ...


def test_play_narrates_one_game_of_a_run():
    done = run("play", "--seed", 7, "--game", 3, "--strategies", "greedy,undercut,holiday,saver")
    assert done.returncode == 0, done.stderr
    out = done.stdout
    assert out.splitlines()[1].startswith("Game 3 of seed 7, 4 players: seat 0 greedy")
    for rnd in range(1, 13):
        assert f"Round {rnd}: " in out
    assert "Round 6: " in out and "(double round)" in out
    assert "plays" in out and "hosts" in out and "money: seat 0" in out
    final = simulate(4, 4, 7, DATA, strategies=["greedy", "undercut", "holiday", "saver"])
    winner = final[(final["game"] == 3) & (final["rank"] == 1)].iloc[0]
    assert f"1. seat {winner['seat']} {winner['strategy']}: score {winner['score']}" in out


def test_play_json_is_the_games_trace():
    done = run("play", "--seed", 5, "--players", 3, "--json")
    assert done.returncode == 0, done.stderr
    doc = json.loads(done.stdout)
    assert doc["samsim"]["seed"] == 5 and doc["samsim"]["players"] == 3
    events = [tuple(e[k] for k in ("round", "kind", "seat", "a", "b", "c", "d"))
              for e in doc["events"]]
    expected = engine.play_game(DATA, 3, 5, 0, log=True).events
    assert [(r, KIND_NAMES[k], s, a, b, c, d) for r, k, s, a, b, c, d in expected] == events
    assert [f["money"] for f in doc["final"]] == simulate(1, 3, 5, DATA)["money"].tolist()
    assert len(doc["rounds"]) == 3 * 12


def test_strategies_lists_every_strategy_with_its_parameters():
    from samsim.engine.registry import available, load_strategy

    done = run("strategies")
    assert done.returncode == 0, done.stderr
    text = " ".join(done.stdout.split())
    for name in available():
        info = load_strategy(name)
        assert name in text
        for param, default in info.defaults.items():
            assert f"{param}={default:g}" in text, (name, param)


def test_bench_prints_both_tables(tmp_path):
    done = run("bench", "--games", 2000, "--reference-games", 3, "--markdown", tmp_path / "b.md")
    assert done.returncode == 0, done.stderr
    assert "games/s, 1 thread" in done.stdout and "speed-up" in done.stdout
    assert "efficiency" in done.stdout and "machine:" in done.stdout
    md = (tmp_path / "b.md").read_text(encoding="utf-8")
    assert md.count("\n| 3 |") + md.count("\n| 4 |") >= 2


def test_run_an_experiment_file(tmp_path):
    exp = tmp_path / "mini.toml"
    exp.write_text('description = "a small test"\nplayers = [3, 4]\ngames = 100\nseed = 3\n'
                   'pool = ["greedy", "saver", "fixed"]\nrecord = ["rounds"]\n', encoding="utf-8")
    done = run("run", exp, "--results", tmp_path / "results")
    assert done.returncode == 0, done.stderr
    assert "a small test" in done.stdout
    for players, games in ((3, 102), (4, 108)):  # whole passes: 6 and 36 seatings
        df = samsim.load(tmp_path / "results" / "mini" / f"{players}p")
        assert df["game"].nunique() == games and df.attrs["samsim"]["seed"] == 3
    report = tmp_path / "results" / "mini" / "report"
    assert {p.name for p in report.iterdir()} >= {"report.md", "money_by_round.png"}
    again = run("run", exp, "--results", tmp_path / "results")
    assert again.returncode == 2 and "--resume" in again.stderr
    resumed = run("run", exp, "--results", tmp_path / "results", "--resume")
    assert resumed.returncode == 0, resumed.stderr


EXPERIMENTS = {
    "bal": 'kind = "balance"\nplayers = [3, 4]\ngames = 300\nseed = 4\nstrategy = "fixed"\n',
    "cmp": ('kind = "compare"\nplayers = 4\ngames = 2400\nseed = 4\nfield = "fixed"\n'
            'strategies = ["undercut", "saver", "greedy"]\n'),
    "seq": ('kind = "compare"\nplayers = 3\ngames = 24000\nseed = 4\nsequential = true\n'
            'batch_games = 1200\nstrategies = ["undercut", "saver"]\n'),
    "sens": ('kind = "sensitivity"\nplayers = 4\ngames = 1200\nbalance_games = 300\nseed = 4\n'
             'strategies = ["undercut", "saver"]\nvariants = ["flat.toml"]\n'),
}
REPORTS = {"bal": "balance.md", "cmp": "compare.md", "seq": "compare.md",
           "sens": "sensitivity.md"}


#: The sequential and sensitivity kinds have fast tests of their own (test_compare,
#: test_sensitivity); their runs from a file are slow checks.
@pytest.mark.parametrize("name", [pytest.param(k, marks=pytest.mark.slow) if k in ("seq", "sens")
                                  else k for k in sorted(EXPERIMENTS)])
def test_every_kind_of_experiment_reports_and_reproduces(name, tmp_path):
    """Each kind runs from its file, writes a report that names its seed, data file and samsim
    version, and running the file again gives the same report, byte for byte."""
    exp = tmp_path / f"{name}.toml"
    exp.write_text(EXPERIMENTS[name], encoding="utf-8")
    _variant(tmp_path, "prices = [3, 4, 5, 6, 7, 9, 8, 10, 11, 12]",
             "prices = [4, 4, 5, 5, 6, 6, 7, 7, 8, 8]").rename(tmp_path / "flat.toml")
    texts = []
    for attempt in ("first", "again"):
        done = run("run", exp, "--results", tmp_path / attempt)
        assert done.returncode == 0, done.stderr
        report = tmp_path / attempt / name / "report" / REPORTS[name]
        texts.append(report.read_text(encoding="utf-8"))
        assert {p.suffix for p in report.parent.iterdir()} >= {".md", ".png"}
    assert texts[0] == texts[1]
    assert "seed 4" in texts[0] and "sha256" in texts[0] and samsim.__version__ in texts[0]


def test_the_committed_experiments_are_valid():
    from samsim.runs import experiment

    found = sorted((Path(__file__).parent.parent / "experiments").glob("*.toml"))
    assert found
    for path in found:
        experiment.load(path)


# ---------------------------------------------------------------------------------------- trace


def test_trace_prints_the_first_game_and_writes_the_file(tmp_path):
    out = tmp_path / "trace.jsonl"
    done = run("trace", "--players", 4, "--seed", 7, "--games", 2, "--out", out)
    assert done.returncode == 0, done.stderr
    expected = engine.play_game(DATA, 4, 7, 0, log=True).events
    lines = done.stdout.splitlines()
    assert lines[0] == f"game 0 of seed 7, 4 players: {len(expected)} events"
    assert len(lines) == 1 + len(expected)
    assert lines[1].startswith("round 1: the flag is ")
    assert lines[-1].startswith("end of game: seat 3 has ")
    header, *rows = [json.loads(line) for line in out.read_text(encoding="utf-8").splitlines()]
    assert header["samsim"]["seed"] == 7 and header["samsim"]["players"] == 4
    assert {row["game"] for row in rows} == {0, 1}
    assert [row["text"] for row in rows if row["game"] == 0] == lines[1:]


def test_trace_parquet_replays(tmp_path):
    out = tmp_path / "trace.parquet"
    done = run("trace", "--players", 5, "--seed", 123, "--start", 40, "--out", out)
    assert done.returncode == 0, done.stderr
    assert done.stdout.startswith("game 40 of seed 123, 5 players")
    assert replay_check(out) > 0


def test_simulate_with_strategies_per_seat(tmp_path):
    specs = "lookahead,greedy,undercut(margin=2),random"
    done = run("simulate", "--players", 4, "--games", 300, "--seed", 3, "--strategies", specs,
               "--out", tmp_path / "run")
    assert done.returncode == 0, done.stderr
    assert "lookahead, greedy, undercut(margin=2), random" in " ".join(done.stdout.split())
    df = samsim.load(tmp_path / "run")
    assert df.attrs["samsim"]["seatings"] == [["lookahead", "greedy", "undercut(margin=2)", "random"]]
    again = simulate(300, 4, 3, DATA, strategies=["lookahead", "greedy", "undercut(margin=2)",
                                                         "random"])
    pd.testing.assert_frame_equal(df, again)


# ------------------------------------------------------------------------------------ bad input


def _blocked(tmp_path: Path) -> Path:
    """A path no one can create, root included: its parent is a plain file."""
    blocker = tmp_path / "plain-file"
    blocker.write_text("")
    return blocker / "sub"


BAD_INPUTS = {
    "players_too_few": lambda t: ["simulate", "--players", 2],
    "players_too_many": lambda t: ["simulate", "--players", 7],
    "players_outside_variant": lambda t: [
        "simulate", "--players", 6, "--rules", _variant(t, "max_players = 6", "max_players = 5")],
    "players_not_a_number": lambda t: ["simulate", "--players", "four"],
    "games_zero": lambda t: ["simulate", "--games", 0],
    "games_negative": lambda t: ["simulate", "--games", -5],
    "seed_negative": lambda t: ["simulate", "--seed", -1],
    "threads_zero": lambda t: ["simulate", "--threads", 0],
    "chunk_size_zero": lambda t: ["simulate", "--chunk-size", 0],
    "rules_missing": lambda t: ["simulate", "--rules", t / "nowhere.toml"],
    "rules_not_toml": lambda t: ["simulate", "--rules", _write(t / "bad.toml", "[game\nrounds=")],
    "rules_invalid": lambda t: ["simulate", "--rules", _variant(t, "rounds = 12", "rounds = 0")],
    "rules_is_a_folder": lambda t: ["simulate", "--rules", t],
    "out_unwritable": lambda t: ["simulate", "--games", 10, "--out", _blocked(t)],
    "unknown_option": lambda t: ["simulate", "--player", 4],
    "strategy_unknown": lambda t: ["simulate", "--strategies", "greedy,nosuch,random,random"],
    "strategy_count": lambda t: ["simulate", "--strategies", "greedy,random"],
    "strategy_param": lambda t: ["simulate", "--strategies", "undercut(margn=2)"],
    "strategy_syntax": lambda t: ["simulate", "--strategies", "undercut(margin=2"],
    "unknown_command": lambda t: ["simulat"],
    "trace_players": lambda t: ["trace", "--players", 9],
    "trace_games_zero": lambda t: ["trace", "--games", 0],
    "trace_seed_negative": lambda t: ["trace", "--seed", -3],
    "trace_start_negative": lambda t: ["trace", "--start", -1],
    "trace_suffix": lambda t: ["trace", "--out", t / "trace.csv"],
    "trace_out_unwritable": lambda t: ["trace", "--out", _blocked(t) / "trace.jsonl"],
    "trace_rules_invalid": lambda t: ["trace", "--rules", _variant(t, "[chips]", "[chip]")],
    "pool_and_strategies": lambda t: ["simulate", "--strategies", "greedy", "--pool", "greedy,saver"],
    "pool_unknown": lambda t: ["simulate", "--pool", "greedy,nosuch"],
    "pool_empty_item": lambda t: ["simulate", "--pool", "greedy,,saver"],
    "resume_without_out": lambda t: ["simulate", "--resume"],
    "resume_and_overwrite": lambda t: ["simulate", "--out", t / "r", "--resume", "--overwrite"],
    "record_unknown": lambda t: ["simulate", "--record", "moves"],
    "out_holds_a_run": lambda t: ["simulate", "--games", 10, "--out", _fake_run(t)],
    "out_holds_another_run": lambda t: ["simulate", "--games", 10, "--out", _fake_run(t), "--resume"],
    "out_is_foreign": lambda t: ["simulate", "--games", 10, "--overwrite", "--out",
                                 _write(t / "mine" / "notes.txt", "x").parent],
    "out_is_a_file": lambda t: ["simulate", "--games", 10, "--out", _write(t / "f", "")],
    "report_nothing": lambda t: ["report"],
    "report_missing": lambda t: ["report", t / "nowhere"],
    "report_corrupt": lambda t: ["report", _write(t / "c.parquet", "PAR1 not really")],
    "report_foreign": lambda t: ["report", _foreign(t / "f.parquet")],
    "report_empty_folder": lambda t: ["report", _write(t / "e" / "x.txt", "").parent],
    "report_out_unwritable": lambda t: ["report", _foreign(t / "f.parquet"), "--out", _blocked(t)],
    "play_players": lambda t: ["play", "--players", 8],
    "play_game_negative": lambda t: ["play", "--game", -1],
    "play_strategy": lambda t: ["play", "--strategies", "nosuch"],
    "play_seed": lambda t: ["play", "--seed", 2**64],
    "bench_games_zero": lambda t: ["bench", "--games", 0],
    "bench_markdown_unwritable": lambda t: ["bench", "--markdown", _blocked(t) / "b.md"],
    "run_missing": lambda t: ["run", t / "nowhere.toml"],
    "run_not_toml_file": lambda t: ["run", _write(t / "x.yaml", "games: 3")],
    "run_bad_toml": lambda t: ["run", _write(t / "x.toml", "games = ")],
    "run_unknown_key": lambda t: ["run", _write(t / "x.toml", "games = 5\ngamez = 5\n")],
    "run_no_games": lambda t: ["run", _write(t / "x.toml", "seed = 5\n")],
    "run_players": lambda t: ["run", _write(t / "x.toml", "games = 5\nplayers = [4, 7]\n")],
    "run_strategy": lambda t: ["run", _write(t / "x.toml", "games = 5\npool = [\"nosuch\"]\n")],
    "run_pool_twice": lambda t: ["run", _write(t / "x.toml", "games = 5\npool = [\"greedy\", \"greedy\"]\n")],
    "run_record_text": lambda t: ["run", _write(t / "x.toml", "games = 5\nrecord = \"rounds\"\n")],
    "pool_twice": lambda t: ["simulate", "--pool", "greedy,saver,greedy(tile_scale=1)"],
    "run_rules_missing": lambda t: ["run", _write(t / "x.toml", "games = 5\nrules = \"no.toml\"\n")],
    "run_kind": lambda t: ["run", _write(t / "x.toml", "games = 5\nkind = \"tournament\"\n")],
    "run_key_of_other_kind": lambda t: ["run", _write(t / "x.toml", "games = 5\nfield = \"greedy\"\n")],
    "run_compare_one": lambda t: ["run", _write(t / "x.toml", "kind = \"compare\"\ngames = 5\n"
                                                            "strategies = [\"greedy\"]\n")],
    "run_compare_unknown": lambda t: ["run", _write(t / "x.toml", "kind = \"compare\"\ngames = 5\n"
                                                                "strategies = [\"greedy\", \"nosuch\"]\n")],
    "run_sequential_text": lambda t: ["run", _write(t / "x.toml", "kind = \"compare\"\ngames = 5\n"
                                                                "sequential = \"yes\"\n"
                                                                "strategies = [\"greedy\", \"saver\"]\n")],
    "run_variant_missing": lambda t: ["run", _write(t / "x.toml", "kind = \"sensitivity\"\ngames = 5\n"
                                                                "strategies = [\"greedy\", \"saver\"]\n"
                                                                "variants = [\"no.toml\"]\n")],
    "balance_players": lambda t: ["balance", "--players", "3,7"],
    "balance_players_text": lambda t: ["balance", "--players", "three"],
    "balance_players_twice": lambda t: ["balance", "--players", "3,4,3"],
    "balance_games_zero": lambda t: ["balance", "--games", 0],
    "balance_strategy": lambda t: ["balance", "--strategy", "nosuch"],
    "balance_pool": lambda t: ["balance", "--pool", "greedy,,saver"],
    "balance_resume_without_out": lambda t: ["balance", "--resume"],
    "balance_out_unwritable": lambda t: ["balance", "--out", _blocked(t)],
    "compare_one": lambda t: ["compare", "greedy"],
    "compare_unknown": lambda t: ["compare", "greedy", "nosuch"],
    "compare_field_unknown": lambda t: ["compare", "greedy", "saver", "--field", "nosuch"],
    "compare_players": lambda t: ["compare", "greedy", "saver", "--players", 7],
    "compare_games_zero": lambda t: ["compare", "greedy", "saver", "--games", 0],
    "compare_margin": lambda t: ["compare", "greedy", "saver", "--margin", 0],
    "compare_deals": lambda t: ["compare", "greedy", "saver", "--deals", "shuffled"],
    "compare_seatings": lambda t: ["compare", "greedy", "saver", "--seatings", "some"],
    "compare_out_unwritable": lambda t: ["compare", "greedy", "saver", "--out", _blocked(t)],
    "compare_rules_invalid": lambda t: ["compare", "greedy", "saver", "--rules",
                                        _variant(t, "rounds = 12", "rounds = 0")],
}


def _fake_run(tmp_path: Path) -> Path:
    """A run folder of another run (seed 99) that was interrupted."""
    folder = tmp_path / "run"
    folder.mkdir()
    _write(folder / results.RUN_FILE, json.dumps({"samsim": {"seed": 99}, "complete": False}))
    return folder


def _foreign(path: Path) -> Path:
    import pyarrow as pa
    import pyarrow.parquet as pq

    pq.write_table(pa.table({"x": [1, 2, 3]}), path)
    return path


def _write(path: Path, text: str) -> Path:
    path.parent.mkdir(parents=True, exist_ok=True)
    path.write_text(text, encoding="utf-8")
    return path


def run_here(*args, cwd: Path) -> subprocess.CompletedProcess:
    """``run``, in this process: the same command-line code, without a second of Python start-up
    per case (the tests above run the installed command itself)."""
    import contextlib
    import io

    from samsim.cli import app

    out, err = io.StringIO(), io.StringIO()
    before = Path.cwd()
    os.chdir(cwd)
    try:
        with contextlib.redirect_stdout(out), contextlib.redirect_stderr(err):
            try:
                app([*map(str, args)])
                code = 0
            except SystemExit as stop:
                code = stop.code
    finally:
        os.chdir(before)
    return subprocess.CompletedProcess(args, code, out.getvalue(), err.getvalue())


@pytest.mark.parametrize("case", sorted(BAD_INPUTS))
def test_bad_input_is_one_line_and_exit_2(case, tmp_path):
    done = run_here(*BAD_INPUTS[case](tmp_path), cwd=tmp_path)
    assert done.returncode == 2, (done.stdout, done.stderr)
    assert "Traceback" not in done.stderr
    lines = done.stderr.splitlines()
    assert len(lines) == 1 and lines[0].startswith("samsim: error: "), done.stderr
    assert done.stdout == ""
    assert not list(tmp_path.rglob("*-*.parquet"))  # no chunk was written


def test_a_chunk_too_large_for_memory_is_one_line_and_exit_2(tmp_path, monkeypatch):
    """numpy's MemoryError, as on a machine without the memory for --chunk-size's games."""
    from samsim.engine import play

    def allocate(comp, games, *args, **kwargs):
        if games > 1000:
            raise MemoryError(f"cannot allocate {games} games")
        return real(comp, games, *args, **kwargs)

    real = play.allocate
    monkeypatch.setattr(play, "allocate", allocate)
    done = run_here("simulate", "--games", 5000, "--chunk-size", 5000, "--strategies", "random",
                    cwd=tmp_path)
    assert done.returncode == 2 and len(done.stderr.split()) > 1, done.stderr
    assert done.stderr.strip().count("\n") == 0, done.stderr  # the bar leaves a blank line
    assert re.search(r"a chunk of 5,000 games needs \d+ MiB .*--chunk-size", done.stderr)


def test_a_chunk_over_half_the_memory_is_refused_before_it_is_allocated(tmp_path, monkeypatch):
    """A system that overcommits memory does not raise MemoryError: it kills the process later
    (a user's 1e9-game chunk reached 16 GB). So a chunk over half the memory is refused first."""
    from samsim.engine import play

    monkeypatch.setattr(play, "physical_memory", lambda: 20 << 20)  # 20 MiB
    done = run_here("simulate", "--games", 5000, "--chunk-size", 5000, "--strategies", "random",
                    cwd=tmp_path)
    assert done.returncode == 2 and done.stderr.strip().count("\n") == 0, done.stderr
    assert re.search(r"a chunk of 5,000 games needs \d+ MiB .*half of its 0 GiB.*--chunk-size",
                     done.stderr), done.stderr


# ------------------------------------------------------------------------------ stopping


def _start(args, cwd=None) -> subprocess.Popen:
    # A shell starts background jobs with SIGINT ignored, and children inherit that: restore it,
    # as a terminal's Ctrl-C finds it.
    return subprocess.Popen([SAMSIM, *map(str, args)], stdout=subprocess.PIPE,
                            stderr=subprocess.PIPE, text=True, stdin=subprocess.DEVNULL, cwd=cwd,
                            preexec_fn=lambda: signal.signal(signal.SIGINT, signal.SIG_DFL))


def _wait_for(path: Path, proc: subprocess.Popen) -> None:
    deadline = time.monotonic() + TIMEOUT
    while not path.exists():
        assert proc.poll() is None and time.monotonic() < deadline, proc.communicate()
        time.sleep(0.02)


def test_ctrl_c_stops_within_a_second_and_keeps_the_games_played(tmp_path):
    """Chunks of 100,000 lookahead games (a minute each): Ctrl-C after a few seconds of play
    ends the run within about a second, with the games played written, not thrown away."""
    assert run("simulate", "--games", 10, "--strategies", "lookahead").returncode == 0  # loaded
    out = tmp_path / "run"
    proc = _start(["simulate", "--games", 1_000_000, "--chunk-size", 100_000, "--strategies",
                   "lookahead", "--out", out])
    _wait_for(out / results.RUN_FILE, proc)
    time.sleep(4)
    proc.send_signal(signal.SIGINT)
    sent = time.monotonic()
    _, stderr = proc.communicate(timeout=60)
    took = time.monotonic() - sent
    assert proc.returncode == 130 and "Traceback" not in stderr, stderr
    assert took < 3, f"{took:.1f} s to stop"
    kept = results.run_metadata(out)["games_found"]
    assert kept > 0, stderr
    assert f"interrupted after {kept:,} of 1,000,000 games" in stderr


_STUCK = '''"""Never returns from its first price card (a bug a user could write)."""
from samsim.kernel.contract import decision

PARAMS = {"spin": 0.0}
LIMITS = {"spin": (0.0, 1.0)}


@decision
def card(comp, view, params, rng, out):
    k = 0
    while params[0] >= 0.0:  # always: the default is 0
        k += 1
    out[0] = k
'''


def test_a_strategy_stuck_in_a_loop_is_stopped_by_sigterm(tmp_path):
    """(Ctrl-C takes the same path: ``samsim.runs.interrupt`` handles both signals alike.)"""
    from samsim.engine.registry import load_strategy

    (tmp_path / "strategies").mkdir()
    (tmp_path / "strategies" / "stuck.py").write_text(_STUCK)
    load_strategy(str(tmp_path / "strategies" / "stuck.py")).addresses()  # compiled beforehand
    proc = _start(["simulate", "--games", 100, "--strategies", "stuck", "--out", "run"],
                  cwd=tmp_path)
    _wait_for(tmp_path / "run" / results.LOCK_FILE, proc)
    time.sleep(5)  # loaded, and spinning inside the kernel
    assert proc.poll() is None
    proc.send_signal(signal.SIGTERM)
    sent = time.monotonic()
    _, stderr = proc.communicate(timeout=60)
    assert proc.returncode == 130, stderr
    assert time.monotonic() - sent < 10
    assert "did not come back within 3 s" in stderr and "Traceback" not in stderr, stderr


# ------------------------------------------------------------------------------ refusals, output


@pytest.mark.parametrize("args, message", [
    (["simulate", "--strategies", ""], "--strategies: no strategy given"),
    (["simulate", "--games", 2**63], "games must be at most 9,223,372,036,854,775,807"),
    (["play", "--game", 2**63 - 1], "game ids are whole numbers 0..9,223,372,036,854,775,806"),
    (["balance", "--strategy", "greedy", "--pool", "greedy,saver"], "give one of --strategy"),
    (["report", "nowhere"], "nowhere does not exist"),
])
def test_refused_in_one_line(args, message, tmp_path):
    done = run_here(*args, cwd=tmp_path)
    assert done.returncode == 2, done.stderr
    assert done.stderr.count("\n") == 1 and message in done.stderr, done.stderr


def test_whole_runs_on_the_command_line(tmp_path):
    out = tmp_path / "my run"  # a space: suggested commands quote it
    done = run("simulate", "--games", 600, "--chunk-size", 200, "--strategies", "greedy",
               "--out", out)
    assert done.returncode == 0, done.stderr
    assert f"samsim report '{out}' --out '{out / 'report'}'" in done.stdout
    sorted((out / "results").glob("*.parquet"))[1].unlink()
    refused = run("report", out)
    assert refused.returncode == 2 and "400 of 600 games; missing 200-399" in refused.stderr
    shown = run("report", out, "--partial")
    assert shown.returncode == 0 and "PARTIAL: 400 of 600 games" in shown.stdout, shown.stderr
    twice = run("report", out, out, "--partial")
    assert twice.returncode == 2 and "the same run twice" in twice.stderr


def test_tables_written_to_a_pipe_are_not_cut(tmp_path):
    done = run("strategies")  # stdout is a pipe here
    assert done.returncode == 0
    assert max(len(line) for line in done.stdout.splitlines()) > 80
