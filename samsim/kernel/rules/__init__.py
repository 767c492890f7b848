"""The rules of Hotel Samoa as small @njit functions over one game's row ``g`` of the batched state.

Conventions (as in vectorbt's nb modules): only NumPy arrays, NamedTuples of arrays and numbers cross
these functions; nothing allocates inside a round; every function works on game ``g`` alone, so the
engine can run games in any order, on any thread. ``NUMBA_DISABLE_JIT=1`` runs them as plain Python
for debugging.
"""
