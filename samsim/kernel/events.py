"""The event log: every chance event, decision and payment of a game, as rows of seven ints.

Rows are ``(round, kind, seat, a, b, c, d)`` with -1 for unused fields (docs/protocol.md gives the
meaning of a..d for each kind). Both engines write the same rows, which is what the equivalence tests
compare, and the trace and scenario logs are rendered from them.
"""

import numpy as np

from samsim.kernel.jit import rule

# Constants passed to compiled functions are np.int64, not Python ints: Numba compiles a callee
# once per distinct *literal* int argument, which multiplied compile time (one log_nb per kind).
FLAG, REVEAL, DEPART, TOURIST_CARD, ARRIVE, RECALL, PLAY, SWITCH, BUY, POOL_BONUS, SEND_HOME, HOST, \
    HOLIDAY, LEFTOVER, DISCARD, KEEP, TIEBREAK, FINAL, PASS = (np.int64(k) for k in range(1, 20))
#: The "unused field" value, typed so that passing it does not specialise the callee.
NO = np.int64(-1)
#: PASS a=: the seat declined the tile it was offered, or ended its tourist turn hosting nobody.
BUILD_PASS, TOURIST_PASS = np.int64(0), np.int64(1)

KIND_NAMES = ("", "FLAG", "REVEAL", "DEPART", "TOURIST_CARD", "ARRIVE", "RECALL", "PLAY", "SWITCH",
              "BUY", "POOL_BONUS", "SEND_HOME", "HOST", "HOLIDAY", "LEFTOVER", "DISCARD", "KEEP",
              "TIEBREAK", "FINAL", "PASS")
FIELDS = ("round", "kind", "seat", "a", "b", "c", "d")
#: Rows kept per logged game; far above what 12 rounds of 6 players can produce.
MAX_EVENTS = 4096


@rule
def log_nb(events, n_events, g, rnd, kind, seat, a, b, c, d):
    """Append one row to game g's log; a run without logging passes a zero-length ``events``."""
    if events.shape[0] == 0:
        return
    i = n_events[g]
    if i < events.shape[1]:
        row = events[g, i]
        row[0] = rnd
        row[1] = kind
        row[2] = seat
        row[3] = a
        row[4] = b
        row[5] = c
        row[6] = d
    n_events[g] = i + 1


def rows_to_tuples(events: np.ndarray, count: int) -> list[tuple[int, ...]]:
    if count > events.shape[0]:
        raise RuntimeError(f"event log overflow: {count} events, room for {events.shape[0]}")
    return [tuple(int(x) for x in row) for row in events[:count]]
