"""The compiled game loops: a batch of games in parallel, and one game (dealt, then played from a
given round), each one call of the kernel; ``play_game_nb`` is one game, the body a GPU thread
runs too.

The rules themselves are in ``samsim.kernel.rules``; ``samsim.engine.play`` sizes the batches and
checks what comes back.
"""

import numpy as np
from numba import prange

from samsim.kernel import abi
from samsim.kernel.jit import rule
from samsim.kernel.rules.common import deal_of_nb
from samsim.kernel.rules.round import play_rounds_nb
from samsim.kernel.rules.setup import deal_nb, log_flags_nb

_FIRST_ROUND = np.int64(0)  # typed: with a literal 0 the game loop compiled twice (batch, position)


# nogil: while a batch plays, another thread can run (``samsim.runs.interrupt``'s watchdog, which ends
# a process whose strategy never returns: Python's own signal handlers wait for the kernel).
@rule
def play_game_nb(comp, st, ctl, g):
    """Deal game g and play it to the end: what one thread does, on the CPU and on a GPU
    (``samsim.kernel.cuda``)."""
    deal_nb(comp, st, g, ctl.seed, deal_of_nb(ctl, g))
    log_flags_nb(comp, st, g)
    play_rounds_nb(comp, st, ctl, g, _FIRST_ROUND, comp.rounds)


@rule(parallel=True, inline="never", nogil=True)
def run_batch_nb(comp, st, ctl):
    abi.pack_nb(comp, st, ctl)
    for i in prange(st.money.shape[0]):
        play_game_nb(comp, st, ctl, np.int64(i))  # prange counts in uint64; rows are int64


_ONLY_GAME = np.int64(0)  # typed, so the rules compile once for batches and single games alike


@rule(inline="never", nogil=True)
def deal_one_nb(comp, st, seed, game):
    deal_nb(comp, st, _ONLY_GAME, seed, game)


@rule(inline="never", nogil=True)
def play_one_nb(comp, st, ctl, first, last):
    abi.pack_nb(comp, st, ctl)
    log_flags_nb(comp, st, _ONLY_GAME)
    return play_rounds_nb(comp, st, ctl, _ONLY_GAME, first, last)
