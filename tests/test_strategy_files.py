"""A user's strategy file: the README's example runs as written, and editing it between two runs
never runs stale compiled code, while the engine itself is compiled once.

Numba's cache checks only a function's own file, so samsim keys each strategy's compiled entry
point on the strategy's sources (``samsim.abi``). This is proved the way a user would meet it:
separate processes sharing one on-disk cache, the file edited between them.
"""

import json
import os
import re
import subprocess
import sys
from pathlib import Path

README = Path(__file__).resolve().parent.parent / "README.md"

RUN = """
import json
from samsim import engine, strategy
cautious = strategy.parse_spec("cautious")  # found in ./strategies of the working directory
st = engine.run_batch(300, 4, seed=1, strategies=strategy.Lineup([cautious] * 4))
hits = sum(engine._run_batch_nb.stats.cache_hits.values())
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
    (tmp_path / "strategies").mkdir()
    mine = tmp_path / "strategies" / "cautious.py"
    mine.write_text(example_source())
    cache = tmp_path / "cache"

    first = run(tmp_path, cache)
    assert first["cache_hits"] == 0
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
