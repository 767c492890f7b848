"""The things on the table: the rule constants, tourists, hotels and the players' seats.

Everything here is plain Python (ints, lists, sets). The component arrays of ``samsim.components`` are
converted once, in :class:`Rules`, so that the rest of the reference engine reads like the rulebook
and cannot be accidentally coupled to the kernel's array layout.
"""

from __future__ import annotations

from dataclasses import dataclass, field

from samsim.components import (
    CELEBRITY,
    EXTRA_ROOM,
    LOVER,
    POOL,
    RECALL,
    RICH,
    SEND_HOME,
    SUITE,
    SWITCH,
    TILE_KINDS,
    GameData,
)

__all__ = ["Rules", "Tourist", "Hotel", "Seat",
           "EXTRA_ROOM", "SUITE", "POOL", "SWITCH", "SEND_HOME", "RECALL", "TILE_KINDS"]


@dataclass(frozen=True)
class Tourist:
    """One tourist chip. Its id is ``nation * chips_per_nation + k`` (components.py)."""

    id: int
    nation: int
    kind: int
    buoy: int

    @property
    def is_rich(self) -> bool:
        return self.kind == RICH

    @property
    def is_lover(self) -> bool:
        return self.kind == LOVER

    @property
    def is_celebrity(self) -> bool:
        return self.kind == CELEBRITY


class Rules:
    """The component data of one data file, as plain Python values.

    Kept separate from the game so that a rules variant (another data file) changes numbers only,
    never code paths.
    """

    def __init__(self, data: GameData):
        c = data.components
        self.data = data
        self.rounds = int(c.rounds)
        self.starting_money = int(c.starting_money)
        self.seat_money = c.seat_money.tolist()  # [players][seat]: on top of starting_money
        self.tiebreak_start = c.tiebreak_start.tolist()  # [players]: where the card starts
        self.price_clockwise = c.price_clockwise.tolist()  # [players]: equal prices clockwise
        self.special_tile_value = int(c.special_tile_value)
        self.holiday_removals = int(c.holiday_removals)
        self.send_home_removals = int(c.send_home_removals)
        self.recall_cards = int(c.recall_cards)
        self.n_nations = int(c.n_nations)
        self.chips_per_nation = int(c.chips_per_nation)
        self.flags_per_nation = int(c.flags_per_nation)
        self.base_rooms = int(c.base_rooms)
        self.max_rooms = int(c.max_rooms)
        self.min_players = int(data.min_players)
        self.max_players = int(data.max_players)
        self.holiday_card = int(c.holiday_card)
        self.n_cards = len(c.card_bid)
        self.card_bid = [int(b) for b in c.card_bid]
        self.card_price = [int(p) for p in c.card_price]
        self.round_factor = [int(f) for f in c.round_factor]
        # tiles_revealed[players][round]
        self.tiles_revealed = [[int(n) for n in row] for row in c.tiles_revealed]
        self.tile_count = [int(n) for n in c.tile_count]
        self.n_tile_kinds = len(TILE_KINDS)
        # adjacent[room] = the base rooms orthogonally next to it; extra rooms have no neighbours
        self.adjacent = [
            [other for other in range(self.base_rooms) if int(c.room_adjacent[room]) >> other & 1]
            for room in range(self.base_rooms)
        ]
        self.tourists = [
            Tourist(chip, chip // self.chips_per_nation, int(c.chip_kind[chip]), int(c.chip_buoy[chip]))
            for chip in range(len(c.chip_kind))
        ]
        self.n_chips = len(self.tourists)
        self.n_tourist_cards = int(c.card_groups.shape[0])
        # tourist_card_groups[card][players] = group sizes printed on that line of the card
        self.tourist_card_groups = [
            [[int(size) for size in c.card_groups[card, players] if size > 0]
             for players in range(c.card_groups.shape[1])]
            for card in range(self.n_tourist_cards)
        ]

    def card_name(self, card: int) -> str:
        if isinstance(card, int) and 0 <= card < self.n_cards:
            return self.data.card_name(card)
        return f"#{card}"

    def chip_name(self, chip: int) -> str:
        if isinstance(chip, int) and 0 <= chip < self.n_chips:
            return self.data.chip_name(chip)
        return f"#{chip}"

    def is_normal_card(self, card: int) -> bool:
        return card != self.holiday_card

    def group_sizes(self, card: int, players: int, round_index: int) -> list[int]:
        """The groups of a tourist card for this table, doubled in the holiday rounds."""
        factor = self.round_factor[round_index]
        return [size * factor for size in self.tourist_card_groups[card][players]]


class Hotel:
    """A player's rooms: 0..base_rooms-1 on the board, extra rooms after them in the order bought.

    A room is a list of chip ids in slot order (the earlier occupant first); it holds two chips only
    when both are lovers (a couple).
    """

    def __init__(self, rules: Rules, rooms: list[list[int]] | None = None,
                 suites: set[int] | None = None, pools: int = 0):
        self.rules = rules
        self.rooms = [list(room) for room in rooms] if rooms is not None else [
            [] for _ in range(rules.base_rooms)]
        self.suites = set(suites or ())
        self.pools = pools

    # --- looking at the hotel -------------------------------------------------------------------
    def room_count(self) -> int:
        return len(self.rooms)

    def free_rooms(self) -> list[int]:
        """Rooms with nobody in them (a room with a single lover is not free)."""
        return [room for room, chips in enumerate(self.rooms) if not chips]

    def occupied_rooms(self) -> list[int]:
        return [room for room, chips in enumerate(self.rooms) if chips]

    def rooms_with_one_lover(self) -> list[int]:
        """Rooms a newly arriving lover may join."""
        return [room for room, chips in enumerate(self.rooms)
                if len(chips) == 1 and self.rules.tourists[chips[0]].is_lover]

    def rooms_without_suite(self) -> list[int]:
        return [room for room in range(len(self.rooms)) if room not in self.suites]

    def chips(self) -> list[int]:
        return [chip for chips in self.rooms for chip in chips]

    def buoy_points(self) -> int:
        return sum(self.rules.tourists[chip].buoy for chip in self.chips())

    def is_next_to_celebrity(self, room: int) -> bool:
        """Only base rooms have neighbours; extra rooms are adjacent to nothing."""
        if room >= self.rules.base_rooms:
            return False
        return any(self.rules.tourists[chip].is_celebrity
                   for other in self.rules.adjacent[room] for chip in self.rooms[other])

    def why_not_placeable(self, chip: int, room: int) -> str | None:
        """Why a tourist cannot move into a room now (a reason of ``samsim.illegal``), or None if it
        can."""
        if not isinstance(room, int) or isinstance(room, bool) or not 0 <= room < len(self.rooms):
            return "NO_ROOM"
        occupants = self.rooms[room]
        if not occupants:
            return None
        if (len(occupants) == 1 and self.rules.tourists[occupants[0]].is_lover
                and self.rules.tourists[chip].is_lover):
            return None
        return "ROOM_TAKEN"

    def price_multiplier(self, chip: int, room: int) -> int:
        """x2 for a rich tourist, a suite or a celebrity next door; the effects never stack."""
        if self.rules.tourists[chip].is_rich or room in self.suites or self.is_next_to_celebrity(room):
            return 2
        return 1

    # --- changing the hotel ---------------------------------------------------------------------
    def place(self, chip: int, room: int) -> None:
        self.rooms[room].append(chip)

    def empty_room(self, room: int) -> list[int]:
        """Everybody in the room leaves; a couple always leaves together."""
        chips = self.rooms[room]
        self.rooms[room] = []
        return chips

    def add_extra_room(self) -> int:
        self.rooms.append([])
        return len(self.rooms) - 1


@dataclass
class Seat:
    """One player: money, price cards and hotel. Seats are numbered clockwise from 0."""

    index: int
    money: int
    hand: set[int]
    discard: set[int]
    hotel: Hotel
    # unused special tiles held, in kind order: [switch, send_home, recall]
    specials: list[int] = field(default_factory=lambda: [0, 0, 0])

    def special_count(self, kind: int) -> int:
        return self.specials[kind - SWITCH]

    def use_special(self, kind: int) -> None:
        self.specials[kind - SWITCH] -= 1

    def sorted_hand(self) -> list[int]:
        return sorted(self.hand)

    def sorted_discard(self) -> list[int]:
        return sorted(self.discard)
