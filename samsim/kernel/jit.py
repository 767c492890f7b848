"""The one decorator every compiled rule uses, where its compiled code is kept, and why.

Three measured costs decide the options (one core, loops of a million calls):

* ``_nrt=False``: the rules never allocate (the engine preallocates all state), but the state is a
  NamedTuple of ~40 arrays and with reference counting on, Numba increfs and decrefs every member
  around calls: 133 ns per call of a two-line rule with it, 2.5 ns without.
* ``inline="always"`` (the default here): Numba passes a NamedTuple argument as hundreds of scalar
  arguments, so an out-of-line call of a rule taking (comp, st, ctl) cost ~150 ns. Inlining the rules
  into the round took four players from ~50,000 to ~78,000 games/s, inlining the round into the game
  loop to ~108,000 (compile time ~45 s -> ~65 s; most of a compile is Numba's inliner copying code,
  cut 1.1-2.4x by ``samsim.kernel.inlining``). What runs once per game (the deal, the game loop
  itself) is compiled ``inline="never"``: the compile time is not worth the 2%.
* ``cache=True``: compiled code is kept between runs. Constants passed to rules are np.int64 (see
  events.py), since Numba compiles a callee once per distinct *literal* int argument.

No stale kernels: Numba's cache only notices edits to a function's own file, so a kernel that
inlined a rule from another file would survive an edit of that rule (numba issue 1833). The cache
therefore lives in a folder named after a hash of the compiled layer's sources: every file of
``samsim/kernel/``, and ``samsim/components.py`` and ``samsim/illegal.py``, the modules outside it
that it imports (a test keeps that so). Any edit of a rule gives a new folder and a fresh compile; an edit anywhere else
(the command line, the statistics, the reference engine) keeps the compiled code. Strategies are
keyed by their own sources (``samsim.kernel.abi``). The folder is under ``$NUMBA_CACHE_DIR`` if set,
else ``$XDG_CACHE_HOME/samsim`` (``~/.cache/samsim``). This sets Numba's process-wide cache folder.
"""

import contextlib
import fcntl
import hashlib
import os
from pathlib import Path

import numba
from numba import njit

from samsim.kernel import inlining

KERNEL = Path(__file__).resolve().parent
#: The compiled layer's sources: this folder, the component data module it reads, and the reasons
#: a decision is illegal, whose codes it records.
SOURCES = (KERNEL, KERNEL.parent / "components.py", KERNEL.parent / "illegal.py")


def source_key(sources=SOURCES) -> str:
    """Hash of every Python file of ``sources`` (folders and files)."""
    digest = hashlib.sha256()
    for source in sources:
        files = sorted(source.rglob("*.py")) if source.is_dir() else [source]
        for path in files:
            name = path.relative_to(source.parent).as_posix()
            digest.update(name.encode() + b"\0" + path.read_bytes())
    return digest.hexdigest()[:16]


def cache_dir() -> Path:
    base = os.environ.get("NUMBA_CACHE_DIR") or Path(
        os.environ.get("XDG_CACHE_HOME") or Path.home() / ".cache") / "samsim"
    return Path(base) / f"kernels-{numba.__version__}-{source_key()}"


CACHE_DIR = cache_dir()
numba.config.CACHE_DIR = str(CACHE_DIR)
inlining.install()  # inlining without a copy per block: the same code, compiled faster


@contextlib.contextmanager
def compiling(name: str):
    """Compile ``name`` into the cache in one process at a time. Numba writes its cache when a
    compile ends, so processes that start together on a cold cache (the workers of a local Dask
    cluster, runs started side by side, test workers) would each compile the same minutes of
    code beside the others; under this lock the second waits for the first, then loads what it
    wrote. A file lock (fcntl.flock): released when its holder ends, however it ends."""
    path = CACHE_DIR / "locks" / f"{name}.lock"
    path.parent.mkdir(parents=True, exist_ok=True)
    with open(path, "a") as lock:  # closing it releases the lock
        fcntl.flock(lock, fcntl.LOCK_EX)
        yield


def rule(fn=None, **options):
    """``@rule`` / ``@rule(inline="never")``: compile a rule function (no allocation allowed)."""
    options = {"cache": True, "_nrt": False, "inline": "always", **options}
    if fn is None:
        return njit(**options)
    return njit(**options)(fn)
