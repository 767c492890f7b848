"""Positions: a seeded deal with parts of the state overridden, plus scripted decisions.

A position is checked completely before anything is played, because a broken position (a chip in
two hotels, a card lost between hand and discard) would otherwise surface rounds later as a
confusing divergence between the engines rather than as a clear message about the input.
"""

from __future__ import annotations

from samsim.components import GameData

from .game import Game, GameRecord
from .model import Hotel, Rules
from .policy import RandomPolicy, ScriptedDecision, seat_params

POSITION_KEYS = ("players", "seed", "game", "round", "rounds", "flags", "tile_stack", "tourist_cards",
                 "table_tiles", "tiebreak", "seats", "arrivals", "decisions")
SEAT_KEYS = ("money", "hand", "discard", "rooms", "suites", "pools", "specials")


def is_whole(value) -> bool:
    return isinstance(value, int) and not isinstance(value, bool)


def whole(value, what: str, lo: int | None = None, hi: int | None = None) -> int:
    if not is_whole(value):
        raise ValueError(f"position: {what} must be a whole number, got {value!r}")
    if lo is not None and value < lo:
        raise ValueError(f"position: {what} must be at least {lo}, got {value}")
    if hi is not None and value > hi:
        raise ValueError(f"position: {what} must be at most {hi}, got {value}")
    return value


def whole_list(values, what: str, lo: int | None = None, hi: int | None = None) -> list[int]:
    if not isinstance(values, list):
        raise ValueError(f"position: {what} must be a list, got {values!r}")
    return [whole(value, f"{what}[{i}]", lo, hi) for i, value in enumerate(values)]


class PositionSetup:
    """Turns a canonical position dict into a Game ready to play, checking it on the way."""

    def __init__(self, rules: Rules, position: dict, log: bool):
        if not isinstance(position, dict):
            raise ValueError(f"position must be a dict, got {type(position).__name__}")
        unknown = sorted(set(position) - set(POSITION_KEYS), key=str)
        if unknown:
            raise ValueError(f"position: unknown key {unknown[0]!r} (known: {', '.join(POSITION_KEYS)})")
        self.rules = rules
        self.position = position
        if "players" not in position:
            raise ValueError("position: players is missing")
        self.players = whole(position["players"], "players", rules.min_players, rules.max_players)
        self.seed = whole(position.get("seed", 0), "seed")
        self.game_id = whole(position.get("game", 0), "game", 0)
        self.first_round = whole(position.get("round", 1), "round", 1, rules.rounds)
        last_possible = rules.rounds - self.first_round + 1
        self.rounds = whole(position.get("rounds", last_possible), "rounds", 0, last_possible)
        self.played_rounds = range(self.first_round, self.first_round + self.rounds)   # 1-based
        self.game = Game(rules, self.players, self.seed, self.game_id, log)
        self.game.next_round = self.first_round - 1

    def build(self) -> Game:
        p = self.position
        if "flags" in p:
            self.set_flags(p["flags"])
        if "tile_stack" in p:
            self.game.tile_stack = whole_list(p["tile_stack"], "tile_stack", 0, self.rules.n_tile_kinds - 1)
        if "tourist_cards" in p:
            self.set_tourist_cards(p["tourist_cards"])
        if "table_tiles" in p:
            tiles = whole_list(p["table_tiles"], "table_tiles", 0)
            if len(tiles) != self.rules.n_tile_kinds:
                raise ValueError(f"position: table_tiles must give {self.rules.n_tile_kinds} counts "
                                 f"(one per tile kind), got {len(tiles)}")
            self.game.table_tiles = tiles
        if "tiebreak" in p:
            self.game.tiebreak = whole(p["tiebreak"], "tiebreak", 0, self.players - 1)
        if "seats" in p:
            self.set_seats(p["seats"])
        self.check_chips_are_in_one_place()
        if "arrivals" in p:
            self.set_arrivals(p["arrivals"])
        self.check_every_round_has_tourists()
        return self.game

    # --- the deal -------------------------------------------------------------------------------
    def set_flags(self, flags) -> None:
        flags = whole_list(flags, "flags", 0, self.rules.n_nations - 1)
        if len(flags) != self.rules.rounds:
            raise ValueError(f"position: flags must give {self.rules.rounds} nations, got {len(flags)}")
        self.game.flags = flags

    def set_tourist_cards(self, cards) -> None:
        """The deck from this round on: the card of ``round`` first, then the next rounds'."""
        cards = whole_list(cards, "tourist_cards", 0, self.rules.n_tourist_cards - 1)
        for index in range(self.first_round - 1, self.rules.rounds):
            offset = index - (self.first_round - 1)
            self.game.tourist_card_of_round[index] = cards[offset] if offset < len(cards) else None

    def check_every_round_has_tourists(self) -> None:
        for number in self.played_rounds:
            index = number - 1
            if index not in self.game.given_arrivals and self.game.tourist_card_of_round[index] is None:
                raise ValueError(f"position: round {number} is played but tourist_cards runs out "
                                 f"before it (and arrivals gives no groups for it)")

    # --- the seats ------------------------------------------------------------------------------
    def set_seats(self, seats) -> None:
        if not isinstance(seats, list) or len(seats) != self.players:
            raise ValueError(f"position: seats must be a list of {self.players} seats")
        for index, given in enumerate(seats):
            self.set_seat(index, given)

    def set_seat(self, index: int, given) -> None:
        rules = self.rules
        where = f"seats[{index}]"
        if given is None:
            return
        if not isinstance(given, dict):
            raise ValueError(f"position: {where} must be a dict, got {given!r}")
        unknown = sorted(set(given) - set(SEAT_KEYS), key=str)
        if unknown:
            raise ValueError(f"position: {where}: unknown key {unknown[0]!r} (known: {', '.join(SEAT_KEYS)})")
        seat = self.game.seats[index]
        if "money" in given:
            seat.money = whole(given["money"], f"{where}.money", 0)
        if "hand" in given or "discard" in given:
            hand = whole_list(given.get("hand", []), f"{where}.hand", 0, rules.n_cards - 1)
            discard = whole_list(given.get("discard", []), f"{where}.discard", 0, rules.n_cards - 1)
            self.check_cards(where, hand, discard)
            seat.hand, seat.discard = set(hand), set(discard)
        rooms = seat.hotel.rooms
        if "rooms" in given:
            rooms = self.checked_rooms(where, given["rooms"])
        suites = seat.hotel.suites
        if "suites" in given:
            suites = whole_list(given["suites"], f"{where}.suites", 0)
            if len(set(suites)) != len(suites):
                raise ValueError(f"position: {where}.suites names a room twice")
            for room in suites:
                if room >= len(rooms):
                    raise ValueError(f"position: {where}.suites: room {room} is not one of the "
                                     f"seat's {len(rooms)} rooms")
        pools = seat.hotel.pools
        if "pools" in given:
            pools = whole(given["pools"], f"{where}.pools", 0)
        seat.hotel = Hotel(rules, rooms, set(suites), pools)
        if "specials" in given:
            specials = whole_list(given["specials"], f"{where}.specials", 0)
            if len(specials) != 3:
                raise ValueError(f"position: {where}.specials must be [switch, send_home, recall]")
            seat.specials = specials

    def check_cards(self, where: str, hand: list[int], discard: list[int]) -> None:
        rules = self.rules
        for what, cards in (("hand", hand), ("discard", discard)):
            if len(set(cards)) != len(cards):
                raise ValueError(f"position: {where}.{what} holds a card twice")
        both = set(hand) & set(discard)
        if both:
            raise ValueError(f"position: {where}: card {rules.card_name(min(both))} is both in hand "
                             f"and in the discard pile")
        missing = set(range(rules.n_cards)) - set(hand) - set(discard)
        if missing:
            raise ValueError(f"position: {where}: card {rules.card_name(min(missing))} is neither in "
                             f"hand nor in the discard pile")
        if rules.holiday_card in discard:
            raise ValueError(f"position: {where}: the Staff holiday card always returns to hand, "
                             f"it cannot be in the discard pile")

    def checked_rooms(self, where: str, rooms) -> list[list[int]]:
        rules = self.rules
        if not isinstance(rooms, list) or not all(isinstance(room, list) for room in rooms):
            raise ValueError(f"position: {where}.rooms must be a list of rooms, each a list of chips")
        if not rules.base_rooms <= len(rooms) <= rules.max_rooms:
            raise ValueError(f"position: {where}.rooms must list {rules.base_rooms}..{rules.max_rooms} "
                             f"rooms (the board's rooms plus extra rooms), got {len(rooms)}")
        checked = []
        for room, chips in enumerate(rooms):
            chips = whole_list(chips, f"{where}.rooms[{room}]", 0, rules.n_chips - 1)
            if len(chips) > 2:
                raise ValueError(f"position: {where}: room {room} holds {len(chips)} tourists "
                                 f"(a room holds one tourist, or two lovers)")
            if len(chips) == 2 and not all(rules.tourists[chip].is_lover for chip in chips):
                raise ValueError(f"position: {where}: room {room} holds two tourists that are not "
                                 f"both lovers ({', '.join(rules.chip_name(c) for c in chips)})")
            checked.append(chips)
        return checked

    def check_chips_are_in_one_place(self) -> None:
        """The piles are implied: every chip not in a hotel is in its pile."""
        seen: dict[int, str] = {}
        for seat in self.game.seats:
            for room, chips in enumerate(seat.hotel.rooms):
                for chip in chips:
                    here = f"seat {seat.index} room {room}"
                    if chip in seen:
                        raise ValueError(f"position: tourist {self.rules.chip_name(chip)} is in two "
                                         f"places ({seen[chip]} and {here})")
                    seen[chip] = here
                    self.game.piles[self.game.nation_of(chip)].discard(chip)

    # --- arrivals -------------------------------------------------------------------------------
    def set_arrivals(self, arrivals) -> None:
        if not isinstance(arrivals, dict):
            raise ValueError("position: arrivals must map a round to its groups")
        for number, groups in arrivals.items():
            number = whole(number, "arrivals round")
            if number not in self.played_rounds:
                raise ValueError(f"position: arrivals for round {number}, which is not played "
                                 f"(rounds {self.first_round}..{self.first_round + self.rounds - 1})")
            nation = self.game.flags[number - 1]
            if not isinstance(groups, list):
                raise ValueError(f"position: arrivals of round {number} must be a list of groups")
            seen = set()
            checked = []
            for g, group in enumerate(groups):
                chips = whole_list(group, f"arrivals[{number}][{g}]", 0, self.rules.n_chips - 1)
                if not chips:
                    raise ValueError(f"position: arrivals of round {number}: group {g} is empty")
                for chip in chips:
                    if self.game.nation_of(chip) != nation:
                        raise ValueError(f"position: arrivals of round {number}: tourist "
                                         f"{self.rules.chip_name(chip)} is not of that round's nation "
                                         f"({self.rules.data.nation_names[nation]})")
                    if chip in seen:
                        raise ValueError(f"position: arrivals of round {number}: tourist "
                                         f"{self.rules.chip_name(chip)} arrives twice")
                    seen.add(chip)
                checked.append(chips)
            self.game.given_arrivals[number - 1] = checked

    # --- decisions ------------------------------------------------------------------------------
    def deciders_by_round(self) -> dict[int, list]:
        """For each played round, one decider per seat: a script where given, else the random policy."""
        params = seat_params(None, self.players)
        policies = [RandomPolicy(self.seed, self.game_id, s, params[s]) for s in range(self.players)]
        scripts = self.position.get("decisions", {})
        if not isinstance(scripts, dict):
            raise ValueError("position: decisions must map a round to a list of per-seat decisions")
        for number in scripts:
            whole(number, "decisions round")
            if number not in self.played_rounds:
                raise ValueError(f"position: decisions for round {number}, which is not played "
                                 f"(rounds {self.first_round}..{self.first_round + self.rounds - 1})")
        deciders = {}
        for number in self.played_rounds:
            per_seat = scripts.get(number)
            if per_seat is None:
                deciders[number] = list(policies)
                continue
            if not isinstance(per_seat, list) or len(per_seat) != self.players:
                raise ValueError(f"position: decisions of round {number} must list {self.players} "
                                 f"seats (null for the random policy)")
            deciders[number] = [policies[s] if decision is None else ScriptedDecision(number, s, decision)
                                for s, decision in enumerate(per_seat)]
        return deciders


def play_position(data: GameData, position: dict, log: bool = True) -> GameRecord:
    """Play ``position['rounds']`` rounds from a position; unscripted seats use the random policy."""
    setup = PositionSetup(Rules(data), position, log)
    game = setup.build()
    deciders = setup.deciders_by_round()
    game.log_flags()
    for number in setup.played_rounds:
        game.play_round(deciders[number])
    return game.record()
