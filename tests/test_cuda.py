"""The cuda backend gives the CPU's games: every game, every seat, every field of the state and
every event, at every player count.

CI has no GPU: these tests run the GPU path in Numba's CUDA simulator (tests/conftest.py sets
NUMBA_ENABLE_CUDASIM=1 unless it is set): the generated kernel and switch, the retargeted rules,
the launches, device arrays and copies back, all as on a device. Two ways, for CI's time:

* the whole library, each strategy in every seat at every player count, with the rules and the
  strategies run as plain Python (NUMBA_DISABLE_JIT=1, in a process of its own): half a minute,
  where compiling them again for the simulator took 10 to 16 minutes of a cold test run;
* the kernel compiled as the simulator compiles it (its functions for the CPU, by Numba) for
  ``COMPILED`` (random): the games, both memories, several launches, the command line, a
  cluster, the benchmark, a new process loading the cached kernel.

The slow tests compile the whole library's kernel and play twenty times as many games.
``NUMBA_ENABLE_CUDASIM=0 pytest tests/test_cuda.py -m ''`` runs them on a real GPU (where the
plain-Python run is the simulator's still: it proves the generated code, not the device).
What the simulator cannot show, that NVVM compiles the same arithmetic, is checked by compiling
the kernel for an H200 (``test_slow_the_kernel_compiles_for_a_gpu_without_fused_multiply_add``).
"""

import os
import pickle
import re
import subprocess
import sys
import textwrap
from pathlib import Path

import numpy as np
import pandas as pd
import pytest

from samsim import components, engine
from samsim.engine import gpu, play
from samsim.engine.lineup import Lineup
from samsim.engine.registry import library_names, parse_spec
from samsim.kernel.events import KIND_NAMES
from samsim.kernel.state import State
from test_cli import run_here

DATA = components.load()
#: Every library strategy, each in every seat, in the plain-Python games. tuned plays weighted's
#: decision functions with other parameters, so one function reads two rows of Control.params.
LIBRARY = library_names()
#: Each strategy five times in every seat, at every player count.
GAMES = 5 * len(LIBRARY)
#: The line-up whose kernel CI compiles for the simulator, once for every test here that plays
#: it: random, the default (3 minutes on one core; random, weighted and tuned took 9).
COMPILED = ("random",)


def rotation(players: int, specs) -> Lineup:
    """Each strategy in every seat once per len(specs) games, next to every other in turn."""
    members = [parse_spec(s) for s in specs]
    n = len(members)
    return Lineup([[members[(i + j) % n] for j in range(players)] for i in range(n)], members)


def _both(players: int, games: int, specs=COMPILED, log: bool = True, record: bool = False):
    """The games on the GPU and on the CPU: the GPU first, which needs nothing of the CPU's engine
    (the other test worker compiles that meanwhile: tests/conftest.py)."""
    seats = rotation(players, specs)
    with play.backend("cuda"):
        on_gpu = play.run_batch(games, players, 11, 0, DATA, strategies=seats, log=log,
                                record=record)
    cpu = play.run_batch(games, players, 11, 0, DATA, strategies=seats, log=log, record=record)
    return cpu, on_gpu


def _write_strategy(path: Path, text: str) -> None:
    path.write_text(textwrap.dedent(text).lstrip(), encoding="utf-8")


def _differ(cpu, on_gpu) -> list[str]:
    return [f for f in State._fields if not np.array_equal(getattr(cpu, f), getattr(on_gpu, f))]


#: (memory, players, games) of the plain-Python games: every player count in the default memory
#: (local), and the other at the fewest and the most players.
PLAIN = [("local", n, GAMES) for n in (3, 4, 5, 6)] + \
    [("global", n, 2 * len(LIBRARY)) for n in (3, 6)]

_PLAIN_RUN = """
from samsim.engine import play
from samsim.kernel import abi, cuda
from test_cuda import LIBRARY, PLAIN, rotation

games = {}
for memory, players, n in PLAIN:
    cuda.STATE_MEMORY = memory
    with play.backend("cuda"):
        seats = rotation(players, LIBRARY)
        games[memory, players] = play.run_batch(n, players, 11, strategies=seats, log=True,
                                                record=True)
# the games, and the decisions made through the CPU's call by address (samsim.kernel.abi)
result = games, len(abi._PYTHON)
"""


def _with_tests() -> dict:
    """The environment of a process that imports this file (and samsim as this one does)."""
    return {**os.environ,
            "PYTHONPATH": os.pathsep.join([str(Path(__file__).parent), *filter(None, sys.path)])}


def plain_python(code: str, folder: Path, **env):
    """``result`` of ``code`` run as plain Python (NUMBA_DISABLE_JIT=1) in a process of its own
    (in ``folder``, with ``env`` added to its environment), which can import this file."""
    path = folder / "result.pickle"
    code += f"\nimport pickle\nwith open({str(path)!r}, 'wb') as out:\n" \
        "    pickle.dump(result, out)\n"
    done = subprocess.run([sys.executable, "-W", "ignore", "-c", code], capture_output=True,
                          text=True, cwd=folder, timeout=900,
                          env={**_with_tests(), "NUMBA_DISABLE_JIT": "1", **env})
    assert done.returncode == 0, done.stderr[-3000:]
    with open(path, "rb") as result:
        return pickle.load(result)


@pytest.fixture(scope="module")
def plain(tmp_path_factory):
    """The plain-Python games of PLAIN on the GPU path (in the simulator), by (memory, players),
    and how many decisions went through the CPU's call by address."""
    return plain_python(_PLAIN_RUN, tmp_path_factory.mktemp("plain"), NUMBA_ENABLE_CUDASIM="1")


@pytest.fixture(scope="module")
def played():
    """The compiled kernel's games of COMPILED at every player count, with log and record."""
    return {n: _both(n, 50, record=True) for n in (3, 4, 5, 6)}


def test_the_library_is_all_there_and_shares_a_function():
    assert len(LIBRARY) >= 10 and {"random", "lookahead", "tuned", "weighted"} <= set(LIBRARY)
    tuned, weighted = (parse_spec(name).info for name in ("tuned", "weighted"))
    assert tuned.function("card") is weighted.function("card")


def test_each_stage_switches_over_its_own_functions_alone():
    """The kernel's switch goes stage by stage: every seated strategy's index at a stage names
    its own function for that stage among that stage's, and a function shared by two strategies
    (tuned's and weighted's) is there once."""
    from samsim.kernel.contract import STAGES

    seats = rotation(4, LIBRARY)
    functions, keys, entries = gpu.decisions(seats)
    assert tuple(map(len, functions)) == tuple(map(len, keys))
    for m, member in enumerate(seats.members):
        for s, stage in enumerate(STAGES):
            assert functions[s][entries[m, s]] is member.info.function(stage)
    for s, stage in enumerate(STAGES):
        assert len(set(functions[s])) == len(functions[s]) == len(set(keys[s]))
        assert set(functions[s]) == {m.info.function(stage) for m in seats.members}


@pytest.mark.parametrize("players", [3, 4, 5, 6])
def test_every_field_of_every_compiled_game_is_the_cpus(played, players):
    cpu, on_gpu = played[players]
    assert _differ(cpu, on_gpu) == []
    assert cpu.round_no.min() == DATA.components.rounds  # whole games, not two empty states
    assert cpu.record.any() and cpu.n_events.min() > 0


@pytest.mark.parametrize("memory, players", [("global", 4), ("global", 6)])
def test_either_memory_gives_the_cpus_games_log_and_record(memory, players, monkeypatch):
    """Where a thread keeps its game (samsim.kernel.cuda.STATE_MEMORY) changes where it is read,
    not the games: in its rows of device memory, or in a local copy (the default, above), the
    events log and the per-round record then written to device memory from it. (In the
    simulator both kernels share the copies of the rules: no compile of their own.)"""
    from samsim.kernel import cuda

    monkeypatch.setattr(cuda, "STATE_MEMORY", memory)
    cpu, on_gpu = _both(players, 20, record=True)
    assert _differ(cpu, on_gpu) == []
    assert cpu.record.any() and cpu.n_events.min() > 0


def test_each_copy_of_the_rules_compiles_once(played):
    """Every copy on the way to the switch has one compiled version in the cache, whatever the
    player count or memory played (tests above): a seat typed as a literal -1 on one path
    (next_builder_nb's "no seat", before it was np.int64) compiled four of them twice over, an
    eighth of the simulator's compile. Read from the cache's files, so it holds on a warm cache
    as on CI's cold one."""
    from samsim.kernel import cuda

    key = cuda._switch(*gpu.decisions(rotation(3, COMPILED))[:2])
    found = {}
    for path in cuda.CACHE_DIR.rglob(f"*__{key}-*.nbc"):
        found.setdefault(path.name.split("-")[0], []).append(path.name)
    assert len(found) >= 10, sorted(found)  # the game, its rounds, phases, decide_* and the switch
    assert {name: files for name, files in found.items() if len(files) > 1} == {}


@pytest.mark.parametrize("memory, players, games", PLAIN)
def test_every_library_game_is_the_cpus(plain, memory, players, games):
    """The whole library on the GPU path, as plain Python: every field, event and record of
    every game is the compiled CPU engine's, in either memory."""
    on_gpu = plain[0][memory, players]
    cpu = play.run_batch(games, players, 11, 0, DATA, strategies=rotation(players, LIBRARY),
                         log=True, record=True)
    assert _differ(cpu, on_gpu) == []
    assert cpu.round_no.min() == DATA.components.rounds and cpu.record.any()


def test_every_library_decision_went_through_the_switch(plain):
    """The plain-Python games decided through the generated switch, none by the CPU's call by
    address (which plain Python runs too): the GPU's dispatch, not the CPU's, played them."""
    assert plain[1] == 0


def test_the_games_touch_every_rule(plain):
    """Every kind of event (every tile bought, special tile used, holiday, leftover...) occurs in
    the library's games, and every strategy sat in every seat, so no rule and no decision went
    unplayed on the GPU path."""
    kinds = set()
    tiles = set()
    for st in plain[0].values():
        for g in range(len(st.n_events)):
            rows = st.events[g, :st.n_events[g]]
            kinds |= set(rows[:, 1].tolist())
            tiles |= set(rows[rows[:, 1] == KIND_NAMES.index("BUY"), 3].tolist())
    assert {KIND_NAMES[k] for k in kinds} == set(KIND_NAMES[1:])
    assert tiles == set(range(len(DATA.components.tile_count)))
    for memory, players, games in PLAIN:
        seats = rotation(players, LIBRARY)
        seated = seats.seat_strategy[np.arange(games) % len(seats.seatings)]
        for seat in range(players):
            assert set(seated[:, seat].tolist()) == set(range(len(LIBRARY)))


@pytest.mark.slow
@pytest.mark.parametrize("players", [3, 4, 5, 6])
def test_slow_a_thousand_compiled_games_of_the_library_are_the_cpus(players):
    """The simulator's compiled kernel of the whole library (ten minutes on two cores), twenty
    times CI's games, for the rare paths: a thousand at each player count."""
    cpu, on_gpu = _both(players, 20 * GAMES, LIBRARY)
    assert _differ(cpu, on_gpu) == []


def test_a_new_process_plays_the_other_memory_from_the_cached_copies(played, tmp_path):
    """In the simulator the copies of the rules are cached under the switch module's name, which
    a kernel of either memory imports: a new process playing in global memory the strategies
    this one played in local memory loads them. (Cached under a kernel module's name, they
    failed to load in a process that had not imported that module.)"""
    code = textwrap.dedent(f"""
        from samsim.engine import play
        from samsim.kernel import cuda
        from test_cuda import rotation

        cuda.STATE_MEMORY = "global"
        with play.backend("cuda"):
            st = play.run_batch(24, 4, 11, 0, strategies=rotation(4, {COMPILED!r}))
        print("scores", st.score.tolist())
        """)
    done = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True,
                          timeout=600, cwd=tmp_path, env=_with_tests())
    assert done.returncode == 0, done.stderr[-3000:]
    cpu = play.run_batch(24, 4, 11, 0, DATA, strategies=rotation(4, COMPILED))
    assert f"scores {cpu.score.tolist()}" in done.stdout


def test_several_launches_give_the_games_of_one(monkeypatch):
    """Device memory is bounded: a batch larger than the capacity plays in several launches."""
    monkeypatch.setattr(gpu, "_capacity", lambda *args: 7)
    monkeypatch.setattr(gpu, "_BUFFERS", {})
    cpu, on_gpu = _both(4, 30, log=False)
    assert np.array_equal(cpu.score, on_gpu.score) and np.array_equal(cpu.rank, on_gpu.rank)


def test_only_the_fields_asked_for_come_back():
    seats = rotation(4, COMPILED)
    with play.backend("cuda"):
        st = play.run_batch(10, 4, 11, 0, DATA, strategies=seats, fields=("score",))
    cpu = play.run_batch(10, 4, 11, 0, DATA, strategies=seats)
    assert np.array_equal(st.score, cpu.score) and not st.money.any()


def test_simulate_on_the_gpu_writes_the_cpus_run_folder(tmp_path):
    args = ["simulate", "--players", "4", "--games", "840", "--strategies", ",".join(COMPILED),
            "--chunk-size", "300"]
    cpu = run_here(*args, "--out", tmp_path / "cpu", cwd=tmp_path)
    on_gpu = run_here(*args, "--out", tmp_path / "gpu", "--backend", "cuda", cwd=tmp_path)
    assert cpu.returncode == on_gpu.returncode == 0, on_gpu.stderr
    assert "playing on" in on_gpu.stderr
    for name in sorted(p.name for p in (tmp_path / "cpu").glob("*.parquet")):
        pd.testing.assert_frame_equal(pd.read_parquet(tmp_path / "cpu" / name),
                                      pd.read_parquet(tmp_path / "gpu" / name))


def test_a_cluster_of_gpu_workers_plays_the_same_games(tmp_path):
    """--backend cuda with --scheduler: each worker plays on its GPU (here: workers in this
    process, so that they share its simulator kernel instead of compiling their own)."""
    from distributed import LocalCluster

    seats = rotation(4, COMPILED)
    cpu = play.run_batch(600, 4, 5, 0, DATA, strategies=seats)
    with LocalCluster(n_workers=2, threads_per_worker=1, processes=False, dashboard_address=None,
                      scheduler_kwargs={"dashboard_address": ":0"}) as local, \
            engine.Cluster(local.scheduler_address, backend="cuda") as cluster:
        assert "each on its GPU" in cluster.describe()
        chunks = list(engine.batches([(0, 600)], 4, 5, DATA, seats, 200))
    assert [(first, n) for first, n, _ in chunks] == [(0, 200), (200, 200), (400, 200)]
    score = np.concatenate([st.score for _, _, st in chunks])
    assert np.array_equal(score, cpu.score)


def test_bench_on_the_gpu_measures_each_line_up(tmp_path, monkeypatch):
    """``samsim bench --backend cuda``, its line-ups here the tests' (one kernel for all): a row
    per line-up, the kernel alone and with the outcome copied back, in the terminal and in
    Markdown. (The simulator's games/s say nothing of a GPU's.)"""
    from samsim.engine import bench

    monkeypatch.setattr(bench, "GPU_PLAYERS", ())
    monkeypatch.setattr(bench, "LINEUPS", {"the tests' line-up": (COMPILED, 1),
                                           "a quarter of it": (COMPILED, 1 / 4)})
    done = run_here("bench", "--backend", "cuda", "--games", "512", "--markdown",
                    tmp_path / "b.md", cwd=tmp_path)
    assert done.returncode == 0, done.stderr
    md = (tmp_path / "b.md").read_text(encoding="utf-8")
    for name in ("the tests' line-up", "a quarter of it"):
        row = next(line for line in md.splitlines() if line.startswith(f"| {name} |"))
        kernel, outcome, first = (float(c.replace(",", "")) for c in row.split("|")[2:5])
        assert kernel > 0 and outcome > 0 and first >= 0
        assert name in done.stdout
    assert "CUDA simulator" in md and "with outcome" in md


@pytest.mark.parametrize("args, message", [
    (("--threads", 2), "--threads"),
    (("--threads", 2, "--workers", 1), "--threads"),  # refused before a cluster starts
    (("--games", 0), "games must be a positive whole number"),
    (("--chunk-size", 0), "chunk_size must be a positive whole number"),
])
def test_bad_input_on_the_gpu_is_one_line(args, message, tmp_path):
    """Refused in one line (exit 2) before the line saying where the games would be played."""
    done = run_here("simulate", "--games", "10", "--backend", "cuda", *args, cwd=tmp_path)
    assert done.returncode == 2 and message in done.stderr, done.stderr
    assert done.stderr.count("\n") == 1, done.stderr


def test_a_strategy_numba_cannot_compile_is_named_in_one_line(tmp_path):
    """The GPU kernel's compile fails where nothing names the strategy: the same line as on the
    CPU (strategy, stage, file and line, Numba's reason), exit 2."""
    _write_strategy(tmp_path / "mine.py", """
        \"\"\"Mine: plays a word for a card.\"\"\"

        from samsim.kernel.contract import decision
        from samsim.kernel.decisions import CARD

        PARAMS = {}
        LIMITS = {}


        @decision
        def card(comp, view, params, rng, out):
            out[CARD] = "a card"
        """)
    done = run_here("simulate", "--games", "8", "--backend", "cuda", "--strategies",
                    "mine.py,random,random,random", cwd=tmp_path)
    assert done.returncode == 2, done.stderr
    assert done.stderr.splitlines()[-1].startswith(
        "samsim: error: strategy 'mine': card does not compile (./mine.py, line 12)"), done.stderr
    assert "Traceback" not in done.stderr


def test_without_a_gpu_it_is_one_line_and_exit_2(tmp_path):
    env = {**os.environ, "NUMBA_ENABLE_CUDASIM": "0", "CUDA_VISIBLE_DEVICES": ""}
    showdown = Path(__file__).resolve().parents[1] / "experiments" / "showdown.toml"
    for args in (["simulate", "--games", "10"], ["bench"], ["compare", "greedy", "random"],
                 ["run", str(showdown)]):
        done = subprocess.run([sys.executable, "-m", "samsim.cli", *args, "--backend", "cuda"],
                              capture_output=True, text=True, cwd=tmp_path, env=env)
        assert done.returncode == 2, done.stderr
        assert done.stderr.count("\n") == 1 and "no CUDA GPU" in done.stderr, done.stderr
        assert done.stdout == "", done.stdout


def test_a_field_without_rows_keeps_none_on_a_device():
    """numba-cuda's own device arrays (which the simulator does not use: run without it, no
    device needed) cut to a launch's games as ``gpu._rows`` cuts them, for every field of the
    state at every player count, with and without the log and the record: each has the shape of
    the host rows it is copied into. numba-cuda cuts the events log a run does not keep, shape
    (0, 0, 7), to (n, 0, 7), which an H200 failed on (and the kernel read as a kept log)."""
    code = textwrap.dedent("""
        from numba.cuda.api_util import prepare_shape_strides_dtype
        from numba.cuda.cudadrv import dummyarray
        from samsim import components
        from samsim.engine import gpu
        from samsim.kernel.state import allocate

        def device(shape, dtype):  # as cuda.device_array(shape, dtype) lays it out
            shape, strides, dtype = prepare_shape_strides_dtype(shape, None, dtype, "C")
            return dummyarray.Array.from_desc(0, shape, strides, dtype.itemsize)

        comp, launch, games = components.load().components, 256, 300
        for players in (3, 4, 5, 6):
            for log in (False, True):
                for record in (False, True):
                    st = allocate(comp, games, players, log=log, record=record)
                    for name, host in zip(st._fields, st):
                        rows = launch if len(host) else 0  # gpu._Buffers' device array
                        dev = device((rows, *host.shape[1:]), host.dtype)
                        for first in (0, launch):
                            n = min(launch, games - first)
                            cut = gpu._rows(dev, n).shape
                            want = host[first:first + n].shape
                            assert cut == want, (players, log, record, name, cut, want)
        print("every field as its host rows")
        """)
    done = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True,
                          env={**os.environ, "NUMBA_ENABLE_CUDASIM": "0"}, timeout=300)
    assert done.returncode == 0, done.stderr[-3000:]
    assert "every field as its host rows" in done.stdout


def test_a_cap_on_registers_is_its_own_kernel():
    """A cap (samsim.kernel.cuda.MAX_REGISTERS) changes what the assembler makes, not the games:
    it is a kernel of its own in the cache, and the simulator, which has no registers, is given
    none."""
    from samsim.kernel import cuda

    keys = gpu.decisions(rotation(4, ["random"]))[1]
    switch = cuda._module_key(keys)
    key, capped = cuda._module_key(keys, None), cuda._module_key(keys, 64)
    assert key != capped != cuda._module_key(keys, 128)
    assert "max_registers" not in cuda.module_text(switch, key, None, simulator=False)
    assert "cache=True, max_registers=64)" in cuda.module_text(switch, capped, 64, simulator=False)
    assert "max_registers" not in cuda.module_text(switch, capped, 64, simulator=True)


def test_the_state_s_memory_is_its_own_kernel_of_the_same_switch():
    """A kernel keeping each game in local memory is a kernel of its own (and one per size of the
    local copy: a rules variant of other sizes), playing the game of the same switch module as
    the kernel playing in place, so that in the simulator the copies of the rules it makes are
    cached once for both; it copies in every field of its game but the log and the record, and
    copies each back; the kernel of global memory copies nothing."""
    from samsim.kernel import cuda

    keys = gpu.decisions(rotation(4, ["random"]))[1]
    local = cuda.state_rows(DATA.components, "local")
    assert cuda.state_rows(DATA.components, "global") == ()
    with pytest.raises(ValueError, match="one of local, global, not 'shared'"):
        cuda.state_rows(DATA.components, "shared")
    assert [name for name, _, _ in local] == [f for f in State._fields if f not in cuda.OUTPUTS]
    assert dict((name, size) for name, size, _ in local)["room_chip"] == \
        6 * DATA.components.max_rooms * 2
    bigger = (*local[:-1], (local[-1][0], local[-1][1] + 1, local[-1][2]))
    switch, key = cuda._module_key(keys), cuda._module_key(keys, None, local)
    assert len({key, switch, cuda._module_key(keys, None, bigger)}) == 3
    text = cuda.module_text(switch, key, None, local=local)
    plain = cuda.module_text(switch, switch, None)
    assert f"from samsim_cuda_switch_{switch} import play_game_nb" in text and \
        f"from samsim_cuda_switch_{switch} import play_game_nb" in plain
    assert f"with_switch(strategy_nb, {switch!r})" in cuda.switch_text((1,) * 6, switch)
    for name, size, dtype in local:
        assert f"{name} = shaped(cuda.local.array({size}, np.{dtype}), st.{name}[i:i + 1])" \
            in text
        assert f"copy_nb(st.{name}[i:i + 1], {name})" in text
    assert "st.events[i:i + 1]" in text and "st.record[i:i + 1]" in text
    assert "cuda.local.array" not in plain and "play_game_nb(comp, st, ctl" in plain


PTX = Path(__file__).resolve().parents[1] / "benchmarks" / "cuda_ptx.py"


@pytest.mark.slow
@pytest.mark.parametrize("memory", ["local", "global"])
def test_slow_the_kernel_compiles_for_a_gpu_without_fused_multiply_add(tmp_path, memory):
    """NVVM (the real compiler, from the nvidia-nvvm wheel) builds the kernel of random and
    weighted for an H200 (150 s on two cores: slow), each game in a local copy or in device
    memory; weighted's floating-point multiplies stay multiplies (a fused multiply-add rounds
    once where the CPU rounds twice), and no call goes through an address; nvJitLink assembles
    it for an H200, with nothing left to link (the local copy's arrays are shaped without
    numba-cuda's reshape helper), a local copy's stack holding about the game."""
    env = {**os.environ, "NUMBA_ENABLE_CUDASIM": "0", "NUMBA_CACHE_DIR": str(tmp_path)}
    done = subprocess.run([sys.executable, str(PTX), "random,weighted", "--registers", "64",
                           "--memory", memory],
                          capture_output=True, text=True, cwd=tmp_path, env=env, timeout=900)
    assert done.returncode == 0, done.stderr[-3000:]
    found = re.search(r"([\d.]+) s \(([\d.]+) s in NVVM\), (\d+) PTX characters, "
                      r"(\d+) fma.rn.f64, (\d+) mul.f64, (\d+) callprototype", done.stdout)
    assert found, done.stdout
    size, fused, multiplies, indirect = map(int, found.groups()[2:])
    assert 0 < float(found.group(2)) < float(found.group(1))
    assert size > 100_000 and multiplies > 0
    assert fused == 0 and indirect == 0
    assert re.search(r"sm_90a: \d+ registers, \d+ bytes stack, \d+ \+ \d+ bytes spilled; \d+ blocks",
                     done.stdout), done.stdout
    capped = re.search(r"sm_90a capped at 64: (\d+) registers", done.stdout)
    assert capped and int(capped.group(1)) <= 64, done.stdout
    stack = int(re.search(r"sm_90a: \d+ registers, (\d+) bytes stack", done.stdout).group(1))
    from samsim.kernel import cuda

    game = sum(size * np.dtype(dtype).itemsize
               for _, size, dtype in cuda.state_rows(DATA.components, "local"))
    # a local copy is the game on each thread's stack (NVVM keeps a few one-number fields of
    # it in registers: 6,112 of 6,144 bytes), played in place there is next to none
    assert (stack > 0.9 * game) if memory == "local" else (stack < 0.1 * game), (stack, game)
