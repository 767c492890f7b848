"""Playing on a Dask cluster: a real ``LocalCluster`` of two worker processes gives the folder a
single process writes, file for file, even when a worker is killed mid-run; resumes cross
between the two; a user's strategy reaches the workers by its source; a cluster with other
sources, or none at the address given, is refused in one line."""

import contextlib
import os
import shutil
import signal
import socket
import subprocess
import time
import warnings
from pathlib import Path

import numpy as np
import pandas as pd
import pytest

import samsim
from samsim import components, engine
from samsim.analysis import compare
from samsim.engine import cluster as clustering
from samsim.engine.designs import pool_design
from samsim.engine.lineup import unshipped
from samsim.runs import results
from test_cli import EXPERIMENTS, REPORTS, run_here

DATA = components.load()
LINEUP = ["greedy", "undercut", "saver", "random"]

USER_STRATEGY = '''"""Dear: plays its dearest card every round (a test strategy)."""
from samsim.kernel.contract import decision
from samsim.kernel.decisions import CARD
from samsim.kernel.moves import G, dearest_in_nb

PARAMS = {}
LIMITS = {}


@decision
def card(comp, view, params, rng, out):
    out[CARD] = dearest_in_nb(comp, view.hand[G, view.me])
    if out[CARD] < 0:
        out[CARD] = comp.holiday_card
'''


@pytest.fixture(scope="module")
def cluster():
    with engine.Cluster(workers=2, threads=1) as c:
        yield c


def _files(folder: Path) -> dict[str, bytes]:
    return {p.relative_to(folder).as_posix(): p.read_bytes() for p in sorted(folder.rglob("*"))
            if p.is_file() and p.name != results.LOCK_FILE}


def _same_folders(a: Path, b: Path) -> None:
    fa, fb = _files(a), _files(b)
    assert sorted(fa) == sorted(fb)
    assert [name for name in fa if fa[name] != fb[name]] == []


def _run(out, games=6000, chunk=500, seats=LINEUP, **kwargs):
    return results.run_simulation(games, 4, 3, DATA, chunk_size=chunk, out=out, strategies=seats,
                                  **kwargs)


@pytest.fixture(scope="module")
def threads_run(tmp_path_factory):
    out = tmp_path_factory.mktemp("threads") / "run"
    _run(out, record=("rounds",))
    return out


def test_a_dask_run_writes_the_folder_a_thread_run_writes(cluster, threads_run, tmp_path):
    tally = _run(tmp_path / "dask", record=("rounds",))
    _same_folders(threads_run, tmp_path / "dask")
    assert tally.n_games == 6000


def test_a_killed_worker_loses_and_duplicates_nothing(cluster, threads_run, tmp_path):
    client = cluster.client
    killed = []

    def kill_one_busy_worker(n):
        if killed:
            return
        busy = [w for w, keys in client.processing().items() if keys]
        if busy:
            pid = client.run(os.getpid, workers=busy[:1])[busy[0]]
            os.kill(pid, signal.SIGKILL)
            killed.append(pid)

    _run(tmp_path / "dask", progress=kill_one_busy_worker, record=("rounds",))
    assert killed, "no worker had a chunk in flight to lose"
    _same_folders(threads_run, tmp_path / "dask")
    client.wait_for_workers(2, timeout=60)  # the nanny starts another in its place
    assert killed[0] not in client.run(os.getpid).values()


class _Stop(KeyboardInterrupt):
    pass


def _stop_after(chunks: int):
    seen = []

    def progress(n):
        if n:
            seen.append(n)
        if len(seen) >= chunks:
            raise _Stop
    return progress


@pytest.mark.parametrize("first,then", [("dask", "threads"), ("threads", "dask")])
def test_resume_crosses_between_dask_and_threads(cluster, threads_run, tmp_path, first, then):
    out = tmp_path / "run"
    where = {"dask": contextlib.nullcontext, "threads": clustering.here}
    with where[first]():
        with pytest.raises(_Stop):
            _run(out, progress=_stop_after(3), record=("rounds",))
    kept = results.run_metadata(out)
    assert 0 < kept["games_found"] < 6000 and not kept["complete"]
    with where[then]():
        _run(out, resume=True, record=("rounds",))
    assert results.run_metadata(out)["complete"]
    for table in ("results", "rounds"):  # an interrupted thread run keeps a shorter last chunk
        pd.testing.assert_frame_equal(results.load(threads_run, table), results.load(out, table))


def test_a_user_strategy_reaches_workers_that_never_saw_its_file(cluster, tmp_path):
    folder = tmp_path / "mine"
    folder.mkdir()
    (folder / "dear.py").write_text(USER_STRATEGY)
    seats = pool_design(4, [str(folder / "dear.py"), "greedy", "random", "saver"])
    with clustering.here():
        _run(tmp_path / "threads", games=1200, chunk=300, seats=seats)
    shutil.move(folder, tmp_path / "moved")  # nowhere a worker (or the client) could find it
    _run(tmp_path / "dask", games=1200, chunk=300, seats=seats)
    _same_folders(tmp_path / "threads", tmp_path / "dask")
    assert "dear" in results.load(tmp_path / "dask")["strategy"].cat.categories


def test_compare_on_the_cluster_gives_the_same_answer(cluster):
    plan = compare.design(["greedy", "undercut"], 4, "random", True)
    with clustering.here():
        here = compare.play(plan, 0, 40, 5, DATA, chunk_size=96)
    there = compare.play(plan, 0, 40, 5, DATA, chunk_size=96)
    for field in ("share", "money", "rank", "chunk"):
        assert np.array_equal(getattr(here, field), getattr(there, field), equal_nan=True), field


def test_a_tune_on_the_cluster_is_the_tune_on_threads(cluster, tmp_path):
    """Every generation's games played as Dask tasks (the toy strategy shipped by its source):
    the tune folder, evaluations and optimiser's steps, is the one threads write."""
    from samsim.analysis import tune as tuning

    setup = tuning.Setup(start=str(Path(__file__).parent / "strategies" / "planted.py"),
                         players=4, field=("greedy",), budget=8000, games=200, popsize=4,
                         sigma=0.2, seed=6)
    with clustering.here():
        tuning.tune(setup, DATA, tmp_path / "threads")
    tuning.tune(setup, DATA, tmp_path / "dask")
    _same_folders(tmp_path / "threads", tmp_path / "dask")


def test_the_command_line_plays_on_a_scheduler(cluster, threads_run, tmp_path):
    address = cluster.client.scheduler.address
    done = run_here("simulate", "--players", 4, "--games", 6000, "--seed", 3, "--chunk-size", 500,
                    "--strategies", ",".join(LINEUP), "--record", "rounds", "--scheduler", address,
                    "--out", tmp_path / "run", cwd=tmp_path)
    assert done.returncode == 0, done.stderr
    assert "playing on the Dask cluster" in done.stderr
    _same_folders(threads_run, tmp_path / "run")


@pytest.mark.parametrize("kind", ["bal", "cmp"])
def test_an_experiment_on_the_cluster_reports_what_threads_report(cluster, tmp_path, kind):
    """``samsim run --scheduler``: the balance and compare kinds (sensitivity is made of both)
    give the report a thread run gives, word for word."""
    exp = tmp_path / f"{kind}.toml"
    exp.write_text(EXPERIMENTS[kind], encoding="utf-8")
    address = cluster.client.scheduler.address
    for where, extra in (("threads", ()), ("dask", ("--scheduler", address))):
        done = run_here("run", exp, "--results", tmp_path / where, *extra, cwd=tmp_path)
        assert done.returncode == 0, done.stderr
    name = REPORTS[kind]
    threads, dask = (next((tmp_path / where).rglob(name)).read_text() for where in ("threads", "dask"))
    assert threads == dask


def test_workers_with_other_sources_are_refused(cluster, monkeypatch):
    address = cluster.client.scheduler.address
    monkeypatch.setattr(samsim, "__version__", "0.0.0-other")
    with pytest.raises(clustering.ClusterError, match="would not be comparable"):
        with engine.Cluster(scheduler=address):
            pass


def test_a_task_for_other_sources_is_refused_by_the_worker():
    seats = engine.checked(1, 4, 0, DATA, None, 1, None, LINEUP)[4]
    job = clustering.Job("0.0.0+other", 4, 0, DATA, seats.shipped(), 1, False, 1, "cpu")
    key, blob = clustering._packed(job)
    with pytest.raises(clustering.ClusterError, match="would not be comparable"):
        clustering.play_chunk(key, blob, 0, 10)


def test_an_unreachable_scheduler_is_one_line_and_exit_2_quickly(tmp_path):
    began = time.monotonic()
    done = run_here("simulate", "--games", 100, "--scheduler", "tcp://127.0.0.1:9", "--out",
                    tmp_path / "run", cwd=tmp_path)
    assert time.monotonic() - began < 3 * clustering.CONNECT_SECONDS
    assert done.returncode == 2
    assert done.stderr.startswith("samsim: error: cannot reach a Dask scheduler at tcp://")
    assert len(done.stderr.splitlines()) == 1 and "Traceback" not in done.stderr
    assert not (tmp_path / "run").exists()


@pytest.mark.parametrize("args,message", [
    (("--workers", 0), "workers must be a positive whole number"),
    (("--workers", 2, "--scheduler", "tcp://127.0.0.1:9"), "not both"),
    (("--workers", 10_000), "would only compete for them"),
    (("--scheduler", "not an address"), "is not a scheduler address"),
    (("--scheduler", ""), "is not a scheduler address")])
def test_bad_cluster_options_are_one_line(tmp_path, args, message):
    done = run_here("simulate", "--games", 100, *args, cwd=tmp_path)
    assert done.returncode == 2 and message in done.stderr, done.stderr
    assert len(done.stderr.splitlines()) == 1


def test_a_line_up_survives_shipping():
    seats = pool_design(4, ["greedy", "undercut(margin=2)", "saver", "random", "holiday"])
    back = unshipped(seats.shipped(), Path("/nonexistent"))  # all built-in: nothing written
    assert back.specs() == seats.specs() and back.config() == seats.config()
    assert (back.params == seats.params).all() and (back.seat_strategy == seats.seat_strategy).all()


def test_local_workers_beside_another_cluster_say_nothing_of_ports():
    """Dask's scheduler serves HTTP on port 8787 unless told otherwise and warns in four lines
    when it is taken (a user's own cluster, a second samsim with --workers): ours takes any."""
    with socket.socket() as taken, warnings.catch_warnings(record=True) as caught:
        warnings.simplefilter("always")
        with contextlib.suppress(OSError):  # taken already: the case in point
            taken.bind(("", 8787))
            taken.listen()
        with engine.Cluster(workers=1, threads=1) as c:
            assert "1 worker" in c.describe()
    assert [str(w.message) for w in caught if "already in use" in str(w.message)] == []


def test_ctrl_c_on_local_workers_keeps_the_chunks_and_exits_130(tmp_path):
    """Ctrl-C reaches every process of the terminal's group: the client cancels, writes what
    came back and exits 130; its workers say nothing; --resume (here on threads) finishes it."""
    from test_cli import SAMSIM

    out = tmp_path / "run"
    args = ["simulate", "--games", 30000, "--seed", 4, "--strategies", "greedy",
            "--chunk-size", 500, "--out", out]
    proc = subprocess.Popen([SAMSIM, *map(str, args), "--workers", "2", "--threads", "1"],
                            stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True,
                            start_new_session=True, cwd=tmp_path)
    deadline = time.monotonic() + 120
    while len(list((out / "results").glob("*.parquet"))) < 2 and time.monotonic() < deadline:
        time.sleep(0.05)
    os.killpg(proc.pid, signal.SIGINT)
    _, err = proc.communicate(timeout=60)
    assert proc.returncode == 130, err
    assert "Traceback" not in err and "samsim: interrupted after" in err
    kept = results.run_metadata(out)
    assert 0 < kept["games_found"] < 30000
    done = run_here(*args, "--resume", cwd=tmp_path)
    assert done.returncode == 0, done.stderr
    with clustering.here():
        whole = results.run_simulation(30000, 4, 4, DATA, chunk_size=500, strategies="greedy",
                                       out=tmp_path / "whole")
    assert whole.n_games == 30000
    pd.testing.assert_frame_equal(results.load(tmp_path / "whole"), results.load(out))
