"""Step 2a: the plane of this round's nation takes its tourists home."""

from samsim.kernel.bits import lowest_bit_nb
from samsim.kernel.events import DEPART
from samsim.kernel.jit import rule
from samsim.kernel.rules.hotel import empty_room_nb


@rule
def departures_nb(comp, st, g, r):
    """Every room holding a tourist of the round's nation is emptied: a lover couple of two nations
    leaves when either flag comes up."""
    nation = st.flags[g, r]
    for p in range(st.money.shape[1]):
        leaving = st.nation_rooms[g, p, nation]
        while leaving:
            room = lowest_bit_nb(leaving)
            leaving &= leaving - 1
            empty_room_nb(comp, st, g, p, room, DEPART, r + 1)
