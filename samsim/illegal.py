"""Why a decision is illegal: one reason per rule a decision can break, worded once for both engines.

An illegal decision comes from a strategy (a bug in it) or from a scenario's script (on purpose: the
``reject_*`` scenarios). The compiled kernel records the reason's code in the game's error row
(``samsim.kernel.decisions``: ``E_*``); the reference engine raises the reason itself. Both end as an
``IllegalDecision`` reading "round R, seat S: reason", so a scenario expects one reason whichever
engine plays it, and a test checks that the two engines give the same message on every
``reject_*`` scenario.

A decision that is not even well formed (a room that is not a number, tourists taken without a
group) is refused before play, by whoever reads the position: that is a ValueError, not a rule.
"""

from __future__ import annotations


class IllegalDecision(ValueError):
    """A decision the rules forbid, or a scripted decision the rules never ask for."""


#: Every reason, by name; the code the kernel records is its position here + 1 (0: no error).
REASONS = {
    "CARD": "the card played is not in hand",
    "RECALL_TILE": "RECALL used without a RECALL tile",
    "RECALL_CARD": "RECALL takes back a card that is not in the discard pile",
    "RECALL_MANY": "RECALL must take back as many discarded cards as the tile allows "
                   "(game.recall_cards: 2 by default), or all of them if fewer",
    "SWITCH_TILE": "SWITCH used without a SWITCH tile",
    "SWITCH_CARD": "SWITCH to a card that is not in hand",
    "NOT_OFFERED": "a build decision was scripted but no tile was offered (holiday, tiles gone or "
                   "money short)",
    "MONEY": "cannot buy: not enough money for the bid",
    "TILE": "the tile kind chosen is not on the table",
    "SUITE_ROOM": "a suite must cover an owned room that is not already a suite",
    "SEND_TILE": "SEND_HOME used without a SEND_HOME tile",
    "EMPTY_ROOM": "cannot send home: the room is empty",
    "REMOVALS": "too many tourists sent home",
    "NO_TURN": "tourists were scripted but the seat got no turn in the tourist phase",
    "GROUP": "the group chosen does not exist or is empty",
    "NOT_IN_GROUP": "the tourist taken is not in the chosen group",
    "ROOM_TAKEN": "the room is not free (only a lover may join a room holding exactly one lover)",
    "NOT_HOLIDAY": "Staff holiday removals scripted but the seat did not play Staff holiday",
    "PILE": "a tourist arrived from a pile that does not hold it",
    "TAKE_MANY": "too many placements in one turn",
    "SEND_COUNT": "SEND_HOME must send home as many tourists as the tile allows "
                  "(game.send_home_removals: 2 by default), or all of them if fewer",
    "NO_ROOM": "the room is not one of the hotel's rooms",
    "ROOM_NOT_SUITE": "a room was given with a tile that is not a suite (only a suite covers a room)",
}
NAMES = tuple(REASONS)


def code(name: str) -> int:
    """The kernel's code of reason ``name``."""
    return NAMES.index(name) + 1


def reason(code_or_name: int | str) -> str:
    name = code_or_name if isinstance(code_or_name, str) else NAMES[int(code_or_name) - 1]
    return REASONS[name]


def illegal(round_no: int, seat: int, code_or_name: int | str) -> IllegalDecision:
    """The error both engines raise: "round R, seat S: reason"."""
    return IllegalDecision(f"round {int(round_no)}, seat {int(seat)}: {reason(code_or_name)}")
