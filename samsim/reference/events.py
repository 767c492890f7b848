"""Event kinds of the game log (docs/protocol.md, "A round, in order").

Both engines write the same log, so a difference between them is found by comparing two lists of
tuples: the first differing event names the round, seat and step where the rules were read apart.
"""

from __future__ import annotations

FLAG = 1
REVEAL = 2
DEPART = 3
TOURIST_CARD = 4
ARRIVE = 5
RECALL = 6
PLAY = 7
SWITCH = 8
BUY = 9
POOL_BONUS = 10
SEND_HOME = 11
HOST = 12
HOLIDAY = 13
LEFTOVER = 14
DISCARD = 15
KEEP = 16
TIEBREAK = 17
FINAL = 18
PASS = 19

EVENT_NAMES = {
    FLAG: "FLAG", REVEAL: "REVEAL", DEPART: "DEPART", TOURIST_CARD: "TOURIST_CARD",
    ARRIVE: "ARRIVE", RECALL: "RECALL", PLAY: "PLAY", SWITCH: "SWITCH", BUY: "BUY",
    POOL_BONUS: "POOL_BONUS", SEND_HOME: "SEND_HOME", HOST: "HOST", HOLIDAY: "HOLIDAY",
    LEFTOVER: "LEFTOVER", DISCARD: "DISCARD", KEEP: "KEEP", TIEBREAK: "TIEBREAK", FINAL: "FINAL",
    PASS: "PASS",
}

Event = tuple[int, int, int, int, int, int, int]


def describe(event: Event) -> str:
    """A readable line for one event, for debugging a divergence between the engines."""
    round_no, kind, seat, *fields = event
    who = f" seat {seat}" if seat >= 0 else ""
    values = " ".join(str(v) for v in fields if v != -1)
    return f"r{round_no} {EVENT_NAMES.get(kind, kind)}{who} {values}".rstrip()
