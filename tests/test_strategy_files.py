"""A user's strategy file: the README's example runs as written, and editing it between two runs
never runs stale compiled code, while the engine itself is compiled once.

Numba's cache checks only a function's own file, so samsim keys each strategy's compiled entry
point on the strategy's sources (``samsim.kernel.abi``). This is proved the way a user would meet it:
separate processes sharing one on-disk cache, the file edited between them.
"""

import json
import os
import re
import subprocess
import sys
from pathlib import Path

import pytest

from samsim.engine import registry as strategy

README = Path(__file__).resolve().parent.parent / "README.md"

RUN = """
import json
from samsim import engine
from samsim.engine import registry as strategy
from samsim.engine.lineup import Lineup
from samsim.kernel.game import run_batch_nb
cautious = strategy.parse_spec("cautious")  # found in ./strategies of the working directory
st = engine.run_batch(300, 4, seed=1, strategies=Lineup([cautious] * 4))
hits = sum(run_batch_nb.stats.cache_hits.values())
print(json.dumps({"money": st.money[:, 0].tolist(), "cache_hits": hits}))
"""


def example_source() -> str:
    text = README.read_text()
    block = re.search(r"<!-- example-strategy -->\s*```python\n(.*?)```", text, re.S)
    assert block, "the README's example strategy is missing its markers"
    return block.group(1)


def run(folder: Path, cache: Path) -> dict:
    env = {**os.environ, "NUMBA_CACHE_DIR": str(cache)}
    done = subprocess.run([sys.executable, "-c", RUN], cwd=folder, env=env, capture_output=True,
                          text=True, timeout=900)
    assert done.returncode == 0, done.stderr[-3000:]
    return json.loads(done.stdout.strip().splitlines()[-1])


def test_the_readme_strategy_runs_and_an_edit_is_never_stale(tmp_path):
    """In a cache of its own, holding a copy of the compiled engine (compiling it again would
    cost minutes and prove nothing new: test_jit_cache.py proves the engine's own keying)."""
    import shutil

    from samsim import engine
    from samsim.kernel import jit

    (tmp_path / "strategies").mkdir()
    mine = tmp_path / "strategies" / "cautious.py"
    mine.write_text(example_source())
    engine.run_batch(1, 4, seed=1)  # the engine compiled into this session's cache
    cache = tmp_path / "cache"
    shutil.copytree(jit.CACHE_DIR, cache / jit.CACHE_DIR.name)
    assert not [p for p in cache.rglob("*.nbi") if "cautious" in p.name]

    first = run(tmp_path, cache)
    assert first["cache_hits"] == 1  # the engine loaded, not compiled
    again = run(tmp_path, cache)  # unchanged file: everything comes from the cache
    assert again["cache_hits"] == 1 and again["money"] == first["money"]
    entries = sorted(p.name for p in (tmp_path / "cache").rglob("*.nbi") if "cautious" in p.name)
    assert entries, "the strategy's entry points were not cached"

    edited = example_source().replace("< params[0]", ">= params[0]")
    assert edited != example_source()
    mine.write_text(edited)
    after = run(tmp_path, cache)
    assert after["cache_hits"] == 1, "an edited strategy recompiled the engine"
    assert after["money"] != first["money"], "the edit did not change the games: stale code ran"
    fresh = sorted(p.name for p in (tmp_path / "cache").rglob("*.nbi") if "cautious" in p.name)
    assert len(fresh) > len(entries), "the edited strategy's entry points were not compiled anew"


BAD = '''"""Bad: a strategy Numba cannot compile (the test of its error message)."""
import numpy as np

from samsim.kernel.decisions import CARD
from samsim.kernel.contract import decision

PARAMS = {}


@decision
def helper(view):
    return view.me + 1


@decision
def card(comp, view, params, rng, out):
    x = helper(view)
    %s
'''


@pytest.mark.parametrize("line, reason", [
    ('out[CARD] = "high"', (r"Numba has no implementation of setitem\(array\(int64, 1d, C\), "
                            r"int64, Literal\[str\]\(high\)\)")),
    ("out[CARD] = nosuch(x)", r"NameError: name 'nosuch' is not defined"),
    ("out[CARD] = np.zeros(3, np.int64)[x]", r"it allocates memory"),
    ("out[CARD] = view.hand.copy()[0, x]", r"it allocates memory"),
])
def test_a_strategy_that_does_not_compile_names_its_file_and_line(tmp_path, line, reason):
    """Numba's first line names only the pipeline stage ("Failed in nopython mode pipeline (step:
    native lowering)"): the user needs the line of their file and what is wrong with it."""
    path = tmp_path / "bot.py"
    path.write_text(BAD % line)
    info = strategy.parse_spec(str(path)).info
    with pytest.raises(strategy.StrategyError) as caught:
        info.addresses()
    message = str(caught.value)
    assert "\n" not in message
    assert re.match(rf"strategy 'bot': card does not compile \({re.escape(str(path))}, line 18\): "
                    rf"{reason}", message), message


def test_an_undefined_name_in_a_helper_is_found_where_it_is_used(tmp_path):
    """Numba places it at the call of the helper (or nowhere): the line that uses it is line 12."""
    path = tmp_path / "bot.py"
    path.write_text(BAD.replace("return view.me + 1", "return nosuch(view.me)") % "out[CARD] = x")
    with pytest.raises(strategy.StrategyError, match=rf"^strategy 'bot': card does not compile "
                       rf"\({re.escape(str(path))}, line 12\): NameError: name 'nosuch' is not "
                       rf"defined$"):
        strategy.parse_spec(str(path)).info.addresses()


def test_a_compile_error_without_a_place_in_the_strategy_names_its_file(tmp_path):
    path = tmp_path / "bot.py"
    path.write_text(BAD % "out[CARD] = x")
    module = strategy.parse_spec(str(path)).info.module
    text = ("Failed in nopython mode pipeline (step: native lowering)\n"
            "Something is wrong with the types\n\n"
            'File "/elsewhere/lib.py", line 3:\ndef f():\n    ^\n\nDuring: lowering\n')
    where, reason = strategy._compile_error(text, module)
    assert (where, reason) == (f" ({path})", "Something is wrong with the types")
