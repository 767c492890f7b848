"""The installed ``samsim`` command, run as a user runs it: in a subprocess.

Running the real console script (not typer's test runner) is what catches a broken entry point, a
missing dependency or a traceback escaping to the terminal. Every bad input must end in exactly one
line on stderr and exit code 2.
"""

import json
import shutil
import subprocess
import sys
from pathlib import Path

import pandas as pd
import pytest

import samsim
from samsim import components, engine, results
from samsim.trace import replay_check

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


@pytest.mark.parametrize("args", [["--help"], ["simulate", "--help"], ["trace", "--help"], []],
                         ids=["samsim", "simulate", "trace", "bare"])
def test_help_shows_an_example(args):
    done = run(*args)
    assert done.returncode == 0, done.stderr
    assert "Example: samsim " in done.stdout


def test_version():
    done = run("--version")
    assert done.returncode == 0
    assert done.stdout.strip() == f"samsim {samsim.__version__}"


# ------------------------------------------------------------------------------------- simulate


def test_simulate_prints_the_seat_table_and_writes_results(tmp_path):
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

    df = results.read_parquet(tmp_path / "run" / results.RESULTS_FILE)
    pd.testing.assert_frame_equal(df, engine.simulate(600, 3, 5, DATA))
    meta = df.attrs["samsim"]
    assert (meta["games"], meta["players"], meta["seed"]) == (600, 3, 5)
    assert meta["data_sha256"] == DATA.sha256
    assert meta["samsim_version"] == samsim.__version__


def test_simulate_with_a_rules_variant(tmp_path):
    variant = _variant(tmp_path, "starting_money = 25", "starting_money = 40")
    done = run("simulate", "--players", 4, "--games", 200, "--rules", variant, "--out", tmp_path)
    assert done.returncode == 0, done.stderr
    meta = results.read_metadata(tmp_path / results.RESULTS_FILE)
    assert meta["data_sha256"] == components.load(variant).sha256 != DATA.sha256


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
    df = results.read_parquet(tmp_path / "run" / results.RESULTS_FILE)
    assert df.attrs["samsim"]["strategies"] == ["lookahead", "greedy", "undercut(margin=2)", "random"]
    again = engine.simulate(300, 4, 3, DATA, strategies=["lookahead", "greedy", "undercut(margin=2)",
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
}


def _write(path: Path, text: str) -> Path:
    path.write_text(text, encoding="utf-8")
    return path


@pytest.mark.parametrize("case", sorted(BAD_INPUTS))
def test_bad_input_is_one_line_and_exit_2(case, tmp_path):
    done = run(*BAD_INPUTS[case](tmp_path), cwd=tmp_path)
    assert done.returncode == 2, (done.stdout, done.stderr)
    assert "Traceback" not in done.stderr
    lines = done.stderr.splitlines()
    assert len(lines) == 1 and lines[0].startswith("samsim: error: "), done.stderr
    assert done.stdout == ""
    assert not (tmp_path / "results.parquet").exists()
