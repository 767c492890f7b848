"""``retarget`` on a chain of three small functions: the swap reaches the site, what is off the way
is shared, and only the root has the wrappers that let Python call it (samsim.kernel.retarget:
called from Python, a copy on the way would crash the process, not raise)."""

import pytest
from numba import njit

from samsim.kernel.retarget import retarget


@njit
def leaf(x):
    return x + 1


@njit
def other_leaf(x):
    return x + 100


@njit
def aside(x):
    return 2 * x


@njit(inline="always")
def middle(x):
    return leaf(x) + aside(x)


@njit
def root(x):
    return middle(x) * 10


def test_the_copy_calls_the_swap_and_the_original_is_untouched():
    copy = retarget(root, {leaf: other_leaf})
    assert copy(1) == (1 + 100 + 2) * 10
    assert root(1) == (1 + 1 + 2) * 10


def test_only_the_way_to_the_site_is_copied_and_only_the_root_has_wrappers():
    copy = retarget(root, {leaf: other_leaf})
    copy(1)
    way = copy.py_func.__globals__["middle"]
    assert way is not middle and way.py_func.__globals__["leaf"] is not other_leaf
    assert way.py_func.__globals__["aside"] is aside  # off the way: shared as it is
    assert way.targetoptions["inline"] == "never"
    assert way.targetoptions["no_cpython_wrapper"]
    assert "no_cpython_wrapper" not in copy.targetoptions


def test_the_inline_options_are_checked():
    with pytest.raises(ValueError, match="inline must be one of"):
        retarget(root, {leaf: other_leaf}, inline="always")
