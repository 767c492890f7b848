"""What a tourist pays on moving in (computed at move-in; the rulebook's end-of-round payment is the
same sum, since nothing in between changes it)."""

from samsim.components import CELEBRITY, RICH
from samsim.kernel.bits import lowest_bit_nb
from samsim.kernel.jit import rule


@rule
def next_to_celebrity_nb(comp, st, g, p, room):
    """Whether a base room has an orthogonal neighbour holding a celebrity (extra rooms have none)."""
    if room >= comp.base_rooms:
        return False
    neighbours = comp.room_adjacent[room] & st.occupied[g, p]
    while neighbours:
        other = lowest_bit_nb(neighbours)
        neighbours &= neighbours - 1
        for slot in range(2):
            chip = st.room_chip[g, p, other, slot]
            if chip >= 0 and comp.chip_kind[chip] == CELEBRITY:
                return True
    return False


@rule
def payment_nb(comp, st, g, p, chip, room, price):
    """Room price, doubled at most once (rich, suite or next to a celebrity), plus swimmer bonus."""
    double = (comp.chip_kind[chip] == RICH or ((st.suites[g, p] >> room) & 1) == 1
              or next_to_celebrity_nb(comp, st, g, p, room))
    pay = price * 2 if double else price
    return pay + comp.chip_buoy[chip] * st.pools[g, p]
