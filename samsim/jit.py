"""The one decorator every compiled rule uses, and why it is set up this way.

Three measured costs decide the options (numbers from benchmarks/quick.py-style loops, one core):

* ``_nrt=False``: the rules never allocate (the engine preallocates all state), but the state is a
  NamedTuple of ~40 arrays and with reference counting on, Numba increfs and decrefs every member
  around calls: 133 ns per call of a two-line rule with it, 2.5 ns without.
* ``inline="always"`` (the default here): Numba passes a NamedTuple argument as hundreds of scalar
  arguments, so an out-of-line call of a rule taking (comp, st, ctl) cost ~150 ns. Inlining the rules
  into the round took four players from ~50,000 to ~80,000 games/s. The round itself and the deal
  are compiled ``inline="never"``: they are called a dozen times per game, and inlining them as well
  doubled compile time for no measurable gain.
* ``cache=True``: compiled code is kept between runs. Constants passed to rules are np.int64 (see
  events.py), since Numba compiles a callee once per distinct *literal* int argument.
"""

from numba import njit


def rule(fn=None, **options):
    """``@rule`` / ``@rule(inline="never")``: compile a rule function (no allocation allowed)."""
    options = {"cache": True, "_nrt": False, "inline": "always", **options}
    if fn is None:
        return njit(**options)
    return njit(**options)(fn)
