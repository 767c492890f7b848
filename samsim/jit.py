"""The one decorator every compiled rule uses.

``_nrt=False`` turns off Numba's reference counting inside the rules. The rules never allocate (the
engine preallocates all state), but the state is a NamedTuple of ~40 arrays, and with reference
counting on, Numba increfs and decrefs every member array around inlined calls: measured 133 ns per
call of a two-line rule with it, 2.5 ns without (benchmarks/README has the numbers). ``cache=True``
keeps compiled code between runs.
"""

from numba import njit


def rule(fn=None, **options):
    """``@rule`` / ``@rule(inline="always")``: compile a rule function (no allocation allowed)."""
    options = {"cache": True, "_nrt": False, **options}
    if fn is None:
        return njit(**options)
    return njit(**options)(fn)
