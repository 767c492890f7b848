"""Random: every decision drawn uniformly among the legal ones (the baseline every other strategy
must beat). A card uniformly from hand, RECALL / SWITCH / SEND_HOME each used with a set
probability when held, a tile (or a pass) uniformly among those on the table, a group (or none)
uniformly, each of its tourists taken with probability ``take_pct`` into a random free room, and a
Staff holiday sending home a uniform number of random guests. Its draws follow docs/protocol.md
exactly, so the reference engine replays it.
"""

from samsim.components import CELEBRITY, LOVER, SUITE
from samsim.components import RECALL as RECALL_TILE
from samsim.components import SEND_HOME as SEND_HOME_TILE
from samsim.components import SWITCH as SWITCH_TILE
from samsim.kernel.bits import kth_bit_nb, lowest_bit_nb, popcount_nb
from samsim.kernel.contract import decision
from samsim.kernel.decisions import (
    BUILD,
    CARD,
    GROUP,
    HOLIDAY,
    N_TAKE,
    RECALL,
    SEND_HOME,
    SUITE_ROOM,
    SWITCH,
    TAKE,
)
from samsim.kernel.moves import G
from samsim.kernel.rng import below
from samsim.kernel.rules.hotel import free_rooms_nb, single_lover_rooms_nb

PARAMS = {"recall_pct": 25, "switch_pct": 25, "send_home_pct": 25, "take_pct": 50}
LIMITS = {name: (0, 100) for name in PARAMS}  # percentages: chances of a draw
RECALL_PCT, SWITCH_PCT, SEND_HOME_PCT, TAKE_PCT = range(4)


@decision(inline=True)
def _pick_rooms(rng, mask, count, first, out):
    """Write ``count`` rooms drawn one by one, uniformly, from ``mask`` to out[first:]."""
    for k in range(count):
        room = kth_bit_nb(mask, below(rng, G, popcount_nb(mask)))
        mask &= ~(1 << room)
        out[first + k] = room


@decision(inline=True)
def card(comp, view, params, rng, out):
    hand = view.hand[G, view.me]
    discard = view.discard[G, view.me]
    if view.specials[G, view.me, RECALL_TILE - SWITCH_TILE] > 0 and discard != 0:
        if below(rng, G, 100) < params[RECALL_PCT]:
            for k in range(min(comp.recall_cards, popcount_nb(discard))):
                pick = kth_bit_nb(discard, below(rng, G, popcount_nb(discard)))
                discard &= ~(1 << pick)
                hand |= 1 << pick
                out[RECALL + k] = pick
    out[CARD] = kth_bit_nb(hand, below(rng, G, popcount_nb(hand)))


@decision(inline=True)
def switch(comp, view, params, rng, out):
    hand = view.hand[G, view.me]
    if view.specials[G, view.me, 0] > 0 and hand != 0:
        if below(rng, G, 100) < params[SWITCH_PCT]:
            out[SWITCH] = kth_bit_nb(hand, below(rng, G, popcount_nb(hand)))


@decision(inline=True)
def build(comp, view, params, rng, out):
    p = view.me
    no_suite = ((1 << view.n_rooms[G, p]) - 1) & ~view.suites[G, p]
    options = 0
    for kind in range(view.table_tiles.shape[1]):
        if view.table_tiles[G, kind] > 0 and (kind != SUITE or no_suite != 0):
            options |= 1 << kind
    n = popcount_nb(options)
    choice = below(rng, G, n + 1)
    if choice < n:
        kind = kth_bit_nb(options, choice)
        out[BUILD] = kind
        if kind == SUITE:
            out[SUITE_ROOM] = kth_bit_nb(no_suite, below(rng, G, popcount_nb(no_suite)))


@decision(inline=True)
def send_home(comp, view, params, rng, out):
    occupied = view.occupied[G, view.me]
    if view.specials[G, view.me, SEND_HOME_TILE - SWITCH_TILE] > 0 and occupied != 0:
        if below(rng, G, 100) < params[SEND_HOME_PCT]:
            _pick_rooms(rng, occupied, min(comp.send_home_removals, popcount_nb(occupied)),
                        SEND_HOME, out)


@decision(inline=True)
def take(comp, view, params, rng, out):
    """One group, a random subset, placed celebrities first; lovers pair up, others get a random
    free room."""
    p = view.me
    nonempty = 0
    for group in range(comp.max_groups):
        if view.group_left[G, group]:
            nonempty |= 1 << group
    n = popcount_nb(nonempty)
    choice = below(rng, G, n + 1)
    if choice == n:
        return
    group = kth_bit_nb(nonempty, choice)
    out[GROUP] = group
    selected = 0
    left = view.group_left[G, group]
    while left:
        pos = lowest_bit_nb(left)
        left &= left - 1
        if below(rng, G, 100) < params[TAKE_PCT]:
            selected |= 1 << pos
    free = free_rooms_nb(view, G, p)
    single_lovers = single_lover_rooms_nb(comp, view, G, p)
    placed = 0
    for celebrities_pass in (True, False):
        pending = selected
        while pending:
            pos = lowest_bit_nb(pending)
            pending &= pending - 1
            chip = view.group_chip[G, group, pos]
            if (comp.chip_kind[chip] == CELEBRITY) != celebrities_pass:
                continue
            if comp.chip_kind[chip] == LOVER and single_lovers != 0:
                room = kth_bit_nb(single_lovers, 0)
                single_lovers &= ~(1 << room)
            elif free != 0:
                room = kth_bit_nb(free, below(rng, G, popcount_nb(free)))
                free &= ~(1 << room)
                if comp.chip_kind[chip] == LOVER:
                    single_lovers |= 1 << room
            else:
                continue
            out[TAKE + 2 * placed] = chip
            out[TAKE + 2 * placed + 1] = room
            placed += 1
    out[N_TAKE] = placed


@decision(inline=True)
def holiday(comp, view, params, rng, out):
    occupied = view.occupied[G, view.me]
    if occupied != 0:
        count = below(rng, G, min(comp.holiday_removals, popcount_nb(occupied)) + 1)
        _pick_rooms(rng, occupied, count, HOLIDAY, out)
