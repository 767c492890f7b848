"""The decision record: one layout for every decision a seat makes, scripted or computed.

A policy fills the fields of the current decision stage into ``state.decision[g]`` and the rules then
apply it, checking it is legal. Scripted decisions (scenarios) use the same layout, so one code path
applies both and an illegal script is caught exactly where the rules forbid it. Lists are -1
terminated. Every field is an int: -1 means "none".

Offsets and error codes are np.int64 so that passing them to compiled functions does not compile a
separate copy per value (see events.py).
"""

import numpy as np

from samsim import components

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

# Error codes written to state.error when a decision breaks a rule, with their messages.
ERRORS = {
    1: "the card played is not in hand",
    2: "RECALL used without a RECALL tile",
    3: "RECALL takes back a card that is not in the discard pile",
    4: "RECALL must take back as many discarded cards as the tile allows (game.recall_cards: 2 by default), or all of them if fewer",
    5: "SWITCH used without a SWITCH tile",
    6: "SWITCH to a card that is not in hand",
    7: "a build decision was scripted but no tile was offered (holiday, tiles gone or money short)",
    8: "cannot buy: not enough money for the bid",
    9: "the tile kind chosen is not on the table",
    10: "a suite must cover an owned room that is not already a suite",
    11: "SEND_HOME used without a SEND_HOME tile",
    12: "cannot send home: the room is empty",
    13: "too many tourists sent home",
    14: "tourists were scripted but the seat got no turn in the tourist phase",
    15: "the group chosen does not exist or is empty",
    16: "the tourist taken is not in the chosen group",
    17: "the room is not free (only a lover may join a room holding exactly one lover)",
    18: "Staff holiday removals scripted but the seat did not play Staff holiday",
    19: "a tourist arrived from a pile that does not hold it",
    20: "too many placements in one turn",
    21: "SEND_HOME must send home as many tourists as the tile allows (game.send_home_removals: 2 by default), or all of them if fewer",
}
E_CARD, E_RECALL_TILE, E_RECALL_CARD, E_RECALL_MANY, E_SWITCH_TILE, E_SWITCH_CARD, E_NOT_OFFERED, \
    E_MONEY, E_TILE, E_SUITE_ROOM, E_SEND_TILE, E_EMPTY_ROOM, E_REMOVALS, E_NO_TURN, E_GROUP, \
    E_NOT_IN_GROUP, E_ROOM_TAKEN, E_NOT_HOLIDAY, E_PILE, E_TAKE_MANY, E_SEND_COUNT = \
    (np.int64(k) for k in range(1, 22))
