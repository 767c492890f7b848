"""Who decides: the built-in random policy and scripted decisions.

A decider answers the game's questions for one seat; the game checks every answer against the rules
(game.py). The random policy's draws follow docs/protocol.md ("The built-in random policy") in
exactly that order, because the kernel draws from the same per-seat stream and the two engines must
stay in step draw for draw. Scripted decisions draw nothing.
"""

from __future__ import annotations

from .model import RECALL, SEND_HOME, SUITE, SWITCH, Seat
from .rng import POLICY_STREAM_BASE, Stream

DEFAULT_PARAMS = {"recall_pct": 25, "switch_pct": 25, "send_home_pct": 25, "take_pct": 50}


def seat_params(params, players: int) -> list[dict[str, int]]:
    """Expand ``params`` (None, one dict for all seats, or one dict per seat) to one dict per seat."""
    if params is None:
        per_seat = [{} for _ in range(players)]
    elif isinstance(params, dict):
        per_seat = [params] * players
    elif isinstance(params, (list, tuple)):
        if len(params) != players:
            raise ValueError(f"params gives {len(params)} seats, the game has {players}")
        per_seat = list(params)
    else:
        raise ValueError(f"params must be None, a dict or a list of dicts, got {type(params).__name__}")
    expanded = []
    for seat, given in enumerate(per_seat):
        if given is None:
            given = {}
        if not isinstance(given, dict):
            raise ValueError(f"params of seat {seat} must be a dict, got {given!r}")
        unknown = sorted(set(given) - set(DEFAULT_PARAMS))
        if unknown:
            raise ValueError(f"unknown random-policy parameter {unknown[0]!r} "
                             f"(known: {', '.join(DEFAULT_PARAMS)})")
        merged = dict(DEFAULT_PARAMS)
        for key, value in given.items():
            if not isinstance(value, int) or isinstance(value, bool) or not 0 <= value <= 100:
                raise ValueError(f"{key} must be a whole percentage 0..100, got {value!r}")
            merged[key] = value
        expanded.append(merged)
    return expanded


class Decider:
    """The questions a game asks a seat. ``unasked`` lets a script object to parts never used."""

    def price_card(self, game, seat: Seat) -> tuple[list[int], int]:
        raise NotImplementedError

    def switch(self, game, seat: Seat) -> int | None:
        raise NotImplementedError

    def build(self, game, seat: Seat, bid: int) -> tuple[int, int | None] | None:
        raise NotImplementedError

    def send_home(self, game, seat: Seat) -> list[int]:
        raise NotImplementedError

    def choose_tourists(self, game, seat: Seat, groups: list[list[int]]) -> tuple[int | None, list[int]]:
        """The group and the chips to take from it, in the order they move in."""
        raise NotImplementedError

    def room_for(self, game, seat: Seat, chip: int) -> int | None:
        raise NotImplementedError

    def holiday(self, game, seat: Seat) -> list[int]:
        raise NotImplementedError

    def unasked(self, phase: str) -> str | None:
        """The reason (``samsim.illegal``) a script gives for a part of it that ``phase`` never
        asked for, or None."""
        return None

    def insists_on_building(self) -> bool:
        """Whether it buys a tile even when it cannot pay (only a script can)."""
        return False


class RandomPolicy(Decider):
    """Uniformly random legal decisions with sensible placement; one stream per seat for the game."""

    def __init__(self, seed: int, game: int, seat: int, params: dict[str, int]):
        self.stream = Stream.for_game(seed, game, POLICY_STREAM_BASE + seat)
        self.recall_pct = params["recall_pct"]
        self.switch_pct = params["switch_pct"]
        self.send_home_pct = params["send_home_pct"]
        self.take_pct = params["take_pct"]

    def chance(self, pct: int) -> bool:
        return self.stream.below(100) < pct

    def pick(self, options: list):
        """The below(len)-th option; the options are always in ascending order."""
        return options[self.stream.below(len(options))]

    def pick_and_remove(self, options: list):
        return options.pop(self.stream.below(len(options)))

    def price_card(self, game, seat):
        recalled = []
        if seat.special_count(RECALL) and seat.discard and self.chance(self.recall_pct):
            discard = seat.sorted_discard()
            for _ in range(min(game.rules.recall_cards, len(discard))):
                recalled.append(self.pick_and_remove(discard))
        hand = sorted(seat.hand | set(recalled))
        return recalled, self.pick(hand)

    def switch(self, game, seat):
        if seat.special_count(SWITCH) and seat.hand and self.chance(self.switch_pct):
            return self.pick(seat.sorted_hand())
        return None

    def build(self, game, seat, bid):
        options = [kind for kind, count in enumerate(game.table_tiles)
                   if count > 0 and not (kind == SUITE and not seat.hotel.rooms_without_suite())]
        choice = self.stream.below(len(options) + 1)
        if choice == len(options):
            return None
        kind = options[choice]
        room = self.pick(seat.hotel.rooms_without_suite()) if kind == SUITE else None
        return kind, room

    def send_home(self, game, seat):
        occupied = seat.hotel.occupied_rooms()
        if not (seat.special_count(SEND_HOME) and occupied and self.chance(self.send_home_pct)):
            return []
        return [self.pick_and_remove(occupied)
                for _ in range(min(game.rules.send_home_removals, len(occupied)))]

    def choose_tourists(self, game, seat, groups):
        open_groups = [g for g, chips in enumerate(groups) if chips]
        choice = self.stream.below(len(open_groups) + 1)
        if choice == len(open_groups):
            return None, []
        group = open_groups[choice]
        selected = [chip for chip in groups[group] if self.chance(self.take_pct)]
        # celebrities move in first, so that their new neighbours pay double
        celebrities = [chip for chip in selected if game.rules.tourists[chip].is_celebrity]
        others = [chip for chip in selected if not game.rules.tourists[chip].is_celebrity]
        return group, celebrities + others

    def room_for(self, game, seat, chip):
        if game.rules.tourists[chip].is_lover:
            lonely = seat.hotel.rooms_with_one_lover()
            if lonely:
                return lonely[0]
        free = seat.hotel.free_rooms()
        if not free:
            return None
        return self.pick(free)

    def holiday(self, game, seat):
        occupied = seat.hotel.occupied_rooms()
        if not occupied:
            return []
        count = self.stream.below(min(game.rules.holiday_removals, len(occupied)) + 1)
        return [self.pick_and_remove(occupied) for _ in range(count)]


class ScriptedDecision(Decider):
    """One seat's decisions for one round, from a position's ``decisions``.

    It remembers which of its parts the game asked for, so a script that builds when no offer
    comes, or takes tourists when its turn never comes, is an error instead of silently ignored.
    """

    KEYS = ("card", "recall", "switch", "build", "send_home", "group", "take", "holiday")

    def __init__(self, round_no: int, seat: int, decision: dict):
        self.round_no = round_no
        self.seat = seat
        if not isinstance(decision, dict):
            raise self.error(f"a decision must be a dict or null, got {decision!r}")
        unknown = sorted(set(decision) - set(self.KEYS), key=str)
        if unknown:
            raise self.error(f"unknown decision key {unknown[0]!r} (known: {', '.join(self.KEYS)})")
        if "card" not in decision:
            raise self.error("the decision gives no card")
        self.card = self.whole(decision["card"], "card")
        self.recall = self.whole_list(decision.get("recall", []), "recall")
        self.switch_card = decision.get("switch")
        if self.switch_card is not None:
            self.switch_card = self.whole(self.switch_card, "switch")
        build = decision.get("build")
        if build is None:
            self.build_choice = None
        else:
            if not isinstance(build, dict) or "tile" not in build or set(build) - {"tile", "room"}:
                raise self.error(f"build must be null or {{tile, room}}, got {build!r}")
            room = build.get("room")
            self.build_choice = (self.whole(build["tile"], "build tile"),
                                 None if room is None else self.whole(room, "build room"))
        self.send_home_rooms = self.whole_list(decision.get("send_home", []), "send_home")
        group = decision.get("group")
        self.group = None if group is None else self.whole(group, "group")
        take = decision.get("take", [])
        if not isinstance(take, list) or not all(
                isinstance(pair, (list, tuple)) and len(pair) == 2 for pair in take):
            raise self.error(f"take must be a list of [chip, room] pairs, got {take!r}")
        self.take = [(self.whole(chip, "take chip"), self.whole(room, "take room")) for chip, room in take]
        if self.group is None and self.take:
            raise self.error("take lists tourists but group is null")
        self.holiday_rooms = self.whole_list(decision.get("holiday", []), "holiday")
        self.asked_build = False
        self.asked_tourists = False
        self.asked_holiday = False
        self.rooms_to_use: list[tuple[int, int]] = []

    def error(self, problem: str) -> ValueError:
        """A script that is not well formed: refused before any rule is asked."""
        return ValueError(f"round {self.round_no}, seat {self.seat}: {problem}")

    def whole(self, value, what: str) -> int:
        if not isinstance(value, int) or isinstance(value, bool):
            raise self.error(f"{what} must be a whole number, got {value!r}")
        return value

    def whole_list(self, values, what: str) -> list[int]:
        if not isinstance(values, list):
            raise self.error(f"{what} must be a list, got {values!r}")
        return [self.whole(value, what) for value in values]

    # --- answers --------------------------------------------------------------------------------
    def price_card(self, game, seat):
        return list(self.recall), self.card

    def switch(self, game, seat):
        return self.switch_card

    def build(self, game, seat, bid):
        self.asked_build = True
        return self.build_choice

    def send_home(self, game, seat):
        self.asked_tourists = True
        return list(self.send_home_rooms)

    def choose_tourists(self, game, seat, groups):
        self.rooms_to_use = list(self.take)
        return self.group, [chip for chip, _room in self.take]

    def room_for(self, game, seat, chip):
        for index, (wanted, room) in enumerate(self.rooms_to_use):
            if wanted == chip:
                del self.rooms_to_use[index]
                return room
        raise self.error(f"no room given for tourist {game.rules.chip_name(chip)}")

    def holiday(self, game, seat):
        self.asked_holiday = True
        return list(self.holiday_rooms)

    def unasked(self, phase: str) -> str | None:
        if phase == "build" and self.build_choice is not None and not self.asked_build:
            return "NOT_OFFERED"
        if phase == "tourists" and not self.asked_tourists and (self.send_home_rooms
                                                                or self.group is not None):
            return "NO_TURN"
        if phase == "holiday" and self.holiday_rooms and not self.asked_holiday:
            return "NOT_HOLIDAY"
        return None

    def insists_on_building(self) -> bool:
        return self.build_choice is not None
