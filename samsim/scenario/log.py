"""Events by name, and the event log told in English (``samsim trace``, ``samsim play``,
scenario failures): what each HOST paid and why, replayed from the hotels.
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence

from samsim import components
from samsim.components import (
    CELEBRITY,
    CHIP_KINDS,
    EXTRA_ROOM,
    POOL,
    RICH,
    SUITE,
    SWIMMER,
    TILE_KINDS,
    GameData,
)
from samsim.kernel.events import KIND_NAMES

#: Event kinds in code order (code = index + 1), as fixed by docs/protocol.md.
EVENT_KINDS = KIND_NAMES[1:]
EVENT_CODE = {name: code for code, name in enumerate(EVENT_KINDS, start=1)}
#: Readable names of the fields a, b, c, d of each event kind, with the kind of value they hold
#: (so an expectation can say ``"chip": "N3"`` rather than ``"a": 39``).
EVENT_FIELDS: dict[str, tuple[tuple[str, str], ...]] = {
    "FLAG": (("nation", "nation"),),
    "REVEAL": (("tile", "tile"),),
    "DEPART": (("chip", "chip"), ("room", "int")),
    "TOURIST_CARD": (("tourist_card", "int"),),
    "ARRIVE": (("group", "int"), ("chip", "chip")),
    "RECALL": (("card", "card"),),
    "PLAY": (("card", "card"),),
    "SWITCH": (("old", "card"), ("new", "card")),
    "BUY": (("tile", "tile"), ("price", "int"), ("room", "int")),
    "POOL_BONUS": (("amount", "int"),),
    "SEND_HOME": (("chip", "chip"), ("room", "int")),
    "HOST": (("chip", "chip"), ("room", "int"), ("paid", "int"), ("group", "int")),
    "HOLIDAY": (("chip", "chip"), ("room", "int")),
    "LEFTOVER": (("chip", "chip"),),
    "DISCARD": (("card", "card"),),
    "KEEP": (("card", "card"),),
    "TIEBREAK": (("tiebreak", "int"),),
    "FINAL": (("money", "int"), ("score", "int"), ("free_rooms", "int"), ("rank", "int")),
    "PASS": (("phase", "int"), ("group", "int")),
}


def describe_events(data: GameData, events: Sequence[Sequence[int]], position: Mapping | None = None,
                    seat_names: Sequence[str] = ()) -> list[str]:
    """One English line per event, saying who paid or earned what and why.

    The engines log only outcomes (``HOST ... paid=6``); to say *why* a tourist paid what it did, this
    replays the hotels alongside the log (rooms, suites, pools and the card each seat played). It
    starts from ``position``'s seats when given, else from the start of a game. When the log's amount
    differs from what the rules give for the replayed hotel, the line says so, which makes an engine
    bug visible in any trace.
    """
    c = data.components
    base = c.base_rooms
    start_seats = position.get("seats") if position else None
    n_seats = position["players"] if position else 1 + max(
        (e[2] for e in events if e[2] >= 0), default=0)
    rooms: list[list[list[int]]] = []
    suites: list[set[int]] = []
    pools: list[int] = []
    for s in range(n_seats):
        seat = start_seats[s] if start_seats else None
        rooms.append([list(r) for r in seat["rooms"]] if seat else [[] for _ in range(base)])
        suites.append(set(seat["suites"]) if seat else set())
        pools.append(int(seat["pools"]) if seat else 0)
    played = [-1] * n_seats
    flags = {r + 1: int(n) for r, n in enumerate(position["flags"])} if position and "flags" in position \
        else {}
    bought: set[tuple[int, int]] = set()  # (round, seat)
    hosted: set[tuple[int, int]] = set()

    def who(s: int) -> str:
        if 0 <= s < len(seat_names):
            return f"seat {s} ({seat_names[s]})"
        return f"seat {s}"

    def chip(ch: int) -> str:
        kind = int(c.chip_kind[ch])
        if kind == components.SWIMMER:
            return f"{data.chip_name(ch)} (swimmer, buoy {int(c.chip_buoy[ch])})"
        return f"{data.chip_name(ch)} ({CHIP_KINDS[kind]})"

    def card(k: int) -> str:
        return "Staff holiday" if k == c.holiday_card else data.card_name(k)

    def tile(kind: int) -> str:  # "an extra room tile": a sentence, not the data file's key
        name = TILE_KINDS[kind].replace("_", " ") if 0 <= kind < len(TILE_KINDS) else f"kind {kind}"
        return f"{'an' if name[0] in 'aeiou' else 'a'} {name} tile"

    def leave(s: int, ch: int, room: int) -> None:
        if s < n_seats and room < len(rooms[s]) and ch in rooms[s][room]:
            rooms[s][room].remove(ch)

    lines = []
    for event in events:
        rnd, code, s, a, b, cc, d = (int(x) for x in event)
        kind = EVENT_KINDS[code - 1] if 1 <= code <= len(EVENT_KINDS) else f"kind {code}"
        head = f"round {rnd}: "
        if kind == "FLAG":
            flags[rnd] = a
            lines.append(f"{head}the flag is {data.nation_names[a]}")
        elif kind == "REVEAL":
            lines.append(f"{head}build tile revealed: {tile(a)}")
        elif kind == "DEPART":
            leave(s, a, b)
            nation = a // c.chips_per_nation
            if rnd in flags and flags[rnd] != nation:
                why = f"its partner's plane ({data.nation_names[flags[rnd]]}) has come"
            else:
                why = "its plane has come"
            lines.append(f"{head}{chip(a)} leaves {who(s)}'s room {b}: {why}")
        elif kind == "TOURIST_CARD" and a < 0:
            lines.append(f"{head}no tourist card: the arrivals are scripted")
        elif kind == "TOURIST_CARD":
            sizes = [int(x) for x in c.card_groups[a, n_seats] if x] if 0 <= a < len(c.card_groups) else []
            factor = int(c.round_factor[rnd - 1]) if 1 <= rnd <= c.rounds else 1
            shown = "+".join(str(x * factor) for x in sizes)
            lines.append(f"{head}tourist card {a}: groups {shown}"
                         + (f" (doubled, round {rnd})" if factor > 1 else ""))
        elif kind == "ARRIVE":
            lines.append(f"{head}{chip(b)} arrives in group {a}")
        elif kind == "RECALL":
            lines.append(f"{head}{who(s)} discards RECALL and takes {card(a)} back into hand")
        elif kind == "PLAY":
            if s < n_seats:
                played[s] = a
            if a == c.holiday_card:
                lines.append(f"{head}{who(s)} plays Staff holiday")
            else:
                lines.append(f"{head}{who(s)} plays {card(a)} (bid {int(c.card_bid[a])}, "
                             f"room price {int(c.card_price[a])})")
        elif kind == "SWITCH":
            if s < n_seats:
                played[s] = b
            lines.append(f"{head}{who(s)} discards SWITCH: {card(a)} back to hand, plays {card(b)} "
                         "instead")
        elif kind == "BUY":
            bought.add((rnd, s))
            text = f"{head}{who(s)} buys {tile(a)} for {b}"
            if s < n_seats:
                if a == EXTRA_ROOM:
                    text += f" (new room {len(rooms[s])})"
                    rooms[s].append([])
                elif a == SUITE:
                    suites[s].add(cc)
                    text += f", covering room {cc}"
                elif a == POOL:
                    pools[s] += 1
            lines.append(text)
        elif kind == "POOL_BONUS":
            if s < n_seats:
                have = sum(int(c.chip_buoy[ch]) for room in rooms[s] for ch in room)
                note = "" if have == a else f" [the hotel holds {have} buoy points]"
            else:
                note = ""
            lines.append(f"{head}{who(s)} earns {a} pool bonus: 1 per buoy point in the hotel{note}")
        elif kind == "SEND_HOME":
            leave(s, a, b)
            lines.append(f"{head}{who(s)} uses SEND_HOME: {chip(a)} leaves room {b}")
        elif kind == "HOST":
            hosted.add((rnd, s))
            partner = ""
            if s < n_seats and b < len(rooms[s]) and rooms[s][b]:
                partner = f" with {data.chip_name(rooms[s][b][0])}"
            lines.append(f"{head}{who(s)} hosts {chip(a)} in room {b}{partner} for {cc} "
                         f"({_explain_payment(data, a, b, cc, s, rooms, suites, pools, played)})")
            if s < n_seats:
                while b >= len(rooms[s]):
                    rooms[s].append([])
                rooms[s][b].append(a)
        elif kind == "PASS" and a == 0:
            lines.append(f"{head}{who(s)} passes: no tile")
        elif kind == "PASS":
            looked = f" (looked at group {b})" if b >= 0 else ""
            lines.append(f"{head}{who(s)} hosts nobody this turn{looked}")
        elif kind == "HOLIDAY":
            leave(s, a, b)
            lines.append(f"{head}{who(s)}, on Staff holiday, sends {chip(a)} home from room {b}")
        elif kind == "LEFTOVER":
            nation = data.nation_names[a // c.chips_per_nation]
            lines.append(f"{head}{chip(a)} was not hosted and goes back to the {nation} pile")
        elif kind == "DISCARD":
            did = [what for what, seats in (("bought a tile", bought), ("hosted tourists", hosted))
                   if (rnd, s) in seats]
            lines.append(f"{head}{who(s)} discards {card(a)} ({' and '.join(did) or 'played'})")
        elif kind == "KEEP":
            why = "the Staff holiday card always returns" if a == c.holiday_card else \
                "neither bought nor hosted"
            lines.append(f"{head}{who(s)} takes {card(a)} back into hand ({why})")
        elif kind == "TIEBREAK":
            n = n_seats
            lines.append(f"{head}the tie-breaker moves clockwise: now between {who((a - 1) % n)} and "
                         f"{who(a)}")
        elif kind == "FINAL":
            lines.append(f"end of game: {who(s)} has {a} money, score {b} (money + "
                         f"{int(c.special_tile_value)} per unused special tile), {cc} free rooms, "
                         f"rank {d}")
        else:
            lines.append(f"{head}{kind} seat={s} a={a} b={b} c={cc} d={d}")
    return lines


def _explain_payment(data: GameData, ch: int, room: int, paid: int, s: int, rooms, suites, pools,
                     played) -> str:
    c = data.components
    if s >= len(played) or played[s] < 0 or played[s] == c.holiday_card:
        return "no price card known"
    price = int(c.card_price[played[s]])
    reasons = []
    if int(c.chip_kind[ch]) == RICH:
        reasons.append("rich")
    if room in suites[s]:
        reasons.append("suite")
    if room < c.base_rooms:
        for other in range(c.base_rooms):
            if (int(c.room_adjacent[room]) >> other) & 1 and other < len(rooms[s]):
                celebs = [x for x in rooms[s][other] if int(c.chip_kind[x]) == CELEBRITY]
                if celebs:
                    reasons.append(f"next to celebrity {data.chip_name(celebs[0])} in room {other}")
                    break
    text = f"price {price}"
    owed = price
    if reasons:
        owed *= 2
        text += " x2 " + ", ".join(reasons)
        if len(reasons) > 1:
            text += " (never more than x2)"
    buoy = int(c.chip_buoy[ch])
    if int(c.chip_kind[ch]) == SWIMMER and pools[s]:
        owed += buoy * pools[s]
        text += f" + swimmer bonus {buoy} buoy x {pools[s]} pool{'s' if pools[s] != 1 else ''}"
    if owed != paid:
        text += f" [the rules give {owed}]"
    return text
