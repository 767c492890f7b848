"""Compiled kernels are never stale: their cache folder is keyed on the compiled layer's sources.

Numba's own cache only notices edits to a function's own file, and the rules are inlined across
files, so an edit of one rule must move the whole cache. Checked on a copy of the package, without
compiling anything (a subprocess prints where the copy would cache).
"""

import os
import shutil
import subprocess
import sys
import time
from pathlib import Path

import samsim
from samsim.kernel import jit


def _cache_dir_of(copy_root: Path, cache_base: Path) -> str:
    env = {**os.environ, "PYTHONPATH": str(copy_root), "NUMBA_CACHE_DIR": str(cache_base)}
    code = "import numba, samsim.kernel.jit as j; assert numba.config.CACHE_DIR == str(j.CACHE_DIR); print(j.CACHE_DIR)"
    return subprocess.run([sys.executable, "-c", code], env=env, cwd=copy_root, check=True,
                          capture_output=True, text=True).stdout.strip()


def test_editing_any_rule_moves_the_cache(tmp_path):
    copy = tmp_path / "src"
    shutil.copytree(Path(samsim.__file__).parent, copy / "samsim",
                    ignore=shutil.ignore_patterns("__pycache__"))
    before = _cache_dir_of(copy, tmp_path / "cache")
    assert before.startswith(str(tmp_path / "cache"))
    assert _cache_dir_of(copy, tmp_path / "cache") == before  # same sources, same folder
    for plain in ("cli/__init__.py", "engine/play.py", "reference/game.py", "stats/tally.py", "analysis/report.py"):
        edited = copy / "samsim" / plain  # plain Python around the engine: the cache stays
        edited.write_text(edited.read_text() + "\n# edited\n")
        assert _cache_dir_of(copy, tmp_path / "cache") == before, plain
    rule_file = copy / "samsim" / "kernel" / "rules" / "round.py"
    rule_file.write_text(rule_file.read_text().replace("(t + 1) % n", "(t + 2) % n"))
    after_rule = _cache_dir_of(copy, tmp_path / "cache")
    assert after_rule != before
    seen = {before, after_rule}
    for outside in ("components.py", "illegal.py"):  # the modules outside kernel/ it imports
        edited = copy / "samsim" / outside
        edited.write_text(edited.read_text() + "\n# edited\n")
        now = _cache_dir_of(copy, tmp_path / "cache")
        assert now not in seen, outside
        seen.add(now)


def test_the_running_package_uses_its_keyed_folder():
    assert Path(jit.CACHE_DIR).name.endswith(jit.source_key())


def test_a_process_needing_the_engine_waits_while_another_compiles_it(tmp_path):
    """Processes starting together on a cold cache compile the engine once: while one holds the
    lock on compiling it (``jit.compiling``), another that needs it waits, then loads it."""
    from samsim.engine import play

    play.run_batch(4, 4, 1)  # in the cache: the second process has only to load it
    code = ("import sys; from samsim.engine import play; print('imported', flush=True); "
            "play.run_batch(4, 4, 1); print('played', flush=True)")
    with jit.compiling("engine"):
        child = subprocess.Popen([sys.executable, "-c", code], cwd=tmp_path, text=True,
                                 stdout=subprocess.PIPE, stderr=subprocess.PIPE)
        assert child.stdout.readline() == "imported\n"
        time.sleep(5)  # loading the engine takes a second or two: it would be done by now
        assert child.poll() is None, "the engine was loaded while another process held the lock"
    out, err = child.communicate(timeout=120)
    assert child.returncode == 0 and out == "played\n", err
