"""The deal, the game state and the round, in the order of docs/protocol.md.

One :class:`Game` holds what lasts between rounds (flags, tile stack, tourist deck, table tiles, the
tie-breaker, the piles of tourist chips, the seats). One :class:`Round` holds what lasts only inside a
round (the groups of new tourists, the played cards, who built or hosted) and walks through the
phases as methods named after the rulebook's steps.

Every decision a player makes is asked of a *decider* (the built-in random policy, or a scripted
decision from a position) and then checked here, against the rules, before it changes anything. The
random policy is checked the same way as a script: a policy bug is then a loud IllegalDecision, not a
silently different game.
"""

from __future__ import annotations

from dataclasses import dataclass, field

from samsim.illegal import IllegalDecision
from samsim.illegal import illegal as illegal_decision

from . import events as ev
from .model import (
    EXTRA_ROOM,
    POOL,
    RECALL,
    SEND_HOME,
    SUITE,
    SWITCH,
    TILE_KINDS,
    Hotel,
    Rules,
    Seat,
)
from .policy import RandomPolicy, seat_params
from .rng import CHIP_STREAM_BASE, FLAG_STREAM, TILE_STREAM, TOURIST_CARD_STREAM, Stream


@dataclass
class GameRecord:
    """What a game leaves behind: its event log (empty unless asked for) and the final state."""

    events: list[tuple[int, int, int, int, int, int, int]] = field(default_factory=list)
    snapshot: dict = field(default_factory=dict)


# ------------------------------------------------------------------------------------------------
# The deal: everything chance decides before play, independent of the players' decisions.
# ------------------------------------------------------------------------------------------------
@dataclass
class Deal:
    flags: list[int]            # nation of each round
    tile_stack: list[int]       # tile kinds, top of the stack first
    tourist_deck: list[int]     # tourist card ids; round r (0-based) uses tourist_deck[r]


def lay_flags(rules: Rules, stream: Stream) -> list[int]:
    """Shuffle each flag stack on its own and lay the stacks in order (rulebook, Preparations)."""
    flags: list[int] = []
    for _stack in range(rules.flags_per_nation):
        stack = list(range(rules.n_nations))
        stream.shuffle(stack)
        flags += stack
    return separate_equal_neighbours(flags, rules.n_nations)


def separate_equal_neighbours(flags: list[int], stack_size: int) -> list[int]:
    """Fix the only places two equal flags can meet: where one stack ends and the next begins.

    The first flag of the later stack swaps with the flag right after it, which is of another nation
    (a stack holds each nation once), so the fix never creates a new pair of equal neighbours.
    """
    for start in range(stack_size, len(flags), stack_size):
        if flags[start] == flags[start - 1] and start + 1 < len(flags):
            flags[start], flags[start + 1] = flags[start + 1], flags[start]
    return flags


def deal_game(rules: Rules, seed: int, game: int) -> Deal:
    flags = lay_flags(rules, Stream.for_game(seed, game, FLAG_STREAM))
    tile_stack = [kind for kind in range(rules.n_tile_kinds) for _ in range(rules.tile_count[kind])]
    Stream.for_game(seed, game, TILE_STREAM).shuffle(tile_stack)
    tourist_deck = list(range(rules.n_tourist_cards))
    Stream.for_game(seed, game, TOURIST_CARD_STREAM).shuffle(tourist_deck)
    return Deal(flags, tile_stack, tourist_deck)


# ------------------------------------------------------------------------------------------------
# The game
# ------------------------------------------------------------------------------------------------
class Game:
    """The state that lasts between rounds, set up exactly as the rulebook's Preparations."""

    def __init__(self, rules: Rules, players: int, seed: int, game: int = 0, log: bool = False):
        if not isinstance(players, int) or not rules.min_players <= players <= rules.max_players:
            raise ValueError(f"players must be {rules.min_players}..{rules.max_players}, got {players!r}")
        self.rules = rules
        self.players = players
        self.seed = seed
        self.game_id = game
        self.logging = log
        self.events: list[tuple[int, int, int, int, int, int, int]] = []

        deal = deal_game(rules, seed, game)
        self.flags = deal.flags
        self.tile_stack = deal.tile_stack
        # the tourist card of each round (None where a position left the deck short)
        self.tourist_card_of_round: list[int | None] = deal.tourist_deck[:rules.rounds]
        # rounds whose groups of arrivals a position gives directly (0-based round -> groups)
        self.given_arrivals: dict[int, list[list[int]]] = {}
        self.table_tiles = [0] * rules.n_tile_kinds
        self.tiebreak = rules.tiebreak_start[players]
        self.seats = [self.new_seat(index) for index in range(players)]
        self.piles = [set(range(n * rules.chips_per_nation, (n + 1) * rules.chips_per_nation))
                      for n in range(rules.n_nations)]
        self.next_round = 0          # 0-based index of the round about to be played
        self.final: dict | None = None

    def new_seat(self, index: int) -> Seat:
        return Seat(index=index,
                    money=self.rules.starting_money + self.rules.seat_money[self.players][index],
                    hand=set(range(self.rules.n_cards)), discard=set(), hotel=Hotel(self.rules))

    # --- bookkeeping ----------------------------------------------------------------------------
    def log(self, round_no: int, kind: int, seat: int = -1, a: int = -1, b: int = -1, c: int = -1,
            d: int = -1) -> None:
        if self.logging:
            self.events.append((round_no, kind, seat, a, b, c, d))

    def log_flags(self) -> None:
        for round_index, nation in enumerate(self.flags):
            self.log(round_index + 1, ev.FLAG, a=nation)

    def nation_of(self, chip: int) -> int:
        return self.rules.tourists[chip].nation

    def return_to_pile(self, chip: int) -> None:
        pile = self.piles[self.nation_of(chip)]
        if chip in pile:
            raise RuntimeError(f"chip {self.rules.chip_name(chip)} returned to a pile it is already in")
        pile.add(chip)

    def take_from_pile(self, chip: int) -> None:
        pile = self.piles[self.nation_of(chip)]
        if chip not in pile:
            raise RuntimeError(f"chip {self.rules.chip_name(chip)} drawn but not in its pile")
        pile.remove(chip)

    # --- playing --------------------------------------------------------------------------------
    def play_round(self, deciders: list) -> None:
        Round(self, self.next_round, deciders).play()
        self.next_round += 1
        if self.next_round == self.rules.rounds:
            self.score_the_end()

    def score_the_end(self) -> None:
        """Most money wins (unused special tiles count); free rooms break ties; then a shared win."""
        rules = self.rules
        scores = [seat.money + rules.special_tile_value * sum(seat.specials) for seat in self.seats]
        free = [len(seat.hotel.free_rooms()) for seat in self.seats]
        standing = [(scores[s], free[s]) for s in range(self.players)]
        ranks = [1 + sum(1 for other in standing if other > standing[s]) for s in range(self.players)]
        winners = ranks.count(1)
        credit = [1.0 / winners if rank == 1 else 0.0 for rank in ranks]
        for s, seat in enumerate(self.seats):
            self.log(rules.rounds, ev.FINAL, s, seat.money, scores[s], free[s], ranks[s])
        self.final = {"score": scores, "free_rooms": free, "rank": ranks, "win_credit": credit}

    def snapshot(self) -> dict:
        snap = {
            "round": self.next_round + 1,
            "tiebreak": self.tiebreak,
            "table_tiles": list(self.table_tiles),
            "tile_stack": list(self.tile_stack),
            "piles": [sorted(pile) for pile in self.piles],
            "seats": [{
                "money": seat.money,
                "hand": seat.sorted_hand(),
                "discard": seat.sorted_discard(),
                "rooms": [list(room) for room in seat.hotel.rooms],
                "suites": sorted(seat.hotel.suites),
                "pools": seat.hotel.pools,
                "specials": list(seat.specials),
            } for seat in self.seats],
        }
        if self.final is not None:
            snap["final"] = {key: list(values) for key, values in self.final.items()}
        return snap

    def record(self) -> GameRecord:
        return GameRecord(events=list(self.events), snapshot=self.snapshot())


# ------------------------------------------------------------------------------------------------
# The round
# ------------------------------------------------------------------------------------------------
class Round:
    """One round, phase by phase (rulebook "Summary of a Round"; protocol.md steps 1-11)."""

    def __init__(self, game: Game, index: int, deciders: list):
        self.game = game
        self.rules = game.rules
        self.index = index               # 0-based, for arrays and streams
        self.number = index + 1          # 1-based, for logs and messages
        self.deciders = deciders
        self.nation = game.flags[index]
        self.groups: list[list[int]] = []
        n = game.players
        self.played: list[int] = [-1] * n
        self.bought = [False] * n
        self.hosted = [False] * n

    def play(self) -> None:
        self.reveal_build_tiles()
        self.send_nation_home()
        self.land_plane()
        self.choose_price_cards()
        self.use_switch_tiles()
        self.build_phase()
        self.tourist_phase()
        self.staff_holidays()
        self.return_leftovers()
        self.discard_or_keep_cards()
        self.confirm_asked()
        self.move_tiebreaker()

    # --- helpers --------------------------------------------------------------------------------
    def log(self, kind: int, seat: int = -1, a: int = -1, b: int = -1, c: int = -1, d: int = -1):
        self.game.log(self.number, kind, seat, a, b, c, d)

    def illegal(self, seat: int, reason: str) -> IllegalDecision:
        """A decision the rules forbid: ``reason`` names the words both engines use
        (``samsim.illegal``)."""
        return illegal_decision(self.number, seat, reason)

    def malformed(self, seat: int, problem: str) -> ValueError:
        """A decision that is not even well formed: refused before it reaches a rule."""
        return ValueError(f"round {self.number}, seat {seat}: {problem}")

    def confirm_asked(self) -> None:
        """At the end of the round, let every scripted decision complain about a build or a
        tourist turn the game never asked for (the order the kernel checks them in)."""
        for seat, decider in enumerate(self.deciders):
            for phase in ("build", "tourists"):
                reason = decider.unasked(phase)
                if reason:
                    raise self.illegal(seat, reason)

    def is_holiday(self, seat: int) -> bool:
        return self.played[seat] == self.rules.holiday_card

    def bid(self, seat: int) -> int:
        return self.rules.card_bid[self.played[seat]]

    def price(self, seat: int) -> int:
        return self.rules.card_price[self.played[seat]]

    def clockwise_from_card(self, seat: int) -> int:
        """Build ties: seat t first, then t+1, ... (the card points clockwise at seat t)."""
        return (seat - self.game.tiebreak) % self.game.players

    def price_tie_rank(self, seat: int) -> int:
        """Room-price ties: seat t-1 first, then t-2, ... (counter-clockwise), or seat t first like
        build ties where the data's [seats] price_ties says clockwise."""
        if self.rules.price_clockwise[self.game.players]:
            return self.clockwise_from_card(seat)
        return (self.game.tiebreak - 1 - seat) % self.game.players

    def send_home(self, seat: Seat, room: int, kind: int) -> None:
        """Empty a room back into the piles (departure, SEND_HOME tile or Staff holiday)."""
        for chip in seat.hotel.empty_room(room):
            self.game.return_to_pile(chip)
            self.log(kind, seat.index, chip, room)

    def empty_rooms_by_choice(self, seat: Seat, rooms, most: int, kind: int, what: str) -> None:
        """Check and carry out a player's choice of rooms to empty (a couple counts as one)."""
        if not isinstance(rooms, list):
            raise self.malformed(seat.index, f"{what} must be a list of rooms, got {rooms!r}")
        for count, room in enumerate(rooms, start=1):  # checked room by room, as the kernel does
            if count > most:
                raise self.illegal(seat.index, "REMOVALS")
            if (not isinstance(room, int) or isinstance(room, bool)
                    or not 0 <= room < seat.hotel.room_count()):
                raise self.illegal(seat.index, "NO_ROOM")
            if not seat.hotel.rooms[room]:
                raise self.illegal(seat.index, "EMPTY_ROOM")
            self.send_home(seat, room, kind)

    # --- 1) reveal build tiles ------------------------------------------------------------------
    def reveal_build_tiles(self) -> None:
        count = self.rules.tiles_revealed[self.game.players][self.index]
        for _ in range(min(count, len(self.game.tile_stack))):
            kind = self.game.tile_stack.pop(0)
            self.game.table_tiles[kind] += 1
            self.log(ev.REVEAL, a=kind)

    # --- 2) tourists of this round's nation go home ---------------------------------------------
    def send_nation_home(self) -> None:
        for seat in self.game.seats:
            for room, chips in enumerate(seat.hotel.rooms):
                # a couple leaves when the flag of either lover comes up
                if any(self.game.nation_of(chip) == self.nation for chip in chips):
                    self.send_home(seat, room, ev.DEPART)

    # --- 2b) the plane lands --------------------------------------------------------------------
    def land_plane(self) -> None:
        if self.index in self.game.given_arrivals:
            # a position gives the groups directly: no tourist card is drawn this round
            self.groups = [list(group) for group in self.game.given_arrivals[self.index]]
        else:
            card = self.game.tourist_card_of_round[self.index]
            if card is None:
                raise ValueError(f"round {self.number}: no tourist card left in the deck")
            self.log(ev.TOURIST_CARD, a=card)
            self.groups = self.draw_groups(self.rules.group_sizes(card, self.game.players, self.index))
        for group_index, group in enumerate(self.groups):
            for chip in group:
                self.game.take_from_pile(chip)
                self.log(ev.ARRIVE, a=group_index, b=chip)

    def draw_groups(self, sizes: list[int]) -> list[list[int]]:
        """Draw the chips from this round's own stream: the nation's whole pile is always home."""
        per_nation = self.rules.chips_per_nation
        stream = Stream.for_game(self.game.seed, self.game.game_id, CHIP_STREAM_BASE + self.index)
        order = stream.partial_draw(list(range(per_nation)), sum(sizes))
        chips = [self.nation * per_nation + k for k in order[:sum(sizes)]]
        groups, start = [], 0
        for size in sizes:
            groups.append(chips[start:start + size])
            start += size
        return groups

    # --- 3) select and reveal price cards -------------------------------------------------------
    def choose_price_cards(self) -> None:
        for seat in self.game.seats:
            recalled, card = self.deciders[seat.index].price_card(self.game, seat)
            self.use_recall_tile(seat, recalled)
            if card not in seat.hand:
                raise self.illegal(seat.index, "CARD")
            self.played[seat.index] = card
        for seat in self.game.seats:
            card = self.played[seat.index]
            seat.hand.remove(card)
            self.log(ev.PLAY, seat.index, card)

    def use_recall_tile(self, seat: Seat, recalled) -> None:
        if not isinstance(recalled, list):
            raise self.malformed(seat.index, f"recall must be a list of cards, got {recalled!r}")
        if not recalled:
            return
        if seat.special_count(RECALL) == 0:
            raise self.illegal(seat.index, "RECALL_TILE")
        if len(recalled) != min(self.rules.recall_cards, len(seat.discard)):
            raise self.illegal(seat.index, "RECALL_MANY")
        seat.use_special(RECALL)
        for card in recalled:
            if card not in seat.discard:
                raise self.illegal(seat.index, "RECALL_CARD")
            seat.discard.remove(card)
            seat.hand.add(card)
            self.log(ev.RECALL, seat.index, card)

    # --- 3b) SWITCH tiles, after the reveal and before the build phase --------------------------
    def use_switch_tiles(self) -> None:
        n = self.game.players
        for step in range(n):
            seat = self.game.seats[(self.game.tiebreak + step) % n]
            new = self.deciders[seat.index].switch(self.game, seat)
            if new is None:
                continue
            if seat.special_count(SWITCH) == 0:
                raise self.illegal(seat.index, "SWITCH_TILE")
            if new not in seat.hand:
                raise self.illegal(seat.index, "SWITCH_CARD")
            old = self.played[seat.index]
            seat.use_special(SWITCH)
            seat.hand.remove(new)
            seat.hand.add(old)
            self.played[seat.index] = new
            self.log(ev.SWITCH, seat.index, old, new)

    # --- 4) build phase -------------------------------------------------------------------------
    def build_order(self) -> list[int]:
        bidders = [s for s in range(self.game.players) if not self.is_holiday(s)]
        return sorted(bidders, key=lambda s: (-self.bid(s), self.clockwise_from_card(s)))

    def build_phase(self) -> None:
        for s in self.build_order():
            if sum(self.game.table_tiles) == 0:
                break
            seat = self.game.seats[s]
            if seat.money < self.bid(s):   # a player who cannot pay is not offered a tile,
                if self.deciders[s].insists_on_building():   # and a script buying anyway is wrong
                    raise self.illegal(s, "MONEY")
                continue
            choice = self.deciders[s].build(self.game, seat, self.bid(s))
            if choice is None:
                self.log(ev.PASS, s, 0)       # declined the offer
            else:
                self.buy_tile(seat, choice)

    def buy_tile(self, seat: Seat, choice) -> None:
        s = seat.index
        if not (isinstance(choice, tuple) and len(choice) == 2):
            raise self.malformed(s, f"build must be a tile kind and a room, got {choice!r}")
        kind, room = choice
        if not isinstance(kind, int) or isinstance(kind, bool) or not 0 <= kind < len(TILE_KINDS):
            raise self.illegal(s, "TILE")
        if self.game.table_tiles[kind] == 0:
            raise self.illegal(s, "TILE")
        if kind == SUITE:
            if room not in seat.hotel.rooms_without_suite():
                raise self.illegal(s, "SUITE_ROOM")
        elif room is not None:
            raise self.illegal(s, "ROOM_NOT_SUITE")
        price = self.bid(s)
        seat.money -= price
        self.game.table_tiles[kind] -= 1
        self.bought[s] = True
        self.log(ev.BUY, s, kind, price, room if kind == SUITE else -1)
        if kind == EXTRA_ROOM:
            seat.hotel.add_extra_room()
        elif kind == SUITE:
            seat.hotel.suites.add(room)
        elif kind == POOL:
            seat.hotel.pools += 1
            bonus = seat.hotel.buoy_points()     # 1 per buoy point already in the hotel
            seat.money += bonus
            self.log(ev.POOL_BONUS, s, bonus)
        else:
            seat.specials[kind - SWITCH] += 1

    # --- 5) tourist phase -----------------------------------------------------------------------
    def tourist_order(self) -> list[int]:
        hosts = [s for s in range(self.game.players) if not self.is_holiday(s)]
        return sorted(hosts, key=lambda s: (self.price(s), self.price_tie_rank(s)))

    def tourists_left(self) -> bool:
        return any(self.groups)

    def tourist_phase(self) -> None:
        for s in self.tourist_order():
            if not self.tourists_left():
                break
            self.tourist_turn(self.game.seats[s])

    def tourist_turn(self, seat: Seat) -> None:
        decider = self.deciders[seat.index]
        rooms = decider.send_home(self.game, seat)
        if rooms:
            self.use_send_home_tile(seat, rooms)
        group_index, chips = decider.choose_tourists(self.game, seat, self.groups)
        if group_index is None:
            if chips:
                raise self.malformed(seat.index, "takes tourists without choosing a group")
            self.log(ev.PASS, seat.index, 1, -1)      # the turn ends with nobody hosted
            return
        group = self.check_group(seat, group_index)
        hosted = 0
        for chip in chips:  # checked one by one as they move in, as the kernel does
            if chip not in group:  # (a tourist taken twice is no longer there the second time)
                raise self.illegal(seat.index, "NOT_IN_GROUP")
            room = decider.room_for(self.game, seat, chip)
            if room is None:
                continue          # the random policy found no room: the tourist stays in the group
            self.host(seat, group_index, group, chip, room)
            hosted += 1
        if hosted == 0:
            self.log(ev.PASS, seat.index, 1, group_index)

    def use_send_home_tile(self, seat: Seat, rooms) -> None:
        if seat.special_count(SEND_HOME) == 0:
            raise self.illegal(seat.index, "SEND_TILE")
        wanted = min(self.rules.send_home_removals, len(seat.hotel.occupied_rooms()))
        if isinstance(rooms, list) and len(rooms) != wanted:
            raise self.illegal(seat.index, "SEND_COUNT")
        seat.use_special(SEND_HOME)
        self.empty_rooms_by_choice(seat, rooms, wanted, ev.SEND_HOME, "SEND_HOME")

    def check_group(self, seat: Seat, group_index) -> list[int]:
        if (not isinstance(group_index, int) or isinstance(group_index, bool)
                or not 0 <= group_index < len(self.groups) or not self.groups[group_index]):
            raise self.illegal(seat.index, "GROUP")
        return self.groups[group_index]

    def host(self, seat: Seat, group_index: int, group: list[int], chip: int, room) -> None:
        """A tourist moves in and pays at once (paying at the end of the round is equivalent)."""
        reason = seat.hotel.why_not_placeable(chip, room)
        if reason:
            raise self.illegal(seat.index, reason)
        tourist = self.rules.tourists[chip]
        paid = (self.price(seat.index) * seat.hotel.price_multiplier(chip, room)
                + tourist.buoy * seat.hotel.pools)
        seat.hotel.place(chip, room)
        group.remove(chip)
        seat.money += paid
        self.hosted[seat.index] = True
        self.log(ev.HOST, seat.index, chip, room, paid, group_index)

    # --- 5b) Staff holiday ----------------------------------------------------------------------
    def staff_holidays(self) -> None:
        for seat in self.game.seats:
            decider = self.deciders[seat.index]
            if self.is_holiday(seat.index):
                rooms = decider.holiday(self.game, seat)
                self.empty_rooms_by_choice(seat, rooms, self.rules.holiday_removals, ev.HOLIDAY,
                                           "Staff holiday")
            elif reason := decider.unasked("holiday"):
                raise self.illegal(seat.index, reason)

    # --- 5c) unclaimed tourists go back to their pile -------------------------------------------
    def return_leftovers(self) -> None:
        for group in self.groups:
            for chip in group:
                self.game.return_to_pile(chip)
                self.log(ev.LEFTOVER, a=chip)
            group.clear()

    # --- 6) payment happened at move-in; now discard or keep the played card ---------------------
    def discard_or_keep_cards(self) -> None:
        for seat in self.game.seats:
            s = seat.index
            card = self.played[s]
            if self.rules.is_normal_card(card) and (self.bought[s] or self.hosted[s]):
                seat.discard.add(card)
                self.log(ev.DISCARD, s, card)
            else:
                seat.hand.add(card)
                self.log(ev.KEEP, s, card)

    def move_tiebreaker(self) -> None:
        self.game.tiebreak = (self.game.tiebreak + 1) % self.game.players
        self.log(ev.TIEBREAK, a=self.game.tiebreak)


# ------------------------------------------------------------------------------------------------
# A whole game with the built-in random policy
# ------------------------------------------------------------------------------------------------
def play_game(data, players: int, seed: int, game: int = 0, params=None, log: bool = False) -> GameRecord:
    """Deal game ``game`` of ``seed`` and play all rounds with the random policy at every seat."""
    rules = Rules(data)
    state = Game(rules, players, seed, game, log)
    per_seat = seat_params(params, players)
    deciders = [RandomPolicy(seed, game, s, per_seat[s]) for s in range(players)]
    state.log_flags()
    for _round in range(rules.rounds):
        state.play_round(deciders)
    return state.record()
