"""Per-game counter-keyed random streams (SplitMix64), as @njit functions.

Why not ``np.random``: inside ``prange`` Numba's generator state is per thread, so results would depend
on the thread count and scheduling. Here every game owns its streams, keyed by (seed, game, stream id)
(docs/protocol.md lists the stream ids), so a game gives the same draws whatever the thread count,
chunk size or backend, and can be replayed alone.

All bit mixing stays in uint64: mixing uint64 with int64 in Numba promotes to float64.
"""

import numpy as np

from samsim.kernel.jit import rule

GAMMA = np.uint64(0x9E3779B97F4A7C15)
_M1 = np.uint64(0xBF58476D1CE4E5B9)
_M2 = np.uint64(0x94D049BB133111EB)
_S30 = np.uint64(30)
_S27 = np.uint64(27)
_S31 = np.uint64(31)
_S32 = np.uint64(32)

#: Stream ids (docs/protocol.md).
FLAGS_STREAM = 0
TILES_STREAM = 1
CARDS_STREAM = 2
CHIPS_STREAM = 16  # + round (0-based)
SEAT_STREAM = 64  # + seat


@rule
def mix64(z):
    z = (z ^ (z >> _S30)) * _M1
    z = (z ^ (z >> _S27)) * _M2
    return z ^ (z >> _S31)


@rule
def stream_key(seed, game, stream):
    """Initial state of stream ``stream`` of game ``game`` under ``seed`` (all taken as uint64)."""
    h = mix64(np.uint64(seed) + GAMMA)
    h = mix64(h + np.uint64(game) + GAMMA)
    return mix64(h + np.uint64(stream) + GAMMA)


@rule
def next_u64(states, i):
    """Advance the stream held in ``states[i]`` and return its next 64 random bits."""
    s = states[i] + GAMMA
    states[i] = s
    return mix64(s)


@rule
def below(states, i, n):
    """Uniform integer in 0..n-1 (1 <= n < 2**32) from the stream in ``states[i]``."""
    return np.int64(((next_u64(states, i) >> _S32) * np.uint64(n)) >> _S32)


@rule
def shuffle(states, i, a, n, k):
    """Forward Fisher-Yates over ``a[:n]``, stopped after the first ``k`` positions are drawn.

    Forward order makes a partial draw of k items equal the prefix of a full shuffle.
    """
    for j in range(min(k, n - 1)):
        m = j + below(states, i, n - j)
        t = a[j]
        a[j] = a[m]
        a[m] = t
