"""The strategy contract, compiled half: what a strategy sees and how its functions are compiled.

A strategy (README "Write your own strategy"; loaded and checked by ``samsim.engine.registry``) is up to six
decision functions, one per ``STAGES`` entry, each ``f(comp, view, params, rng, out)``:
``comp`` the component data, ``view`` the game as the seat sees it (``View``), ``params`` its
parameter vector, ``rng`` its own stream (``samsim.kernel.rng.below``), ``out`` the decision record
(``samsim.kernel.decisions``) it writes its choice into. The rules then check that choice, so a
strategy cannot cheat by mistake.

Why a ``View`` and not the state: a strategy may only know what a player at the table knows. The
view holds the public arrays of one game (leading axis of length 1, so the rules' own queries in
``samsim.kernel.rules.hotel`` work on it with ``g = 0``) and the seat's own notebook (``memo``); the
decks' order, the other seats' random streams and notebooks are not in it, and the price cards are
chosen by every seat before any is put down, so ``played`` shows nothing during that choice.
"""

from typing import NamedTuple

import numpy as np
from numba import njit

from samsim.kernel.jit import rule
from samsim.kernel.state import MEMO_LEN  # noqa: F401  (re-exported: part of the contract)

#: The decision functions a strategy may define, in the order a round asks for them.
STAGES = ("card", "switch", "build", "send_home", "take", "holiday")
#: Longest parameter vector a strategy may declare.
MAX_PARAMS = 32


def decision(fn=None, *, inline=False):
    """Decorator for a strategy's decision functions and the helpers they share: compiled, never
    allocating, and never raising (integer division by zero gives 0: an exception could not
    leave the engine's threads). A stage function is compiled into its entry point; a helper is
    called out of line unless ``inline=True`` (worth it only for a few lines called often)."""
    options = {"_nrt": False, "error_model": "numpy", "inline": "always" if inline else "never"}
    return njit(**options) if fn is None else njit(**options)(fn)


class View(NamedTuple):
    """One game as seat ``me`` sees it. Arrays have a leading axis of length 1 (the game)."""

    me: int  # the deciding seat
    round_no: np.ndarray  # int64[1]: the round being played, 0-based
    tiebreak: np.ndarray  # int64[1]: the tie-breaker lies between seat t-1 and seat t
    flags: np.ndarray  # int64[1, rounds]: nation of every round's flag (laid face up at the start)
    stack_pos: np.ndarray  # int64[1]: tiles revealed so far
    stack_len: np.ndarray  # int64[1]: tiles in the stack at the start (its order is not here)
    table_tiles: np.ndarray  # int64[1, kinds]: face-up tiles waiting for a buyer
    group_chip: np.ndarray  # int64[1, groups, chips]: tourists on offer, -1 = none/taken
    group_left: np.ndarray  # int64[1, groups]: bitmap of group_chip positions still on offer
    pile: np.ndarray  # int64[1, nations]: chips in each face-down pile (a set: anyone can count)
    money: np.ndarray  # int64[1, N]: every seat's coins (every payment is public)
    hand: np.ndarray  # int64[1, N]: price cards in hand (all cards minus played and discarded)
    discard: np.ndarray  # int64[1, N]: discarded price cards
    played: np.ndarray  # int64[1, N]: card on the table this round, -1 before the reveal
    n_rooms: np.ndarray  # int64[1, N]
    room_chip: np.ndarray  # int64[1, N, rooms, 2]
    occupied: np.ndarray  # int64[1, N]: bitmap of rooms holding a tourist
    nation_rooms: np.ndarray  # int64[1, N, nations]
    suites: np.ndarray  # int64[1, N]
    pools: np.ndarray  # int64[1, N]
    specials: np.ndarray  # int64[1, N, 3]: unused SWITCH, SEND_HOME, RECALL tiles
    bought: np.ndarray  # int64[1, N]: tiles bought this round
    hosted: np.ndarray  # int64[1, N]: tourists hosted this round
    memo: np.ndarray  # int64[MEMO_LEN]: this seat's own notebook, zero at the deal, kept all game


@rule
def view_nb(st, g, p):
    """What seat p of game g may see (copies nothing: slices of the state)."""
    return View(p, st.round_no[g:g + 1], st.tiebreak[g:g + 1], st.flags[g:g + 1],
                st.stack_pos[g:g + 1], st.stack_len[g:g + 1], st.table_tiles[g:g + 1],
                st.group_chip[g:g + 1], st.group_left[g:g + 1], st.pile[g:g + 1],
                st.money[g:g + 1], st.hand[g:g + 1], st.discard[g:g + 1], st.played[g:g + 1],
                st.n_rooms[g:g + 1], st.room_chip[g:g + 1], st.occupied[g:g + 1],
                st.nation_rooms[g:g + 1], st.suites[g:g + 1], st.pools[g:g + 1],
                st.specials[g:g + 1], st.bought[g:g + 1], st.hosted[g:g + 1], st.memo[g, p])


#: State fields a strategy never sees (the test of the view checks this list is complete).
HIDDEN = ("tile_stack", "card_order", "draw", "rng", "decision", "asked", "chosen", "memo",
          "tiles_bought", "tourists_hosted", "income", "spent", "ties", "score", "free_rooms", "rank",
          "win_credit", "error", "events", "n_events", "record")


@rule
def seating_nb(ctl, g):
    """The line-up's seating of game g: a pool's design is played in order of game id."""
    return (ctl.game0 + g) % ctl.seat_strategy.shape[0]


@rule
def seat_rng_nb(st, g, p):
    return st.rng[g, 1 + p:2 + p]


@rule
def strategy_args_nb(st, ctl, g, p):
    """What seat p's strategy is given in game g: (view, params, rng, out)."""
    member = ctl.seat_strategy[seating_nb(ctl, g), p]
    return view_nb(st, g, p), ctl.params[member], seat_rng_nb(st, g, p), st.decision[g]
