"""Building blocks every strategy may call, and the default play a strategy inherits.

All functions read a ``View`` (``samsim.kernel.contract``): its arrays have a leading game axis of length
1, so the rules' own queries (``samsim.kernel.rules.hotel``, ``samsim.kernel.rules.payment``) run on it with
``g = 0`` and a strategy values a placement exactly as the rules will pay it. Nothing here
allocates: candidate sets are bitmaps, scratch lives in the decision record ``out``.

Everything is compiled into its caller (``rule``: inline), the shared helpers too: Numba passes
the component data and a view to a function it calls as some two hundred scalars, which cost
greedy's card choice about half its time when round_value_nb was called out of line (measured:
README "Performance").
"""

import numpy as np

from samsim.components import CELEBRITY, EXTRA_ROOM, LOVER, POOL, RICH, SUITE
from samsim.kernel.bits import kth_bit_nb, lowest_bit_nb, popcount_nb
from samsim.kernel.decisions import (
    BUILD,
    CARD,
    GROUP,
    HOLIDAY,
    MAX_PICKS,
    MAX_TAKE,
    N_TAKE,
    SUITE_ROOM,
    TAKE,
)
from samsim.kernel.jit import rule
from samsim.kernel.rng import below
from samsim.kernel.rules.common import price_tie_rank_nb
from samsim.kernel.rules.hotel import buoy_points_nb, free_rooms_nb, single_lover_rooms_nb
from samsim.kernel.rules.payment import payment_nb

G = np.int64(0)  # the only game of a view


# ------------------------------------------------------------------------------- queries

@rule
def rounds_left_nb(comp, view):
    """Rounds still to be played after this one."""
    return comp.rounds - 1 - view.round_no[G]


@rule
def stay_nb(comp, view, nation):
    """Rounds a tourist of ``nation`` present now stays (until its flag's next round; to the end
    of the game if none)."""
    r = view.round_no[G]
    for later in range(r + 1, comp.rounds):
        if view.flags[G, later] == nation:
            return later - r
    return comp.rounds - r


@rule
def tourists_on_offer_nb(view):
    total = 0
    for group in range(view.group_left.shape[1]):
        total += popcount_nb(view.group_left[G, group])
    return total


@rule
def largest_group_nb(view):
    best = 0
    for group in range(view.group_left.shape[1]):
        best = max(best, popcount_nb(view.group_left[G, group]))
    return best


@rule
def cheapest_in_nb(comp, cards):
    """The normal card of lowest price in the bitmap ``cards`` (-1 if none)."""
    best, best_price = -1, 1 << 30
    while cards:
        card = lowest_bit_nb(cards)
        cards &= cards - 1
        if card != comp.holiday_card and comp.card_price[card] < best_price:
            best, best_price = card, comp.card_price[card]
    return best


@rule
def dearest_in_nb(comp, cards):
    """The normal card of highest price in the bitmap ``cards`` (-1 if none)."""
    best, best_price = -1, -1
    while cards:
        card = lowest_bit_nb(cards)
        cards &= cards - 1
        if card != comp.holiday_card and comp.card_price[card] > best_price:
            best, best_price = card, comp.card_price[card]
    return best


@rule
def mean_price_nb(comp, hand):
    """Mean room price of the normal cards in ``hand`` (0 if none)."""
    total, count = 0, 0
    cards = hand
    while cards:
        card = lowest_bit_nb(cards)
        cards &= cards - 1
        if card != comp.holiday_card:
            total += comp.card_price[card]
            count += 1
    return total / count if count else 0.0


# ------------------------------------------------------------------------------- placement

@rule
def _planned_pay_nb(comp, view, p, chip, room, price, near_new_celebrity):
    """What ``chip`` pays moving into ``room`` now, counting celebrities placed earlier in the same
    turn (``near_new_celebrity``: the rooms next to them), whom the view does not hold yet."""
    pay = payment_nb(comp, view, G, p, chip, room, price)
    undoubled = pay - comp.chip_buoy[chip] * view.pools[G, p] == price
    return pay + price if undoubled and (near_new_celebrity >> room) & 1 else pay


@rule
def _room_for_nb(comp, view, p, chip, price, free, single_lovers, near_new_celebrity):
    """Best room for ``chip`` now: (room, pay), room -1 if none. A lover joins a single lover
    first (it pays and keeps a room free); a celebrity takes the free base room with most free
    neighbours (they will be doubled); others the best-paying room, lowest index on ties.
    ``near_new_celebrity``: rooms next to a celebrity placed earlier in the same turn."""
    kind = comp.chip_kind[chip]
    if kind == LOVER and single_lovers != 0:
        room = lowest_bit_nb(single_lovers)
        return room, _planned_pay_nb(comp, view, p, chip, room, price, near_new_celebrity)
    best, best_key, best_pay = -1, -(1 << 40), 0
    rooms = free
    while rooms:
        room = lowest_bit_nb(rooms)
        rooms &= rooms - 1
        pay = _planned_pay_nb(comp, view, p, chip, room, price, near_new_celebrity)
        key = pay * 64
        if kind == CELEBRITY and room < comp.base_rooms:
            key += 8 * popcount_nb(comp.room_adjacent[room] & free)
        if kind == RICH and (view.suites[G, p] >> room) & 1:
            key -= 4  # a suite would double anyone else: keep it for them
        if key > best_key:
            best, best_key, best_pay = room, key, pay
    return best, best_pay


@rule
def _moved_in_nb(comp, kind, room, free, single_lovers, near_new_celebrity):
    """The hotel's bitmaps once a tourist of ``kind`` moved into ``room``, in a plan: (free
    rooms, rooms holding one lover, rooms next to a celebrity placed in this plan)."""
    if kind == CELEBRITY and room < comp.base_rooms:
        near_new_celebrity |= comp.room_adjacent[room]
    if kind == LOVER and (single_lovers >> room) & 1:
        single_lovers &= ~(1 << room)
    else:
        free &= ~(1 << room)
        if kind == LOVER:
            single_lovers |= 1 << room
    return free, single_lovers, near_new_celebrity


@rule
def plan_take_nb(comp, view, p, price, group, most, out):
    """Place up to ``most`` tourists of ``group`` in seat p's hotel for the most money, writing
    the placements to ``out`` (GROUP, N_TAKE, TAKE pairs); returns the money they pay.

    Order: celebrities first (their neighbours are doubled when they move in after them), then the
    others by what a doubling adds (rich last: they are doubled anyway). Swimmers pay their buoys
    per pool. The hotel is not changed: rooms used are tracked in bitmaps.
    """
    out[GROUP] = group
    out[N_TAKE] = 0
    free = free_rooms_nb(view, G, p)
    single_lovers = single_lover_rooms_nb(comp, view, G, p)
    placed, total, near_new_celebrity = 0, 0, 0
    for pass_no in range(3):  # 0: celebrities, 1: everyone but rich and celebrities, 2: rich
        left = view.group_left[G, group]
        while left and placed < most:
            pos = lowest_bit_nb(left)
            left &= left - 1
            chip = view.group_chip[G, group, pos]
            kind = comp.chip_kind[chip]
            wanted = 0 if kind == CELEBRITY else (2 if kind == RICH else 1)
            if wanted != pass_no:
                continue
            room, pay = _room_for_nb(comp, view, p, chip, price, free, single_lovers,
                                     near_new_celebrity)
            if room < 0:
                continue
            free, single_lovers, near_new_celebrity = _moved_in_nb(
                comp, kind, room, free, single_lovers, near_new_celebrity)
            out[TAKE + 2 * placed] = chip
            out[TAKE + 2 * placed + 1] = room
            placed += 1
            total += pay
    out[N_TAKE] = placed
    return total


@rule
def best_take_nb(comp, view, p, price, most, out):
    """The group whose tourists pay seat p the most (up to ``most`` of them), planned into ``out``;
    returns the money, 0 (and no group) if nobody can be hosted. Each group is valued from its
    plan (``plan_groups_nb``); only the chosen one is placed."""
    best_group, best_total = -1, 0
    if plan_groups_nb(comp, view, p, out):
        for group in range(view.group_left.shape[1]):
            if view.group_left[G, group] != 0:
                total = _planned_money_nb(comp, view, p, price, group, most, out)[0]
                if total > best_total:
                    best_group, best_total = group, total
    else:
        for group in range(view.group_left.shape[1]):
            if view.group_left[G, group] != 0:
                total = plan_take_nb(comp, view, p, price, group, most, out)
                if total > best_total:
                    best_group, best_total = group, total
    out[GROUP] = -1
    out[N_TAKE] = 0
    if best_group >= 0:
        plan_take_nb(comp, view, p, price, best_group, most, out)
    return best_total


# ------------------------------------------------------------------------------- tiles

@rule
def tile_value_nb(comp, view, p, kind):
    """Rough money a tile bought now brings seat p by the end of the game.

    A room earns about the mean price of the seat's hand each time a new guest moves in; guests
    stay ~rounds/(flags per nation) rounds, so a room is re-let rounds_left/stay times. A suite
    adds the same again for its room, a pool pays the buoys present plus future swimmers, a special
    tile is worth its end-of-game value (its use is a bonus the seat may or may not find).
    """
    left = rounds_left_nb(comp, view) + 1
    price = mean_price_nb(comp, view.hand[G, p] | view.discard[G, p])
    lets = left / (comp.rounds / comp.flags_per_nation)
    if kind == EXTRA_ROOM or kind == SUITE:
        return price * lets * 0.8
    if kind == POOL:
        return buoy_points_nb(comp, view, G, p) + 0.5 * left
    return comp.special_tile_value + 1.0


@rule
def best_tile_nb(comp, view, p, bid, scale):
    """(kind, surplus) of the tile on the table with the largest ``scale * value - bid``; kind -1
    if none has a positive surplus or seat p could not pay."""
    best, best_surplus = -1, 0.0
    if bid > view.money[G, p]:
        return best, best_surplus
    rooms = (1 << view.n_rooms[G, p]) - 1
    for kind in range(view.table_tiles.shape[1]):
        if view.table_tiles[G, kind] <= 0:
            continue
        if kind == SUITE and rooms & ~view.suites[G, p] == 0:
            continue
        surplus = scale * tile_value_nb(comp, view, p, kind) - bid
        if surplus > best_surplus:
            best, best_surplus = kind, surplus
    return best, best_surplus


@rule
def suite_room_nb(comp, view, p):
    """Room a new suite should cover: an occupied, non-suite base room next to no celebrity
    doubles nobody yet; prefer rooms free now (the next guest pays double), lowest index."""
    rooms = ((1 << view.n_rooms[G, p]) - 1) & ~view.suites[G, p]
    free = rooms & ~view.occupied[G, p]
    return lowest_bit_nb(free) if free else lowest_bit_nb(rooms)


@rule
def buy_nb(comp, view, p, kind, out):
    out[BUILD] = kind
    if kind == SUITE:
        out[SUITE_ROOM] = suite_room_nb(comp, view, p)


# ------------------------------------------------------------------------------- removals

@rule
def longest_stayers_nb(comp, view, p, count, first, out):
    """Write up to ``count`` occupied rooms of seat p whose guests stay longest to out[first:];
    returns how many. Those rooms would be blocked the longest."""
    rooms = view.occupied[G, p]
    k = 0
    while k < count and rooms:
        best, best_stay = -1, -1
        pending = rooms
        while pending:
            room = lowest_bit_nb(pending)
            pending &= pending - 1
            chip = view.room_chip[G, p, room, 0]
            stay = stay_nb(comp, view, chip // comp.chips_per_nation)
            partner = view.room_chip[G, p, room, 1]
            if partner >= 0:
                stay = min(stay, stay_nb(comp, view, partner // comp.chips_per_nation))
            if stay > best_stay:
                best, best_stay = room, stay
        out[first + k] = best
        rooms &= ~(1 << best)
        k += 1
    return k


# ------------------------------------------------------------------------------- defaults

@rule(inline="never")
def default_card(comp, view, params, rng, out):
    """A card drawn uniformly from hand, no RECALL: no opinion on pricing."""
    hand = view.hand[G, view.me]
    out[CARD] = kth_bit_nb(hand, below(rng, G, popcount_nb(hand)))


@rule
def default_switch(comp, view, params, rng, out):
    """Keep the card (the SWITCH tile is worth its end value unused)."""


@rule(inline="never")
def default_build(comp, view, params, rng, out):
    """Buy the tile worth most above its bid (``tile_value_nb``), or pass."""
    bid = comp.card_bid[view.played[G, view.me]]
    kind, _ = best_tile_nb(comp, view, view.me, bid, 1.0)
    if kind >= 0:
        buy_nb(comp, view, view.me, kind, out)


@rule
def default_send_home(comp, view, params, rng, out):
    """Keep the SEND_HOME tile (worth its end value unused)."""


@rule(inline="never")
def default_take(comp, view, params, rng, out):
    """The group that pays most, every tourist that fits, placed for the most money."""
    price = comp.card_price[view.played[G, view.me]]
    best_take_nb(comp, view, view.me, price, np.int64(1 << 20), out)


@rule(inline="never")
def default_holiday(comp, view, params, rng, out):
    """Send home the guests who would block their rooms longest."""
    longest_stayers_nb(comp, view, view.me, min(comp.holiday_removals, MAX_PICKS), HOLIDAY, out)


# ------------------------------------------------------------------------------- the round ahead
# A "profile" packs one price card per seat into an int (4 bits a seat, seat s at bits 4s..4s+3):
# the cards of a round as a strategy imagines them, without arrays.

@rule
def card_of_nb(profile, seat):
    return (profile >> (4 * seat)) & 15


@rule
def with_card_nb(profile, seat, card):
    return (profile & ~(15 << (4 * seat))) | (card << (4 * seat))


@rule
def typical_card_nb(comp, hand):
    """The normal card of median price in ``hand`` (the (n // 2)-th of its n normal cards,
    cheapest first, equal prices by index): a neutral guess of a rival's card; the Staff holiday
    if the hand holds no normal card (never -1: a profile's card indexes price tables)."""
    n = popcount_nb(hand & ~(1 << comp.holiday_card))
    if n == 0:
        return comp.holiday_card
    k = n // 2
    for card in comp.cards_by_price:
        if (hand >> card) & 1:
            if k == 0:
                return card
            k -= 1
    return comp.holiday_card


@rule
def builders_before_nb(comp, view, p, profile):
    """Seats offered a tile before seat p under ``profile`` (higher bid; equal bids clockwise from
    the tie-breaker), counting only those who could pay."""
    n = view.money.shape[1]
    t = view.tiebreak[G]
    mine = card_of_nb(profile, p)
    my_key = comp.card_bid[mine] * 8 + (n - 1 - (p - t) % n)
    count = 0
    for q in range(n):
        card = card_of_nb(profile, q)
        if q == p or card == comp.holiday_card or comp.card_bid[card] > view.money[G, q]:
            continue
        if comp.card_bid[card] * 8 + (n - 1 - (q - t) % n) > my_key:
            count += 1
    return count


@rule
def hosts_before_nb(comp, view, p, profile):
    """Bitmap of seats offered tourists before seat p under ``profile`` (lower price; equal prices
    in the tie-breaker's order, ``price_tie_rank_nb``)."""
    n = view.money.shape[1]
    t = view.tiebreak[G]
    mine = card_of_nb(profile, p)
    my_key = comp.card_price[mine] * 8 + price_tie_rank_nb(comp, n, t, p)
    before = 0
    for q in range(n):
        card = card_of_nb(profile, q)
        if q != p and card != comp.holiday_card and \
                comp.card_price[card] * 8 + price_tie_rank_nb(comp, n, t, q) < my_key:
            before |= 1 << q
    return before


@rule
def rivals_ahead_nb(comp, view, p, card):
    """How many rivals would be offered tourists before seat p playing ``card`` if each played a
    card drawn uniformly from its hand (equal prices: the tie-breaker's order, as
    ``hosts_before_nb``; the Staff holiday is never ahead): the expected number, by counting
    cards, no profile valued. What the typical profile's money leaves out: how likely rivals
    are to undercut."""
    n = view.money.shape[1]
    t = view.tiebreak[G]
    price = comp.card_price[card]
    cheaper, same = 0, 0  # bitmaps of the normal cards priced below and alike
    for c in range(comp.holiday_card):
        if comp.card_price[c] < price:
            cheaper |= 1 << c
        elif comp.card_price[c] == price:
            same |= 1 << c
    mine = price_tie_rank_nb(comp, n, t, p)
    ahead = 0.0
    for q in range(n):
        hand = view.hand[G, q]
        if q == p or hand == 0:
            continue
        below = popcount_nb(hand & cheaper)
        if price_tie_rank_nb(comp, n, t, q) < mine:
            below += popcount_nb(hand & same)
        ahead += below / popcount_nb(hand)
    return ahead


# A plan of the round (``plan_round_nb``) works out once per decision what does not depend on the
# cards played, so that a strategy can value many profiles against it (``planned_value_nb``):
# the worth of the best tile seat p could buy, and for each group on offer the money of seat p's
# first k placements, for every k. That money is price * M_k + pools * B_k: a placement pays the
# room price once or twice (doubled: rich, suite, next to a celebrity) plus its buoys per pool,
# and which room each tourist takes does not depend on the price as long as it is positive (a
# doubled room beats any tie-break of ``_room_for_nb``, which are worth at most half a price;
# the plan checks that, and prices the slow way where not). Taking fewer tourists is taking the
# first k of the same sequence, so one pass over a group serves every k.
#
# At a price of 0 only the buoys pay, and the same tourists are placed whichever rooms they take.
#
# The plan of group i lives in out[TAKE + i * slot + k], k = 0 .. slot - 1 (slot = the TAKE
# scratch shared out among the groups; the card decision uses none of it), each entry packing
# M_k, B_k and k, for k up to the placements the whole group gets (entry 0 holds that count).
# Where a plan cannot be made (a group too long for its slot, a hotel grid whose tie-breaks could
# outweigh a doubling) no group is planned and every value is worked out by ``plan_take_nb``.
_M_BITS, _B_BITS, _K_BITS = 16, 24, 16
_K_AT = _M_BITS + _B_BITS
_COUNT_AT = _K_AT + _K_BITS  # entry 0 (no placement) holds the group's placements here


@rule
def _plan_slot_nb(comp):
    return (2 * MAX_TAKE) // max(comp.max_groups, 1)


@rule
def _hotel_bitmaps_nb(comp, view, p):
    """(rooms next to a celebrity, rooms holding one lover) of seat p: ``next_to_celebrity_nb``
    and ``single_lover_rooms_nb`` of every room at once, in one pass over the hotel."""
    celebrities, single_lovers = 0, 0
    rooms = view.occupied[G, p]
    while rooms:
        room = lowest_bit_nb(rooms)
        rooms &= rooms - 1
        first, second = view.room_chip[G, p, room, 0], view.room_chip[G, p, room, 1]
        if comp.chip_kind[first] == CELEBRITY or (second >= 0 and comp.chip_kind[second] == CELEBRITY):
            celebrities |= 1 << room
        if second < 0 and comp.chip_kind[first] == LOVER:
            single_lovers |= 1 << room
    near = 0
    for room in range(comp.base_rooms):
        if comp.room_adjacent[room] & celebrities:
            near |= 1 << room
    return near, single_lovers


@rule
def _plan_room_nb(comp, suites, kind, free, doubled):
    """``_room_for_nb``'s room for a tourist of ``kind`` among ``free`` rooms at any positive
    price (``doubled``: rooms where it would pay double), and whether it pays double; -1 if none.
    Its key is 64 per doubling plus tie-breaks worth less: for most tourists the lowest doubled
    room, else the lowest free one; for the rich (doubled anywhere) the lowest room without a
    suite; for a celebrity the doubled room with the most free neighbours."""
    if free == 0:
        return -1, False
    if kind == RICH:
        plain = free & ~suites
        return lowest_bit_nb(plain if plain else free), True
    if kind != CELEBRITY:
        both = free & doubled
        return (lowest_bit_nb(both), True) if both else (lowest_bit_nb(free), False)
    room, best_key = -1, -1
    rooms = free
    while rooms:
        r = lowest_bit_nb(rooms)
        rooms &= rooms - 1
        key = 64 * (1 + ((doubled >> r) & 1))
        if r < comp.base_rooms:
            key += 8 * popcount_nb(comp.room_adjacent[r] & free)
        if key > best_key:
            room, best_key = r, key
    return room, (doubled >> room) & 1 == 1


@rule
def _plan_group_nb(comp, view, p, group, at, slot, free, single_lovers, doubling, out):
    """``plan_take_nb``'s placements of ``group`` (as many as fit), recorded as money per
    placement count at out[at:at + slot] (above); False if they do not fit there."""
    suites = view.suites[G, p]
    placed, m_sum, b_sum, near_new_celebrity = 0, 0, 0, 0
    out[at] = 0
    celebrities, others, rich = 0, 0, 0
    left = view.group_left[G, group]
    while left:
        pos = lowest_bit_nb(left)
        left &= left - 1
        kind = comp.chip_kind[view.group_chip[G, group, pos]]
        if kind == CELEBRITY:
            celebrities |= 1 << pos
        elif kind == RICH:
            rich |= 1 << pos
        else:
            others |= 1 << pos
    for pass_no in range(3):  # plan_take_nb's order: celebrities, everyone else, rich
        left = celebrities if pass_no == 0 else (others if pass_no == 1 else rich)
        while left:
            pos = lowest_bit_nb(left)
            left &= left - 1
            chip = view.group_chip[G, group, pos]
            kind = comp.chip_kind[chip]
            doubled = doubling | near_new_celebrity
            if kind == LOVER and single_lovers != 0:
                room = lowest_bit_nb(single_lovers)
                double = (doubled >> room) & 1 == 1
            else:
                room, double = _plan_room_nb(comp, suites, kind, free, doubled)
                if room < 0:
                    continue
            free, single_lovers, near_new_celebrity = _moved_in_nb(
                comp, kind, room, free, single_lovers, near_new_celebrity)
            placed += 1
            m_sum += 2 if double else 1
            b_sum += comp.chip_buoy[chip]
            if placed >= slot or b_sum >= 1 << _B_BITS:
                return False
            out[at + placed] = m_sum | (b_sum << _M_BITS) | (placed << _K_AT)
    out[at] = placed << _COUNT_AT
    return True


@rule
def plan_groups_nb(comp, view, p, out):
    """Plan every group on offer for seat p (above) into out's TAKE scratch; whether they could
    be planned."""
    slot = _plan_slot_nb(comp)
    widest = 0  # the largest tie-break of _room_for_nb must stay below a doubling's 64
    for room in range(comp.base_rooms):
        widest = max(widest, popcount_nb(comp.room_adjacent[room]))
    if slot < 2 or 8 * widest >= 64:
        return False
    near_celebrity, single_lovers = _hotel_bitmaps_nb(comp, view, p)
    free = free_rooms_nb(view, G, p)
    doubling = view.suites[G, p] | near_celebrity
    for group in range(view.group_left.shape[1]):
        if not _plan_group_nb(comp, view, p, group, TAKE + group * slot, slot, free, single_lovers,
                              doubling, out):
            return False
    return True


@rule
def _planned_money_nb(comp, view, p, price, group, most, out):
    """(money, placements) of seat p's first ``most`` placements of ``group`` at ``price``, read
    from its plan."""
    at = TAKE + group * _plan_slot_nb(comp)
    money = out[at + min(most, out[at] >> _COUNT_AT)]
    return (price * (money & ((1 << _M_BITS) - 1))
            + view.pools[G, p] * ((money >> _M_BITS) & ((1 << _B_BITS) - 1)),
            (money >> _K_AT) & ((1 << _K_BITS) - 1))


@rule
def plan_round_nb(comp, view, p, out):
    """Plan the round for seat p (above): writes each group's placements into out's TAKE scratch
    and returns (worth, planned, tiles): the worth (``tile_value_nb``) of the best tile on the
    table seat p may take (-1.0 if none), whether the groups could be planned, and the tiles on
    the table. Valid until the view or that scratch changes; ``planned_value_nb`` reads it."""
    planned = plan_groups_nb(comp, view, p, out)
    worth = -1.0
    tiles = 0
    rooms = (1 << view.n_rooms[G, p]) - 1
    for kind in range(view.table_tiles.shape[1]):  # best_tile_nb's choice, for any bid
        if view.table_tiles[G, kind] <= 0 or (kind == SUITE and rooms & ~view.suites[G, p] == 0):
            continue
        worth = max(worth, tile_value_nb(comp, view, p, kind))
    for kind in range(view.table_tiles.shape[1]):
        tiles += view.table_tiles[G, kind]
    return worth, planned, tiles


@rule
def planned_value_nb(comp, view, p, profile, tile_scale, plan, out):
    """``round_value_nb`` against ``plan`` = ``plan_round_nb(comp, view, p, out)``: the same
    value, without working out again what does not depend on the cards."""
    worth, planned, tiles = plan
    card = card_of_nb(profile, p)
    if card == comp.holiday_card:
        return 0.0, 0
    value = 0.0
    bought = 0
    bid = comp.card_bid[card]
    if worth >= 0.0 and bid <= view.money[G, p] and tiles > builders_before_nb(comp, view, p,
                                                                                profile):
        surplus = tile_scale * worth - bid  # best_tile_nb's, since scale >= 0 keeps the order
        if surplus > 0.0:
            value += surplus
            bought = 1
    # tourists: take away what earlier hosts would take, then plan on what remains
    before = hosts_before_nb(comp, view, p, profile)
    taken = 0  # packed 8 bits a group: tourists earlier hosts took from it
    while before:
        q = lowest_bit_nb(before)
        before &= before - 1
        room = popcount_nb(free_rooms_nb(view, G, q))
        best, best_left = -1, 0
        for group in range(view.group_left.shape[1]):
            left = popcount_nb(view.group_left[G, group]) - ((taken >> (8 * group)) & 255)
            if left > best_left:
                best, best_left = group, left
        if best >= 0:
            taken += min(room, best_left) << (8 * best)
    price = comp.card_price[card]
    best_pay = 0
    hosts = 0
    for group in range(view.group_left.shape[1]):
        left = popcount_nb(view.group_left[G, group]) - ((taken >> (8 * group)) & 255)
        if left <= 0:
            continue
        if planned:
            pay, placed = _planned_money_nb(comp, view, p, price, group, left, out)
        else:
            pay = plan_take_nb(comp, view, p, price, group, left, out)
            placed = out[N_TAKE]
        if pay > best_pay:
            best_pay, hosts = pay, placed
    out[GROUP] = -1
    out[N_TAKE] = 0
    return value + best_pay, hosts + bought


@rule
def round_value_nb(comp, view, p, profile, tile_scale, out):
    """Money seat p can expect this round if everyone plays ``profile``: tourists left for it after
    the seats offered before it took theirs (each from the largest group, as many as fit), planned
    for the most pay, plus the best tile's surplus if a tile is still there at its offer.
    Uses out[GROUP:] as scratch. Returns (value, hosts): hosts > 0 when the card would be spent.
    Valuing several profiles, plan once (``plan_round_nb``) and call ``planned_value_nb``."""
    return planned_value_nb(comp, view, p, profile, tile_scale, plan_round_nb(comp, view, p, out),
                            out)


@rule
def normal_cards_nb(comp, hand):
    return popcount_nb(hand & ~(1 << comp.holiday_card))


@rule
def card_cost_nb(comp, view, p, card, keep):
    """What spending ``card`` now costs in later rounds: worth ``keep`` times its price per
    tourist a round typically brings, and only when cards are scarcer than the rounds left."""
    cards = normal_cards_nb(comp, view.hand[G, p])
    left = rounds_left_nb(comp, view)
    if cards == 0 or left == 0:
        return 0.0
    scarcity = min(1.0, left / cards)
    return keep * scarcity * comp.card_price[card] * 2.0


@rule
def typical_profile_nb(comp, view):
    """Profile with every rival on the median card of its hand."""
    profile = 0
    for q in range(view.money.shape[1]):
        if q != view.me:
            profile = with_card_nb(profile, q, typical_card_nb(comp, view.hand[G, q]))
    return profile


@rule
def best_planned_card_nb(comp, view, profile, tile_scale, plan, out):
    """(card, value): the normal card in hand worth most this round against ``profile``
    (``planned_value_nb`` against ``plan``); the Staff holiday and -1.0 if no normal card is
    left."""
    p = view.me
    best, best_value = comp.holiday_card, -1.0
    cards = view.hand[G, p] & ~(1 << comp.holiday_card)
    while cards:
        c = lowest_bit_nb(cards)
        cards &= cards - 1
        value, _ = planned_value_nb(comp, view, p, with_card_nb(profile, p, c), tile_scale, plan,
                                    out)
        if value > best_value:
            best, best_value = c, value
    return best, best_value


@rule
def best_card_now_nb(comp, view, profile, tile_scale, out):
    """The normal card in hand worth most this round against ``profile`` (``round_value_nb``);
    the Staff holiday if no normal card is left."""
    plan = plan_round_nb(comp, view, view.me, out)
    return best_planned_card_nb(comp, view, profile, tile_scale, plan, out)[0]


@rule
def holiday_pays_nb(comp, view, p, best_value, full, worth):
    """Whether seat p should sit this round out with the Staff holiday card: it holds it, at most
    ``full`` rooms are free, a later round remains, and either the next round is doubled or this
    round would bring less than ``worth`` (``best_value``: its best card's money this round)."""
    r = view.round_no[G]
    if not (view.hand[G, p] >> comp.holiday_card) & 1 or r + 1 >= comp.rounds:
        return False
    if popcount_nb(free_rooms_nb(view, G, p)) > full:
        return False
    return comp.round_factor[r + 1] > 1 or best_value < worth


@rule
def best_switch_nb(comp, view, gain, keep, out):
    """The card a SWITCH tile should turn the played card into (-1: keep it): the one worth most
    against the cards on the table, if it brings ``gain`` coins more than the played card. A
    card's worth is this round's money, less what spending it costs later rounds
    (``card_cost_nb`` with ``keep``; 0: money alone); the Staff holiday is worth nothing."""
    if view.specials[G, view.me, 0] <= 0:  # no SWITCH tile: no call
        return -1
    return _switch_to_nb(comp, view, gain, keep, out)


@rule(inline="never")
def _switch_to_nb(comp, view, gain, keep, out):
    """``best_switch_nb`` for a seat holding a SWITCH tile. Out of line, so that it compiles once
    for every strategy that switches (inlined, it took half a minute to compile into each), and
    is called only where a SWITCH tile can be used, a few times a game."""
    p = view.me
    profile = 0
    for q in range(view.money.shape[1]):
        profile = with_card_nb(profile, q, view.played[G, q])
    plan = plan_round_nb(comp, view, p, out)
    current = view.played[G, p]
    now = _kept_worth_nb(comp, view, p, profile, current, keep, plan, out) \
        if current != comp.holiday_card else 0.0
    best, best_value = -1, now + gain
    cards = view.hand[G, p] & ~(1 << comp.holiday_card)
    while cards:
        c = lowest_bit_nb(cards)
        cards &= cards - 1
        value = _kept_worth_nb(comp, view, p, profile, c, keep, plan, out)
        if value > best_value:
            best, best_value = c, value
    return best


@rule
def _kept_worth_nb(comp, view, p, profile, card, keep, plan, out):
    value, spent = planned_value_nb(comp, view, p, with_card_nb(profile, p, card), 1.0, plan, out)
    if spent > 0:
        value -= card_cost_nb(comp, view, p, card, keep)
    return value
