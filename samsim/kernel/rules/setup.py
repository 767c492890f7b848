"""The deal: flags, tile stack, tourist-card order and starting positions of one game.

Everything here depends only on (seed, game id): the same seed deals the same game to any line-up of
strategies, which paired comparisons rely on.
"""

from samsim.kernel.events import FLAG, NO, log_nb
from samsim.kernel.jit import rule
from samsim.kernel.rng import (
    CARDS_STREAM,
    FLAGS_STREAM,
    SEAT_STREAM,
    TILES_STREAM,
    shuffle,
    stream_key,
)


@rule
def _lay_flags_nb(comp, st, g, seed, game):
    """Stacks of one flag per nation, each shuffled, laid in order; equal neighbours where stacks
    meet are split by swapping the later flag with the next flag of its stack that differs."""
    rng = st.rng[g]
    rng[0] = stream_key(seed, game, FLAGS_STREAM)
    flags = st.flags[g]
    n = comp.n_nations
    for s in range(comp.flags_per_nation):
        stack = flags[s * n:(s + 1) * n]
        for k in range(n):
            stack[k] = k
        shuffle(rng, 0, stack, n, n)
    for s in range(1, comp.flags_per_nation):
        first = s * n
        if flags[first] == flags[first - 1]:
            for k in range(first + 1, first + n):
                if flags[k] != flags[first - 1]:
                    later = flags[first]
                    flags[first] = flags[k]
                    flags[k] = later
                    break


@rule(inline="never")
def deal_nb(comp, st, g, seed, game):
    """Set up game ``g`` (id ``game``) from scratch: the deal plus every seat's starting position."""
    n_players = st.money.shape[1]
    rng = st.rng[g]
    _lay_flags_nb(comp, st, g, seed, game)

    rng[0] = stream_key(seed, game, TILES_STREAM)
    i = 0
    for kind in range(comp.tile_count.shape[0]):
        for _ in range(comp.tile_count[kind]):
            st.tile_stack[g, i] = kind
            i += 1
    shuffle(rng, 0, st.tile_stack[g], i, i)
    st.stack_len[g] = i
    st.stack_pos[g] = 0

    rng[0] = stream_key(seed, game, CARDS_STREAM)
    n_cards = st.card_order.shape[1]
    for k in range(n_cards):
        st.card_order[g, k] = k
    shuffle(rng, 0, st.card_order[g], n_cards, n_cards)

    full_pile = (1 << comp.chips_per_nation) - 1
    for nation in range(comp.n_nations):
        st.pile[g, nation] = full_pile
    st.table_tiles[g, :] = 0
    st.group_chip[g, :, :] = -1
    st.group_left[g, :] = 0
    st.round_no[g] = 0
    st.tiebreak[g] = comp.tiebreak_start[n_players]
    all_cards = (1 << comp.card_bid.shape[0]) - 1
    for p in range(n_players):
        st.money[g, p] = comp.starting_money + comp.seat_money[n_players, p]
        st.hand[g, p] = all_cards
        st.discard[g, p] = 0
        st.played[g, p] = -1
        st.memo[g, p, :] = 0
        st.n_rooms[g, p] = comp.base_rooms
        st.room_chip[g, p, :, :] = -1
        st.occupied[g, p] = 0
        st.nation_rooms[g, p, :] = 0
        st.suites[g, p] = 0
        st.pools[g, p] = 0
        st.specials[g, p, :] = 0
        st.tiles_bought[g, p] = 0
        st.tourists_hosted[g, p] = 0
        st.income[g, p] = 0
        st.spent[g, p] = 0
        st.ties[g, p, :] = 0
        rng[1 + p] = stream_key(seed, game, SEAT_STREAM + p)
    st.error[g, :] = 0
    st.n_events[g] = 0


@rule(inline="never")
def log_flags_nb(comp, st, g):
    """The flag row is the first chance event of the log (logged once any overrides are in place)."""
    for r in range(comp.rounds):
        log_nb(st.events, st.n_events, g, r + 1, FLAG, NO, st.flags[g, r], NO, NO, NO)
