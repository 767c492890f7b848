"""Property-based invariants of the compiled kernel (``samsim.kernel``, played through
``samsim.engine``).

Hypothesis draws seeds (0..2**64-1), game ids, player counts 3..6 and random-policy parameters (one
dict of percentages for every seat, or one per seat, extremes 0 and 100 favoured) and checks laws
that hold in every game, whatever the dice and the decisions:

* after every round, every chip, price card, tile and coin is somewhere, and only once;
* the money of each seat is exactly what the event log says it earned and spent;
* the game ends after 12 rounds with consistent ranks and win credits;
* the batched state's bitmaps agree with the arrays they summarise;
* results do not depend on threads, chunking or batch neighbours, and the deal not on play;
* a Staff holiday seat neither builds nor hosts and keeps its grey card.

The checks are written from the rulebook, docs/rules.md and docs/protocol.md, not from
the kernel's code: the replay below rebuilds each game from its event log with plain sets and lists
(no bitmaps), so the kernel and this file share no state representation. The last tests corrupt a
real game in small ways and demand that each checker notices, so no check here is a tautology.

On failure Hypothesis prints the falsifying (players, seed, game, params); replay it with
``engine.play_game(DATA, players, seed, game, params=params, log=True)``.
"""

from __future__ import annotations

import copy
from collections import Counter
from types import SimpleNamespace

import numba
import numpy as np
import pandas as pd
import pytest
from hypothesis import example, given, settings
from hypothesis import strategies as st

from samsim import components, engine
from samsim.components import CELEBRITY, EXTRA_ROOM, LOVER, POOL, RICH, SUITE, SWITCH, TILE_KINDS
from samsim.kernel import events as ev
from samsim.runs.simulate import simulate

DATA = components.load()
#: Examples per whole-game property: each plays whole games of a random line-up, player count and
#: seed; 150 (with hypothesis' shrinking and its database of failures) keeps CI in its time budget.
EXAMPLES = 150
C = DATA.components
PER = C.chips_per_nation
N_CHIPS = C.n_nations * PER
N_CARDS = len(C.card_bid)
HOLIDAY = C.holiday_card
N_TILES = int(C.tile_count.sum())
ROUNDS = C.rounds
SPECIALS = len(TILE_KINDS) - SWITCH           # switch, send_home, recall

#: Event kinds as plain ints, by name (E.HOST, E.BUY, ...).
E = SimpleNamespace(**{name: int(getattr(ev, name)) for name in ev.KIND_NAMES[1:]})
#: The special tile each use event spends, as an index into a seat's ``specials``.
USE_SPECIAL = {E.SWITCH: 0, E.SEND_HOME: 1, E.RECALL: 2}
#: Phase of each event kind inside a round (docs/protocol.md, "A round, in order"). Kinds that share
#: a phase interleave (a pool's bonus follows its purchase; SEND_HOME opens a seat's tourist turn).
PHASE = {E.REVEAL: 0, E.DEPART: 1, E.TOURIST_CARD: 2, E.ARRIVE: 3, E.RECALL: 4, E.PLAY: 5,
         E.SWITCH: 6, E.BUY: 7, E.POOL_BONUS: 7, E.SEND_HOME: 8, E.HOST: 8, E.HOLIDAY: 9,
         E.LEFTOVER: 10, E.DISCARD: 11, E.KEEP: 11, E.TIEBREAK: 12}
PARAM_NAMES = ("recall_pct", "switch_pct", "send_home_pct", "take_pct")
HAS_TWO_THREADS = numba.config.NUMBA_NUM_THREADS >= 2


def phase_of(e) -> int:
    """Where an event stands in its round; a PASS stands in the phase it declines (a = 0: build)."""
    if e[1] == E.PASS:
        return PHASE[E.BUY] if e[3] == 0 else PHASE[E.HOST]
    return PHASE[e[1]]


# ------------------------------------------------------------------------------------------------
# Strategies
# ------------------------------------------------------------------------------------------------
percent = st.one_of(st.sampled_from([0, 100]), st.integers(0, 100))
param_dict = st.fixed_dictionaries({}, optional={name: percent for name in PARAM_NAMES})
seeds = st.integers(0, 2**64 - 1)
# Small ids are the common case; large ones exercise the 64-bit stream keys. Kept below 2**62 so
# that batches of consecutive ids starting there stay within int64.
game_ids = st.one_of(st.integers(0, 1000), st.integers(0, 2**62))


def params_for(players: int):
    """Random-policy parameters: the defaults, one dict for all seats, or one (or None) per seat."""
    per_seat = st.lists(st.one_of(st.none(), param_dict), min_size=players, max_size=players)
    return st.one_of(st.none(), param_dict, per_seat)


@st.composite
def games(draw, with_other_params: bool = False):
    """(players, seed, game id, params), plus a second, independent params when asked."""
    players = draw(st.integers(3, 6))
    drawn = (players, draw(seeds), draw(game_ids), draw(params_for(players)))
    if with_other_params:
        drawn += (draw(params_for(players)),)
    return drawn


# ------------------------------------------------------------------------------------------------
# Helpers: small readers of the log and of the rules' data
# ------------------------------------------------------------------------------------------------
def of_kind(events, *kinds):
    return [e for e in events if e[1] in kinds]


def dealt_stack(players: int, seed: int, game: int) -> list[int]:
    """The tile stack as the kernel dealt it, top first, read from the batch state (``tile_stack``
    keeps the whole deal; only ``stack_pos`` moves). Independent of the event log, so replaying
    the log against it checks every REVEAL."""
    state = engine.run_batch(1, players, seed, game, DATA)
    return [int(k) for k in state.tile_stack[0, :state.stack_len[0]]]


def batch_events(state, g: int) -> list[tuple[int, ...]]:
    return ev.rows_to_tuples(state.events[g], int(state.n_events[g]))


def is_lover(chip: int) -> bool:
    return C.chip_kind[chip] == LOVER


def pays(rooms: list[list[int]], suites: set[int], pools: int, chip: int, room: int, price: int) -> int:
    """What a tourist pays on moving in (ruling 6): price x2 if rich, in a suite, or in a base room
    next to a celebrity; never more than x2; buoys x pools on top."""
    next_to_celebrity = room < C.base_rooms and any(
        (int(C.room_adjacent[room]) >> other) & 1 and C.chip_kind[x] == CELEBRITY
        for other in range(len(rooms)) for x in rooms[other])
    double = C.chip_kind[chip] == RICH or room in suites or next_to_celebrity
    return price * (2 if double else 1) + int(C.chip_buoy[chip]) * pools


# ------------------------------------------------------------------------------------------------
# The replay: the game rebuilt from its event log, checked event by event
# ------------------------------------------------------------------------------------------------
class Replay:
    """Rebuilds a game from its event log alone, in plain Python sets and lists.

    Why: the log is the kernel's own account of the game. Replaying it into explicit piles, groups,
    rooms, hands and purses gives a second state, kept without the kernel's bitmaps, that must equal
    the kernel's snapshot after every round; and it lets every event be checked against the rules at
    the moment it happens (a hosted chip must come from the group named, a bought tile must be on the
    table and paid with the bid of the card played, a couple leaves together, ...). A broken rule
    raises AssertionError naming the event.
    """

    def __init__(self, players: int, stack: list[int]):
        n = players
        assert Counter(stack) == {k: int(C.tile_count[k]) for k in range(len(TILE_KINDS))
                                  if C.tile_count[k]}, f"the dealt stack is not the 19 tiles: {stack}"
        self.n = n
        self.flags: dict[int, int] = {}
        self.pile = set(range(N_CHIPS))
        self.group: dict[int, int] = {}                       # chip -> group it waits in
        self.rooms = [[[] for _ in range(C.base_rooms)] for _ in range(n)]
        self.money = [C.starting_money] * n
        self.hand = [set(range(N_CARDS)) for _ in range(n)]
        self.discard: list[set[int]] = [set() for _ in range(n)]
        self.played: list[int | None] = [None] * n
        self.stack = list(stack)
        self.table = [0] * len(TILE_KINDS)
        self.suites: list[set[int]] = [set() for _ in range(n)]
        self.pools = [0] * n
        self.specials = [[0] * SPECIALS for _ in range(n)]
        self.tiebreak = 0
        self.done = 0                                         # rounds completed
        self.cards_used: set[int] = set()
        self.finals: dict[int, tuple[int, int, int, int]] = {}
        self.partner: tuple | None = None                     # the couple's second leaving event
        self.pool_bonus: tuple | None = None                  # the POOL_BONUS a pool purchase owes
        self._new_round()

    def _new_round(self):
        self.phase = -1
        self.reveals = 0
        self.stack_at_start = len(self.stack)
        self.card: int | None = None
        self.arrived: Counter = Counter()
        self.plays = 0
        self.bought: set[int] = set()
        self.hosted: set[int] = set()
        self.host_group: dict[int, int] = {}
        self.last_bid = None
        self.last_price = None
        self.used: set[tuple[int, int]] = set()               # (use kind, seat)
        self.emptied: Counter = Counter()                      # (kind, seat) -> rooms emptied
        self.send_home_due: dict[int, int] = {}               # seat -> rooms SEND_HOME must empty
        self.recalled: Counter = Counter()                     # seat -> cards taken back
        self.recall_due: dict[int, int] = {}                  # seat -> cards RECALL must take back
        self.settled: set[int] = set()

    # -- events -----------------------------------------------------------------------------------
    def apply(self, e):
        rnd, kind, seat, a, b, c, d = e
        if kind == E.FLAG:
            assert self.done == 0 and rnd not in self.flags and 0 <= a < C.n_nations, e
            self.flags[rnd] = a
            return
        if kind == E.FINAL:
            assert self.done == ROUNDS and rnd == ROUNDS and seat not in self.finals, e
            self.finals[seat] = (a, b, c, d)
            return
        assert len(self.flags) == ROUNDS, f"{e}: play began before all {ROUNDS} flags were laid"
        assert rnd == self.done + 1, f"{e}: expected an event of round {self.done + 1}"
        phase = phase_of(e)
        assert phase >= self.phase, f"{e}: out of order (phase {phase} after {self.phase})"
        if self.phase <= PHASE[E.DEPART] < phase:
            self._departures_done(rnd)
        self.phase = phase
        if self.partner is not None:
            assert (kind, seat, a, b) == self.partner, f"{e}: the couple's partner {self.partner} " \
                                                      f"had to leave with it"
            self.partner = None
            return
        if self.pool_bonus is not None:
            assert (kind, seat, a) == self.pool_bonus, f"{e}: expected POOL_BONUS {self.pool_bonus}"
            self.pool_bonus = None
            self.money[seat] += a
            return
        getattr(self, "_" + ev.KIND_NAMES[kind].lower())(rnd, seat, a, b, c, d, e)

    def _reveal(self, rnd, seat, kind, b, c, d, e):
        assert self.stack and self.stack[0] == kind, f"{e}: the stack's top is not that tile"
        self.stack.pop(0)
        self.table[kind] += 1
        self.reveals += 1

    def _leave(self, kind, seat, chip, room, e):
        """A chip leaves its room for its pile; a couple leaves together (its partner logs next)."""
        assert 0 <= seat < self.n and 0 <= room < len(self.rooms[seat]), e
        inside = self.rooms[seat][room]
        assert inside and inside[0] == chip, f"{e}: room holds {inside} (slot 0 leaves first)"
        if len(inside) == 2:
            self.partner = (kind, seat, inside[1], room)
        self.pile.update(inside)
        self.rooms[seat][room] = []
        self.emptied[(kind, seat)] += 1

    def _depart(self, rnd, seat, chip, room, c, d, e):
        nation = self.flags[rnd]
        assert any(x // PER == nation for x in self.rooms[seat][room]), \
            f"{e}: nobody of the round's nation {nation} lives there"
        self._leave(E.DEPART, seat, chip, room, e)

    def _departures_done(self, rnd):
        nation = self.flags[rnd]
        staying = [x for seat in self.rooms for room in seat for x in room if x // PER == nation]
        assert not staying, f"round {rnd}: tourists {staying} of nation {nation} did not go home"

    def _tourist_card(self, rnd, seat, card, b, c, d, e):
        assert self.card is None and card not in self.cards_used, f"{e}: card drawn twice"
        self.card = card
        self.cards_used.add(card)

    def _arrive(self, rnd, seat, group, chip, c, d, e):
        assert chip in self.pile, f"{e}: chip not in its pile"
        assert chip // PER == self.flags[rnd], f"{e}: chip not of the round's nation"
        self.pile.remove(chip)
        self.group[chip] = group
        self.arrived[group] += 1

    def _use_special(self, kind, seat, e):
        if (kind, seat) not in self.used:
            assert self.specials[seat][USE_SPECIAL[kind]] > 0, f"{e}: no unused tile to spend"
            self.specials[seat][USE_SPECIAL[kind]] -= 1
            self.used.add((kind, seat))

    def _recall(self, rnd, seat, card, b, c, d, e):
        assert card in self.discard[seat], f"{e}: card not in the discard pile"
        assert self.plays == 0, f"{e}: RECALL comes before the cards are revealed"
        if (E.RECALL, seat) not in self.used:
            self.recall_due[seat] = min(C.recall_cards, len(self.discard[seat]))
        self._use_special(E.RECALL, seat, e)
        self.recalled[seat] += 1
        self.discard[seat].remove(card)
        self.hand[seat].add(card)

    def _play(self, rnd, seat, card, b, c, d, e):
        assert seat == self.plays, f"{e}: cards are revealed in seat order"
        self.plays += 1
        assert card in self.hand[seat], f"{e}: card not in hand"
        self.hand[seat].remove(card)
        self.played[seat] = card

    def _switch(self, rnd, seat, old, new, c, d, e):
        assert self.played[seat] == old and new in self.hand[seat], e
        self._use_special(E.SWITCH, seat, e)
        self.hand[seat].remove(new)
        self.hand[seat].add(old)
        self.played[seat] = new

    def _buy(self, rnd, seat, kind, price, room, d, e):
        card = self.played[seat]
        assert card is not None and card != HOLIDAY, f"{e}: a Staff holiday seat is never offered"
        assert seat not in self.bought, f"{e}: a second tile in one round"
        assert self.table[kind] > 0, f"{e}: no such tile on the table"
        assert price == C.card_bid[card], f"{e}: the price must be the bid of card {card}"
        assert self.last_bid is None or price <= self.last_bid, f"{e}: offers go by bid, descending"
        assert self.money[seat] >= price, f"{e}: bought with {self.money[seat]} money"
        self.last_bid = price
        if kind == SUITE:
            assert 0 <= room < len(self.rooms[seat]) and room not in self.suites[seat], \
                f"{e}: a suite covers an owned room that is not yet a suite"
            self.suites[seat].add(room)
        else:
            assert room == -1, e
        self.table[kind] -= 1
        self.money[seat] -= price
        self.bought.add(seat)
        if kind == EXTRA_ROOM:
            self.rooms[seat].append([])
        elif kind == POOL:
            self.pools[seat] += 1
            buoys = sum(int(C.chip_buoy[x]) for room_ in self.rooms[seat] for x in room_)
            self.pool_bonus = (E.POOL_BONUS, seat, buoys)
        elif kind >= SWITCH:
            self.specials[seat][kind - SWITCH] += 1

    def _pool_bonus(self, rnd, seat, a, b, c, d, e):
        raise AssertionError(f"{e}: a pool bonus without a pool bought just before")

    def _send_home(self, rnd, seat, chip, room, c, d, e):
        assert self.played[seat] not in (None, HOLIDAY), e
        assert seat not in self.host_group, f"{e}: SEND_HOME comes before the seat takes tourists"
        if (E.SEND_HOME, seat) not in self.used:
            occupied = sum(1 for room_ in self.rooms[seat] if room_)
            self.send_home_due[seat] = min(C.send_home_removals, occupied)
        self._use_special(E.SEND_HOME, seat, e)
        self._leave(E.SEND_HOME, seat, chip, room, e)

    def _host(self, rnd, seat, chip, room, paid, group, e):
        card = self.played[seat]
        assert card is not None and card != HOLIDAY, f"{e}: a Staff holiday seat gets no tourists"
        assert self.group.get(chip) == group, f"{e}: chip not waiting in group {group}"
        assert self.host_group.setdefault(seat, group) == group, f"{e}: a second group in one turn"
        price = int(C.card_price[card])
        if seat not in self.hosted:
            assert self.last_price is None or price >= self.last_price, \
                f"{e}: tourist turns go by room price, ascending"
            self.last_price = price
        rooms = self.rooms[seat]
        assert 0 <= room < len(rooms), f"{e}: not an owned room"
        inside = rooms[room]
        assert not inside or (len(inside) == 1 and is_lover(inside[0]) and is_lover(chip)), \
            f"{e}: room holds {inside}; only a lover may join a lone lover"
        assert paid == pays(rooms, self.suites[seat], self.pools[seat], chip, room, price), \
            f"{e}: wrong payment"
        del self.group[chip]
        inside.append(chip)
        self.money[seat] += paid
        self.hosted.add(seat)

    def _holiday(self, rnd, seat, chip, room, c, d, e):
        assert self.played[seat] == HOLIDAY, f"{e}: only a Staff holiday seat sends tourists home so"
        self._leave(E.HOLIDAY, seat, chip, room, e)
        assert self.emptied[(E.HOLIDAY, seat)] <= C.holiday_removals, f"{e}: more than 2 rooms"

    def _leftover(self, rnd, seat, chip, b, c, d, e):
        assert chip in self.group, f"{e}: not waiting in a group"
        del self.group[chip]
        self.pile.add(chip)

    def _discard(self, rnd, seat, card, b, c, d, e):
        assert seat not in self.settled and self.played[seat] == card != HOLIDAY, e
        assert seat in self.bought or seat in self.hosted, f"{e}: discarded without buying or hosting"
        self.discard[seat].add(card)
        self.played[seat] = None
        self.settled.add(seat)

    def _pass(self, rnd, seat, phase, group, c, d, e):
        assert self.played[seat] is not None and self.played[seat] != HOLIDAY, \
            f"{e}: a Staff holiday seat is offered neither a tile nor tourists"
        assert phase in (0, 1), e

    def _keep(self, rnd, seat, card, b, c, d, e):
        assert seat not in self.settled and self.played[seat] == card, e
        assert card == HOLIDAY or not (seat in self.bought or seat in self.hosted), \
            f"{e}: a card that bought or hosted must be discarded"
        self.hand[seat].add(card)
        self.played[seat] = None
        self.settled.add(seat)

    def _tiebreak(self, rnd, seat, t, b, c, d, e):
        n = self.n
        assert self.settled == set(range(n)), f"{e}: a played card was neither kept nor discarded"
        assert not self.group, f"{e}: chips {sorted(self.group)} still wait in groups"
        assert self.partner is None and self.pool_bonus is None, e
        assert t == (self.tiebreak + 1) % n, f"{e}: the tie-breaker moves one seat clockwise"
        assert self.reveals == min(int(C.tiles_revealed[n, rnd - 1]), self.stack_at_start), \
            f"{e}: {self.reveals} tiles revealed"
        assert self.card is not None, f"{e}: no tourist card drawn"
        sizes = C.card_groups[self.card, n] * C.round_factor[rnd - 1]
        assert self.arrived == {k: int(s) for k, s in enumerate(sizes) if s}, \
            f"{e}: arrivals {dict(self.arrived)} do not match card {self.card}: {sizes}"
        for seat_, due in self.send_home_due.items():
            assert self.emptied[(E.SEND_HOME, seat_)] == due, f"{e}: SEND_HOME must empty {due} rooms"
        for seat_, due in self.recall_due.items():
            assert self.recalled[seat_] == due, f"{e}: RECALL must take back {due} cards"
        self.tiebreak = t
        self.done += 1
        self._new_round()

    # -- the state --------------------------------------------------------------------------------
    def state(self) -> dict:
        """The replayed state in the snapshot's form (docs/protocol.md), without ``final``."""
        return {
            "round": self.done + 1, "tiebreak": self.tiebreak, "table_tiles": list(self.table),
            "tile_stack": list(self.stack),
            "piles": [sorted(x for x in self.pile if x // PER == n) for n in range(C.n_nations)],
            "seats": [{"money": self.money[p], "hand": sorted(self.hand[p]),
                       "discard": sorted(self.discard[p]), "rooms": [list(r) for r in self.rooms[p]],
                       "suites": sorted(self.suites[p]), "pools": self.pools[p],
                       "specials": list(self.specials[p])} for p in range(self.n)],
        }


def replay_rounds(record: engine.GameRecord, players: int, stack: list[int]
                  ) -> tuple[list[dict], Replay]:
    """Replay a whole game dealt ``stack``; returns the state after each round (index k = after
    round k+1) and the replay at the end."""
    replay = Replay(players, stack)
    states = []
    for e in record.events:
        replay.apply(e)
        if e[1] == E.TIEBREAK:
            states.append(replay.state())
    return states, replay


# ------------------------------------------------------------------------------------------------
# Checkers shared by the properties and by the corruption tests
# ------------------------------------------------------------------------------------------------
def check_between_rounds(snap: dict, events: list, players: int) -> None:
    """Invariants of a snapshot taken between rounds, against the counts of its own event log.

    Why: these hold whatever happened; a kernel that loses, duplicates or invents a chip, card,
    tile or coin breaks one of them at the first round it happens.
    """
    seats = snap["seats"]
    assert len(seats) == players
    # The 72 chips are each in exactly one place: a pile (of its own nation) or a room. A chip
    # still in a group between rounds would be in neither.
    placed = [x for n, pile in enumerate(snap["piles"]) for x in pile if x // PER == n]
    assert len(placed) == sum(len(pile) for pile in snap["piles"]), "a chip in another nation's pile"
    placed += [x for seat in seats for room in seat["rooms"] for x in room]
    twice = sorted((Counter(placed) - Counter(set(placed))).elements())
    assert sorted(placed) == list(range(N_CHIPS)), \
        f"chips missing {sorted(set(range(N_CHIPS)) - set(placed))}, twice {twice}"
    bought = Counter((e[2], e[3]) for e in of_kind(events, E.BUY))
    used = {(e[0], e[2], e[1]) for e in of_kind(events, *USE_SPECIAL)}
    for p, seat in enumerate(seats):
        for room in seat["rooms"]:
            assert len(room) <= 2, f"seat {p}: a room holds {room}"
            assert len(room) < 2 or all(is_lover(x) for x in room), f"seat {p}: {room} share a room"
        assert seat["money"] >= 0, f"seat {p}: money {seat['money']}"
        assert sorted(seat["hand"] + seat["discard"]) == list(range(N_CARDS)), \
            f"seat {p}: hand {seat['hand']} + discard {seat['discard']} is not the 11 cards"
        assert HOLIDAY not in seat["discard"], f"seat {p}: the Staff holiday card was discarded"
        assert len(seat["rooms"]) == C.base_rooms + bought[(p, EXTRA_ROOM)], f"seat {p}: rooms"
        assert len(seat["suites"]) == bought[(p, SUITE)], f"seat {p}: suites"
        assert all(0 <= r < len(seat["rooms"]) for r in seat["suites"]), f"seat {p}: suite not owned"
        assert seat["pools"] == bought[(p, POOL)], f"seat {p}: pools"
        for kind, k in USE_SPECIAL.items():
            uses = sum(1 for (_, s, u) in used if s == p and u == kind)
            assert seat["specials"][k] == bought[(p, SWITCH + k)] - uses, \
                f"seat {p}: unused {TILE_KINDS[SWITCH + k]} tiles"
    # Tiles: face-down stack + face-up table + bought = the 19 tiles, kind by kind.
    stack = Counter(snap["tile_stack"])
    for kind in range(len(TILE_KINDS)):
        where = stack[kind] + snap["table_tiles"][kind] + sum(bought[(p, kind)] for p in range(players))
        assert where == C.tile_count[kind], f"{TILE_KINDS[kind]}: {where} tiles, dealt {C.tile_count[kind]}"


def check_final(record: engine.GameRecord, players: int) -> None:
    """The end (ruling 14): 12 rounds, a FINAL row per seat agreeing with the snapshot, scores,
    free rooms, ranks by (score, free rooms) and win credits 1/k for k tied winners."""
    snap, events = record.snapshot, record.events
    assert snap["round"] == ROUNDS + 1
    ties = of_kind(events, E.TIEBREAK)
    assert [e[0] for e in ties] == list(range(1, ROUNDS + 1)), "one TIEBREAK per round"
    assert [e[3] for e in ties] == [r % players for r in range(1, ROUNDS + 1)]
    finals = events[-players:]
    assert [(e[0], e[1], e[2]) for e in finals] == [(ROUNDS, E.FINAL, p) for p in range(players)]
    assert len(of_kind(events, E.FINAL)) == players
    assert max(e[0] for e in events) == ROUNDS
    final = snap["final"]
    keys = []
    for p, seat in enumerate(snap["seats"]):
        score = seat["money"] + C.special_tile_value * sum(seat["specials"])
        free = sum(1 for room in seat["rooms"] if not room)
        assert final["score"][p] == score and final["free_rooms"][p] == free, f"seat {p}"
        assert finals[p][3:] == (seat["money"], score, free, final["rank"][p]), f"seat {p}: {finals[p]}"
        keys.append((score, free))
    ranks = [1 + sum(other > mine for other in keys) for mine in keys]
    assert final["rank"] == ranks, f"ranks {final['rank']} for (score, free rooms) {keys}"
    winners = ranks.count(1)
    assert final["win_credit"] == [1 / winners if r == 1 else 0.0 for r in ranks]
    assert sum(final["win_credit"]) == pytest.approx(1.0)


def check_staff_holidays(events: list, players: int) -> int:
    """A seat whose card (after any SWITCH) is the grey Staff holiday card neither buys nor takes
    tourists that round, only it may send tourists home by HOLIDAY (two rooms at most), and it gets
    the card back (KEEP). Returns how many seat-rounds were holidays."""
    holidays = 0
    for rnd in range(1, ROUNDS + 1):
        in_round = [e for e in events if e[0] == rnd and e[1] != E.FLAG]
        card = {e[2]: e[3] for e in of_kind(in_round, E.PLAY)}
        assert sorted(card) == list(range(players)), f"round {rnd}: every seat plays a card"
        for e in of_kind(in_round, E.SWITCH):
            assert card[e[2]] == e[3], e
            card[e[2]] = e[4]
        resting = {p for p, c in card.items() if c == HOLIDAY}
        holidays += len(resting)
        for e in of_kind(in_round, E.BUY, E.POOL_BONUS, E.HOST, E.SEND_HOME):
            assert e[2] not in resting, f"{e}: seat {e[2]} is on Staff holiday"
        for p in range(players):
            removed = {e[4] for e in of_kind(in_round, E.HOLIDAY) if e[2] == p}
            assert p in resting or not removed, f"round {rnd}: seat {p} is not on Staff holiday"
            assert len(removed) <= C.holiday_removals, f"round {rnd}: seat {p} emptied {removed}"
        ends = [(e[1], e[2], e[3]) for e in of_kind(in_round, E.DISCARD, E.KEEP)]
        for p in resting:
            assert ends.count((E.KEEP, p, HOLIDAY)) == 1, f"round {rnd}: seat {p}: {ends}"
        assert sorted(p for _, p, _ in ends) == list(range(players)), f"round {rnd}: {ends}"
    return holidays


def check_batch_state(state) -> None:
    """The batched arrays after complete games: each derived bitmap equals what it summarises, and
    every chip, card and tile is in one place. Vectorised over the games."""
    G, N = state.money.shape
    R = state.room_chip.shape[2]
    weights = np.int64(1) << np.arange(R, dtype=np.int64)
    chips = state.room_chip                                              # [G, N, R, 2]
    assert (state.error == 0).all() and (state.round_no == ROUNDS).all()
    owned = np.arange(R)[None, None, :] < state.n_rooms[:, :, None]
    assert (chips[~owned] == -1).all(), "a chip in a room nobody owns"
    assert not ((chips[..., 1] >= 0) & (chips[..., 0] < 0)).any(), "slot 1 filled before slot 0"
    np.testing.assert_array_equal(state.occupied, ((chips[..., 0] >= 0) * weights).sum(-1),
                                  err_msg="occupied != rooms whose slot 0 holds a chip")
    nation = np.where(chips >= 0, chips // PER, -1)
    for n in range(C.n_nations):
        np.testing.assert_array_equal(state.nation_rooms[:, :, n],
                                      ((nation == n).any(-1) * weights).sum(-1),
                                      err_msg=f"nation_rooms[..., {n}] != rooms holding nation {n}")
    assert (state.group_left == 0).all(), "group_left not empty after the game"
    assert (state.group_chip == -1).all(), "group_chip not empty after the game"
    # Piles + rooms hold every chip exactly once.
    assert (state.pile >> PER == 0).all(), "pile bits beyond the nation's chips"
    in_pile = (state.pile[:, :, None] >> np.arange(PER)) & 1                # [G, nations, PER]
    count = in_pile.reshape(G, N_CHIPS).astype(np.int64)
    g_idx = np.broadcast_to(np.arange(G)[:, None, None, None], chips.shape)
    hosted = chips >= 0
    np.add.at(count, (g_idx[hosted], chips[hosted]), 1)
    bad = np.argwhere(count != 1)
    assert not len(bad), f"(game row, chip) not in exactly one place: {bad[:5].tolist()}"
    # Cards: none in play, hand and discard split the 11 cards, the grey card in hand.
    all_cards = (1 << N_CARDS) - 1
    assert (state.played == -1).all()
    assert ((state.hand & state.discard) == 0).all() and ((state.hand | state.discard) == all_cards).all()
    assert ((state.hand >> HOLIDAY) & 1).all(), "Staff holiday card not in hand"
    assert (state.money >= 0).all()
    # Tiles: 19 in all; what a seat owns comes from what it bought.
    left = state.stack_len - state.stack_pos
    assert (left + state.table_tiles.sum(1) + state.tiles_bought.sum(1) == N_TILES).all()
    suites = ((state.suites[:, :, None] >> np.arange(R)) & 1).sum(-1)
    assert ((state.suites & ~((np.int64(1) << state.n_rooms) - 1)) == 0).all(), "suite not owned"
    owned_tiles = state.n_rooms - C.base_rooms + suites + state.pools + state.specials.sum(-1)
    assert (owned_tiles <= state.tiles_bought).all()
    # The final columns follow from the arrays.
    occupied = ((state.occupied[:, :, None] >> np.arange(R)) & 1).sum(-1)
    np.testing.assert_array_equal(state.free_rooms, state.n_rooms - occupied)
    np.testing.assert_array_equal(state.score, state.money + C.special_tile_value * state.specials.sum(-1))
    np.testing.assert_allclose(state.win_credit.sum(1), 1.0)


def deal_of(events: list) -> list[tuple]:
    """The chance events of a game: flags, tiles revealed, tourist cards and arriving chips."""
    return of_kind(events, E.FLAG, E.REVEAL, E.TOURIST_CARD, E.ARRIVE)


# ------------------------------------------------------------------------------------------------
# 1. After every round
# ------------------------------------------------------------------------------------------------
def test_default_data_has_the_counts_these_invariants_speak_of():
    assert (N_CHIPS, N_CARDS, N_TILES, C.base_rooms, ROUNDS) == (72, 11, 19, 6, 12)


@settings(max_examples=EXAMPLES, deadline=None)
@given(games())
@example((6, 2**64 - 1, 2**62, {name: 100 for name in PARAM_NAMES}))
@example((3, 0, 0, {name: 0 for name in PARAM_NAMES}))
@example((5, 12345, 7, [{"take_pct": 100, "switch_pct": 100}, None,
                        {"recall_pct": 100, "send_home_pct": 100}, {}, {"take_pct": 0}]))
def test_every_round_ends_in_a_consistent_state(game):
    """Play the game k = 1..12 rounds at a time (play_position) and replay its full log: each
    k-round log is the start of the full one, each k-round snapshot passes the between-rounds
    invariants and equals the state replayed from the log after round k."""
    players, seed, game_id, params = game
    full = engine.play_game(DATA, players, seed, game_id, params=params, log=True)
    states, _ = replay_rounds(full, players, dealt_stack(players, seed, game_id))
    assert len(states) == ROUNDS
    ends = [i for i, e in enumerate(full.events) if e[1] == E.TIEBREAK]
    for k in range(1, ROUNDS + 1):
        pos = engine.play_position(DATA, {"players": players, "seed": seed, "game": game_id,
                                          "rounds": k, "params": params}, log=True)
        expected_log = full.events if k == ROUNDS else full.events[:ends[k - 1] + 1]
        assert pos.events == expected_log, f"after {k} rounds the log is not the game's start"
        snap = pos.snapshot
        assert ("final" in snap) == (k == ROUNDS)
        check_between_rounds(snap, pos.events, players)
        assert {key: snap[key] for key in states[k - 1]} == states[k - 1], \
            f"after round {k} the kernel's state differs from the replayed log"


# ------------------------------------------------------------------------------------------------
# 2. Money accounting, 3. the end of the game
# ------------------------------------------------------------------------------------------------
@settings(max_examples=EXAMPLES, deadline=None)
@given(games())
def test_money_is_what_the_log_says_was_earned_and_spent(game):
    """Final money = 25 + HOST payments + POOL_BONUS - BUY prices, per seat; the batch's income,
    spent, tiles_bought and tourists_hosted columns agree with the log too."""
    players, seed, game0, params = game
    state = engine.run_batch(3, players, seed, game0, DATA, params, log=True)
    for g in range(3):
        events = batch_events(state, g)
        finals = {e[2]: e[3] for e in of_kind(events, E.FINAL)}
        for p in range(players):
            income = sum(e[5] for e in of_kind(events, E.HOST) if e[2] == p) + \
                sum(e[3] for e in of_kind(events, E.POOL_BONUS) if e[2] == p)
            spent = sum(e[4] for e in of_kind(events, E.BUY) if e[2] == p)
            money = C.starting_money + income - spent
            assert state.money[g, p] == money == finals[p], f"game {game0 + g}, seat {p}"
            assert (state.income[g, p], state.spent[g, p]) == (income, spent), f"seat {p}"
            assert state.tiles_bought[g, p] == sum(1 for e in of_kind(events, E.BUY) if e[2] == p)
            assert state.tourists_hosted[g, p] == sum(1 for e in of_kind(events, E.HOST) if e[2] == p)


@settings(max_examples=EXAMPLES, deadline=None)
@given(games())
def test_the_game_ends_after_twelve_rounds_with_consistent_ranks(game):
    """check_final on the game, and the replay of its whole log ends in its final snapshot."""
    players, seed, game_id, params = game
    record = engine.play_game(DATA, players, seed, game_id, params=params, log=True)
    check_final(record, players)
    _, replay = replay_rounds(record, players, dealt_stack(players, seed, game_id))
    assert replay.done == ROUNDS and sorted(replay.finals) == list(range(players))
    assert replay.state() == {k: v for k, v in record.snapshot.items() if k != "final"}


# ------------------------------------------------------------------------------------------------
# 4. The batched state's bitmaps
# ------------------------------------------------------------------------------------------------
@settings(max_examples=40, deadline=None)
@given(games())
def test_batch_bitmaps_agree_with_the_arrays_they_summarise(game):
    """After run_batch of 300 games; then again on reused arrays (as simulate reuses a chunk's
    state), which must leave nothing stale: the reused batch equals a fresh one."""
    players, seed, game0, params = game
    state = engine.run_batch(300, players, seed, game0, DATA, params)
    check_batch_state(state)
    other_seed = seed ^ 0x5DEECE66D
    again = engine.run_batch(200, players, other_seed, game0 + 7, DATA, params, reuse=state)
    check_batch_state(again)
    fresh = engine.run_batch(200, players, other_seed, game0 + 7, DATA, params)
    for name in ("money", "room_chip", "occupied", "nation_rooms", "pile", "hand", "discard",
                 "suites", "pools", "specials", "n_rooms", "table_tiles", "score", "rank"):
        np.testing.assert_array_equal(getattr(again, name), getattr(fresh, name), err_msg=name)


# ------------------------------------------------------------------------------------------------
# 5. Reproducibility
# ------------------------------------------------------------------------------------------------
@settings(max_examples=50, deadline=None)
@given(games(), st.integers(1, 40), st.integers(0, 39))
def test_results_do_not_depend_on_threads_chunks_or_batch_neighbours(game, n_games, k):
    players, seed, _, params = game
    k %= n_games
    base = simulate(n_games, players, seed, DATA, params, threads=1)
    assert len(base) == n_games * players
    assert base["game"].tolist() == [g for g in range(n_games) for _ in range(players)]
    assert base["seat"].tolist() == list(range(players)) * n_games
    variants = [dict(chunk_size=1), dict(chunk_size=7), dict(chunk_size=1000)]
    if HAS_TWO_THREADS:
        variants += [dict(threads=2), dict(threads=2, chunk_size=7)]
    for options in variants:
        options.setdefault("threads", 1)
        other = simulate(n_games, players, seed, DATA, params, **options)
        pd.testing.assert_frame_equal(base, other, obj=f"simulate({options})")
    # Game k alone equals row k of the batch, and row 0 of a batch that starts at game k.
    alone = engine.play_game(DATA, players, seed, game=k, params=params)
    batch = engine.run_batch(n_games, players, seed, 0, DATA, params)
    assert engine.snapshot(DATA, batch, k) == alone.snapshot
    shifted = engine.run_batch(3, players, seed, k, DATA, params)
    assert engine.snapshot(DATA, shifted, 0) == alone.snapshot
    rows = base[base["game"] == k]
    final = alone.snapshot["final"]
    assert rows["money"].tolist() == [s["money"] for s in alone.snapshot["seats"]]
    for column in ("score", "free_rooms", "rank", "win_credit"):
        assert rows[column].tolist() == final[column], column


@settings(max_examples=200, deadline=None)
@given(games(with_other_params=True))
def test_the_deal_does_not_depend_on_the_policy(game):
    """Flags, the order of revealed tiles, tourist cards and the arriving chips of all 12 rounds
    come from streams keyed by (seed, game, round): the same seed played with other parameters
    sees the identical deal, even once play has diverged."""
    players, seed, game_id, params, other_params = game
    a = engine.play_game(DATA, players, seed, game_id, params=params, log=True)
    b = engine.play_game(DATA, players, seed, game_id, params=other_params, log=True)
    assert deal_of(a.events) == deal_of(b.events)
    assert len(of_kind(a.events, E.ARRIVE)) > 0 and len(of_kind(a.events, E.TOURIST_CARD)) == ROUNDS
    assert a.snapshot["tile_stack"] == b.snapshot["tile_stack"]


# ------------------------------------------------------------------------------------------------
# 6. Staff holiday rounds
# ------------------------------------------------------------------------------------------------
@settings(max_examples=EXAMPLES, deadline=None)
@given(games())
def test_a_staff_holiday_seat_neither_builds_nor_hosts_and_keeps_its_card(game):
    """Four consecutive games per example, so that some seat rests in almost surely every example
    (a seat picks its card uniformly from its hand, the grey card always among them)."""
    players, seed, game0, params = game
    state = engine.run_batch(4, players, seed, game0, DATA, params, log=True)
    holidays = sum(check_staff_holidays(batch_events(state, g), players) for g in range(4))
    assert holidays > 0, "no Staff holiday in 4 games: the check above checked nothing"


# ------------------------------------------------------------------------------------------------
# The checkers catch what they are meant to catch
# ------------------------------------------------------------------------------------------------
SAMPLE_SEED = 20240607


@pytest.fixture(scope="module")
def sample_game():
    """A logged 4-player game with at least one Staff holiday, a lover, a pool and a suite, and
    its dealt tile stack."""
    for game_id in range(200):
        record = engine.play_game(DATA, 4, SAMPLE_SEED, game_id, log=True)
        kinds = Counter(e[3] for e in of_kind(record.events, E.BUY))
        if check_staff_holidays(record.events, 4) and kinds[POOL] and kinds[SUITE] and any(
                is_lover(x) for seat in record.snapshot["seats"] for room in seat["rooms"] for x in room):
            return record, dealt_stack(4, SAMPLE_SEED, game_id)
    raise AssertionError("no sample game found")


@pytest.fixture(scope="module")
def sample(sample_game):
    return sample_game[0]


def _first(events, kind):
    return next(i for i, e in enumerate(events) if e[1] == kind)


def _move_pile_chip_to_room(snap):
    """A pile chip joins a lone non-lover: chips still once each, but two share a room."""
    for seat in snap["seats"]:
        for room in seat["rooms"]:
            if len(room) == 1 and not is_lover(room[0]):
                donor = next(x for pile in snap["piles"] for x in pile if not is_lover(x))
                next(pile for pile in snap["piles"] if donor in pile).remove(donor)
                room.append(donor)
                return
    raise AssertionError("no lone non-lover")


SNAPSHOT_CORRUPTIONS = {
    "chip twice": lambda s: s["seats"][0]["rooms"][0].append(s["piles"][0][0]),
    "chip lost": lambda s: s["piles"][1].pop(),
    "chip in the wrong pile": lambda s: s["piles"][0].append(s["piles"][1].pop()),
    "two non-lovers share a room": _move_pile_chip_to_room,
    "negative money": lambda s: s["seats"][1].update(money=-1),
    "holiday card discarded": lambda s: (s["seats"][2]["hand"].remove(HOLIDAY),
                                         s["seats"][2]["discard"].append(HOLIDAY)),
    "card lost": lambda s: s["seats"][0]["hand"].pop(),
    "tile appears": lambda s: s["table_tiles"].__setitem__(0, s["table_tiles"][0] + 1),
    "tile changes kind": lambda s: s["tile_stack"].__setitem__(0, (s["tile_stack"][0] + 1) % 3),
    "room appears": lambda s: s["seats"][3]["rooms"].append([]),
    "suite appears": lambda s: s["seats"][0].update(suites=sorted(
        s["seats"][0]["suites"] + [min(set(range(6)) - set(s["seats"][0]["suites"]))])),
    "pool appears": lambda s: s["seats"][1].update(pools=s["seats"][1]["pools"] + 1),
    "special tile appears": lambda s: s["seats"][2]["specials"].__setitem__(
        1, 1 + s["seats"][2]["specials"][1]),
}


@pytest.mark.parametrize("name", SNAPSHOT_CORRUPTIONS)
def test_between_rounds_check_rejects(sample, name):
    check_between_rounds(sample.snapshot, sample.events, 4)
    snap = copy.deepcopy(sample.snapshot)
    SNAPSHOT_CORRUPTIONS[name](snap)
    with pytest.raises(AssertionError):
        check_between_rounds(snap, sample.events, 4)


def _replace(events, i, **fields):
    row = list(events[i])
    for name, value in fields.items():
        row["round kind seat a b c d".split().index(name)] = value
    return events[:i] + [tuple(row)] + events[i + 1:]


def _swap_reveals(events):
    """Two REVEALs of different kinds swap places (the tiles revealed stay the same as a whole)."""
    at = [i for i, e in enumerate(events) if e[1] == E.REVEAL]
    i, j = next((i, j) for i, j in zip(at, at[1:]) if events[i][3] != events[j][3])
    return _replace(_replace(events, i, a=events[j][3]), j, a=events[i][3])


def _holiday_buy(events):
    """A BUY by a seat on Staff holiday, in that round's build phase."""
    rest = next(e for e in events if e[1] == E.KEEP and e[3] == HOLIDAY)
    i = next(i for i, e in enumerate(events)
             if e[0] == rest[0] and e[1] != E.FLAG and phase_of(e) >= PHASE[E.BUY])
    return events[:i] + [(rest[0], E.BUY, rest[2], EXTRA_ROOM, 2, -1, -1)] + events[i:]


LOG_CORRUPTIONS = {
    "a HOST missing": lambda ev_: ev_[:_first(ev_, E.HOST)] + ev_[_first(ev_, E.HOST) + 1:],
    "a HOST overpaid": lambda ev_: _replace(ev_, _first(ev_, E.HOST), c=ev_[_first(ev_, E.HOST)][5] + 1),
    "a BUY underpriced": lambda ev_: _replace(ev_, _first(ev_, E.BUY), b=ev_[_first(ev_, E.BUY)][4] - 1),
    "a pool bonus wrong": lambda ev_: _replace(ev_, _first(ev_, E.POOL_BONUS),
                                               a=ev_[_first(ev_, E.POOL_BONUS)][3] + 1),
    "two tiles revealed swapped": lambda ev_: _swap_reveals(ev_),
    "a leftover kept": lambda ev_: ev_[:_first(ev_, E.LEFTOVER)] + ev_[_first(ev_, E.LEFTOVER) + 1:],
    "a departure skipped": lambda ev_: ev_[:_first(ev_, E.DEPART)] + ev_[_first(ev_, E.DEPART) + 1:],
    "a KEEP turned DISCARD": lambda ev_: _replace(ev_, _first(ev_, E.KEEP), kind=E.DISCARD),
    "tie-breaker stuck": lambda ev_: _replace(ev_, _first(ev_, E.TIEBREAK), a=0),
    "a Staff holiday seat builds": _holiday_buy,
}


@pytest.mark.parametrize("name", LOG_CORRUPTIONS)
def test_replay_rejects(sample_game, name):
    sample, stack = sample_game
    _, replay = replay_rounds(sample, 4, stack)
    assert replay.state() == {k: v for k, v in sample.snapshot.items() if k != "final"}
    bad = engine.GameRecord(LOG_CORRUPTIONS[name](list(sample.events)), sample.snapshot)
    with pytest.raises(AssertionError):
        replay_rounds(bad, 4, stack)


def test_final_and_holiday_checks_reject(sample):
    check_final(sample, 4)
    for change in (lambda s: s["final"]["rank"].reverse(),
                   lambda s: s["final"]["win_credit"].__setitem__(0, 0.25),
                   lambda s: s["final"].update(free_rooms=[x + 1 for x in s["final"]["free_rooms"]]),
                   lambda s: s.update(round=12)):
        snap = copy.deepcopy(sample.snapshot)
        change(snap)
        if snap == sample.snapshot:
            continue
        with pytest.raises(AssertionError):
            check_final(engine.GameRecord(sample.events, snap), 4)
    with pytest.raises(AssertionError):
        check_final(engine.GameRecord(sample.events[:-1], sample.snapshot), 4)
    with pytest.raises(AssertionError):
        check_staff_holidays(_holiday_buy(list(sample.events)), 4)
    keep = next(i for i, e in enumerate(sample.events) if e[1] == E.KEEP and e[3] == HOLIDAY)
    with pytest.raises(AssertionError):
        check_staff_holidays(_replace(list(sample.events), keep, kind=E.DISCARD), 4)


BATCH_CORRUPTIONS = {
    "occupied bit flipped": lambda s: s.occupied.__setitem__((0, 0), s.occupied[0, 0] ^ 1),
    "nation_rooms bit flipped": lambda s: s.nation_rooms.__setitem__((1, 1, 2), s.nation_rooms[1, 1, 2] ^ 4),
    "group_left not cleared": lambda s: s.group_left.__setitem__((2, 0), 1),
    "group_chip not cleared": lambda s: s.group_chip.__setitem__((2, 0, 0), 5),
    "pile bit lost": lambda s: s.pile.__setitem__((3, 0), s.pile[3, 0] & ~(s.pile[3, 0] & -s.pile[3, 0])),
    "chip in an unowned room": lambda s: s.room_chip.__setitem__((0, 0, C.max_rooms - 1, 0), 3),
    "card in play": lambda s: s.played.__setitem__((0, 1), 2),
}


@pytest.mark.parametrize("name", BATCH_CORRUPTIONS)
def test_batch_check_rejects(name):
    state = engine.run_batch(20, 4, 99, 0, DATA)
    check_batch_state(state)
    BATCH_CORRUPTIONS[name](state)
    with pytest.raises(AssertionError):
        check_batch_state(state)
