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

import pytest

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


#: The files that take minutes on a cold Numba cache, longest first (a clean run, 2 cores): given
#: out first, the small files fill both workers' ends, and neither waits long for the other.
#: test_cuda.py (~500 s: the CUDA simulator's kernel of random, the library's entry points)
#: plays its GPU side first, which needs nothing the CPU tests compile, so it compiles that
#: kernel while the other worker compiles the engine.
LONGEST_FIRST = ("test_cuda.py", "test_cli.py", "test_strategies.py")


def pytest_collection_modifyitems(items):
    """Files in the order LONGEST_FIRST, then the rest in theirs. pytest-xdist keeps this order
    only with ``--no-loadscope-reorder`` (pyproject.toml): its default gives out the files with
    the most tests first, which put test_cuda.py's few long tests last, CI's tail."""
    missing = [name for name in LONGEST_FIRST if not (ROOT / "tests" / name).is_file()]
    if missing:
        raise pytest.UsageError(f"tests/conftest.py LONGEST_FIRST names no test file: {missing}")
    first = {name: i for i, name in enumerate(LONGEST_FIRST)}
    items.sort(key=lambda item: first.get(item.path.name, len(first)))  # stable
