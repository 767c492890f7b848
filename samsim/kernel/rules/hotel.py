"""Queries and moves on one hotel: free and occupied rooms, lovers, sending tourists home."""

from samsim.components import LOVER
from samsim.kernel.bits import lowest_bit_nb
from samsim.kernel.events import NO, log_nb
from samsim.kernel.jit import rule


@rule
def free_rooms_nb(st, g, p):
    """Bitmap of owned rooms without a tourist (a room with one or two lovers is not free)."""
    return ((1 << st.n_rooms[g, p]) - 1) & ~st.occupied[g, p]


@rule
def single_lover_rooms_nb(comp, st, g, p):
    """Bitmap of rooms holding exactly one tourist who is a lover: the only rooms a lover may join."""
    mask = 0
    rooms = st.occupied[g, p]
    while rooms:
        room = lowest_bit_nb(rooms)
        rooms &= rooms - 1
        if st.room_chip[g, p, room, 1] < 0 and comp.chip_kind[st.room_chip[g, p, room, 0]] == LOVER:
            mask |= 1 << room
    return mask


@rule
def place_chip_nb(comp, st, g, p, room, slot, chip):
    st.room_chip[g, p, room, slot] = chip
    st.occupied[g, p] |= 1 << room
    st.nation_rooms[g, p, chip // comp.chips_per_nation] |= 1 << room


@rule
def return_chip_nb(comp, st, g, chip):
    per = comp.chips_per_nation
    st.pile[g, chip // per] |= 1 << (chip % per)


@rule
def empty_room_nb(comp, st, g, p, room, kind, rnd):
    """Send everyone in ``room`` back to their piles (a couple leaves together), logging ``kind``."""
    for slot in range(2):
        chip = st.room_chip[g, p, room, slot]
        if chip >= 0:
            return_chip_nb(comp, st, g, chip)
            st.room_chip[g, p, room, slot] = -1
            st.nation_rooms[g, p, chip // comp.chips_per_nation] &= ~(1 << room)
            log_nb(st.events, st.n_events, g, rnd, kind, p, chip, room, NO, NO)
    st.occupied[g, p] &= ~(1 << room)


@rule
def buoy_points_nb(comp, st, g, p):
    total = 0
    for room in range(st.n_rooms[g, p]):
        for slot in range(2):
            chip = st.room_chip[g, p, room, slot]
            if chip >= 0:
                total += comp.chip_buoy[chip]
    return total
