"""The decision record: one layout for every decision a seat makes, scripted or computed.

A policy fills the fields of the current decision stage into ``state.decision[g]`` and the rules then
apply it, checking it is legal. Scripted decisions (scenarios) use the same layout, so one code path
applies both and an illegal script is caught exactly where the rules forbid it. Lists are -1
terminated. Every field is an int: -1 means "none".

Offsets and error codes are np.int64 so that passing them to compiled functions does not compile a
separate copy per value (see events.py).
"""

import numpy as np

from samsim import components, illegal

#: Upper bound of removals / recalls per use (components.py holds data files to it).
MAX_PICKS = np.int64(components.MAX_PICKS)
#: Upper bound of chips one seat places in one turn (a whole group of a nation at most).
MAX_TAKE = np.int64(30)

CARD = np.int64(0)                 # price card to play
RECALL = np.int64(1)                        # .. RECALL + MAX_PICKS: discarded cards taken back first
SWITCH = RECALL + MAX_PICKS        # card to switch to (SWITCH tile), -1 = keep
BUILD = SWITCH + 1                 # tile kind to buy when offered, -1 = pass
SUITE_ROOM = BUILD + 1             # room the suite covers
SEND_HOME = SUITE_ROOM + 1         # .. + MAX_PICKS: rooms the SEND_HOME tile empties
GROUP = SEND_HOME + MAX_PICKS      # group to take from, -1 = none
N_TAKE = GROUP + 1                 # placements that follow
TAKE = N_TAKE + 1                  # (chip, room) pairs in placement order
HOLIDAY = TAKE + 2 * MAX_TAKE      # .. + MAX_PICKS: rooms a Staff holiday empties
DECISION_LEN = HOLIDAY + MAX_PICKS

#: Why a decision is illegal, as the code the rules record (``state.error``); the words are
#: ``samsim.illegal``'s, shared with the reference engine.
E_CARD, E_RECALL_TILE, E_RECALL_CARD, E_RECALL_MANY, E_SWITCH_TILE, E_SWITCH_CARD, E_NOT_OFFERED, \
    E_MONEY, E_TILE, E_SUITE_ROOM, E_SEND_TILE, E_EMPTY_ROOM, E_REMOVALS, E_NO_TURN, E_GROUP, \
    E_NOT_IN_GROUP, E_ROOM_TAKEN, E_NOT_HOLIDAY, E_PILE, E_TAKE_MANY, E_SEND_COUNT, E_NO_ROOM, \
    E_ROOM_NOT_SUITE = (np.int64(illegal.code(name)) for name in illegal.NAMES)
