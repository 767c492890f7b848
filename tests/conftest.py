"""Make the tests exercise the installed samsim, not the checkout they sit in.

``python -m pytest`` run from the repository root puts the root on ``sys.path`` first, which would
quietly import ``./samsim`` even where CI installed the package (not editable) into a fresh venv:
the installed files (package data, the wheel's contents) would go untested, and the ``samsim``
command the CLI tests run would compile its own Numba cache beside the one the in-process tests
compile. So when samsim is installed somewhere other than this checkout, the checkout is dropped
from the path. With an editable install (a developer's venv) the two are the same code and nothing
changes.

It also puts the cuda backend in Numba's CUDA simulator unless NUMBA_ENABLE_CUDASIM is set.
"""

import importlib.machinery
import os
import sys
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent


def _is_root(entry: str) -> bool:
    try:
        return Path(entry or os.curdir).resolve() == ROOT
    except OSError:
        return False


def _prefer_installed_samsim() -> None:
    if "samsim" in sys.modules:
        return
    rest = [p for p in sys.path if not _is_root(p)]
    if len(rest) != len(sys.path) and importlib.machinery.PathFinder.find_spec("samsim", rest):
        sys.path[:] = rest


_prefer_installed_samsim()

# The cuda backend's tests run in Numba's CUDA simulator (CI has no GPU), unless told otherwise:
# NUMBA_ENABLE_CUDASIM=0 runs them on this machine's GPU (tests/test_cuda.py).
os.environ.setdefault("NUMBA_ENABLE_CUDASIM", "1")


def pytest_collection_modifyitems(items):
    """The CUDA simulator's tests first. Their kernel compiles for minutes on one core and needs
    nothing the CPU tests compile (tests/test_cuda.py plays its side first), so the first worker
    compiles it while the other compiles the CPU engine; collected in their place, they were the
    last file a worker took, and CI's tail."""
    items.sort(key=lambda item: item.path.name != "test_cuda.py")  # stable: the rest keep their order
