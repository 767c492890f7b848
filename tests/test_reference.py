"""Tests of the reference engine: its random streams, the deal, conservation laws over random games,
and hand-made positions that pin the rules the rulebook spells out (and the rulings of
docs/rules.md).

The hand-made positions use the default data file. Chip and card ids are looked up from the data
(by nation, ability and card name) rather than written as bare numbers, so each test reads like the
situation it describes.
"""

from __future__ import annotations

import json
from collections import Counter

import pytest

from samsim.components import CELEBRITY, EXTRA_ROOM, LOVER, PLAIN, POOL, RICH, SUITE, SWIMMER, load
from samsim.reference import GameRecord, IllegalDecision, play_game, play_position
from samsim.reference import events as ev
from samsim.reference.game import deal_game, separate_equal_neighbours
from samsim.reference.model import Rules
from samsim.reference.rng import MASK64, Stream, mix64, stream_key

DATA = load()
RULES = Rules(DATA)
ENGLAND, GERMANY, NORWAY, JAPAN = range(4)
HOLIDAY = RULES.holiday_card


def card(name: str) -> int:
    return DATA.card_id(name)


def chips_of(nation: int, kind: int, buoy: int | None = None) -> list[int]:
    """The chip ids of one nation and ability, in id order."""
    return [t.id for t in RULES.tourists
            if t.nation == nation and t.kind == kind and (buoy is None or t.buoy == buoy)]


def empty_rooms(extra: int = 0) -> list[list[int]]:
    return [[] for _ in range(RULES.base_rooms + extra)]


def rooms_with(placed: dict[int, list[int]], extra: int = 0) -> list[list[int]]:
    rooms = empty_rooms(extra)
    for room, chips in placed.items():
        rooms[room] = list(chips)
    return rooms


def script(card_id: int, **parts) -> dict:
    return {"card": card_id, **parts}


def of_kind(record: GameRecord, kind: int, round_no: int | None = None) -> list[tuple]:
    return [e for e in record.events if e[1] == kind and (round_no is None or e[0] == round_no)]


# Flags with no two equal neighbours; round 4 is Norway as in the rulebook's example.
FLAGS = [ENGLAND, GERMANY, JAPAN, NORWAY, ENGLAND, GERMANY, NORWAY, JAPAN, GERMANY, ENGLAND, JAPAN,
         NORWAY]


def position(round_no: int, rounds: int = 1, players: int = 4, **overrides) -> dict:
    base = {"players": players, "seed": 11, "game": 0, "round": round_no, "rounds": rounds,
            "flags": FLAGS, "tile_stack": [], "table_tiles": [0] * 6, "tiebreak": 0}
    base.update(overrides)
    return base


# ------------------------------------------------------------------------------------------------
# Random streams
# ------------------------------------------------------------------------------------------------
def test_splitmix64_from_state_zero():
    stream = Stream(0)
    assert [stream.next() for _ in range(3)] == [0xE220A8397B1DCDAF, 0x6E789E6AA1B965F4,
                                                 0x06C45D188009454F]


def test_below_uses_the_top_32_bits_and_always_draws():
    stream = Stream(0)
    # (0xE220A839 * 100) >> 32 = 379379103300 // 4294967296 = 88
    assert stream.below(100) == 88
    # below(1) still consumes the second output
    assert stream.below(1) == 0
    assert stream.next() == 0x06C45D188009454F


def test_stream_key_nests_three_mixes():
    g = 0x9E3779B97F4A7C15
    expected = mix64((mix64((mix64((5 + g) & MASK64) + 2 + g) & MASK64) + 64 + g) & MASK64)
    assert stream_key(5, 2, 64) == expected
    assert Stream.for_game(5, 2, 64).state == expected


def test_partial_draw_is_the_start_of_the_shuffle():
    full = Stream.for_game(3, 0, 16).shuffle(list(range(18)))
    partial = Stream.for_game(3, 0, 16).partial_draw(list(range(18)), 7)
    assert partial[:7] == full[:7]


# ------------------------------------------------------------------------------------------------
# The deal
# ------------------------------------------------------------------------------------------------
def test_flags_rule_over_many_seeds():
    for seed in range(400):
        for game in range(5):
            flags = deal_game(RULES, seed, game).flags
            assert len(flags) == 12
            assert Counter(flags) == {n: 3 for n in range(4)}
            for stack in range(3):
                assert sorted(flags[4 * stack:4 * stack + 4]) == [0, 1, 2, 3]
            assert all(a != b for a, b in zip(flags, flags[1:])), (seed, game, flags)


def test_equal_flags_at_a_stack_boundary_swap_with_the_next_flag():
    flags = [0, 1, 2, 3, 3, 0, 1, 2, 2, 3, 0, 1]
    assert separate_equal_neighbours(flags, 4) == [0, 1, 2, 3, 0, 3, 1, 2, 3, 2, 0, 1]


def test_deal_shuffles_every_tile_and_card_once():
    deal = deal_game(RULES, 9, 4)
    assert Counter(deal.tile_stack) == {0: 6, 1: 5, 2: 5, 3: 1, 4: 1, 5: 1}
    assert sorted(deal.tourist_deck) == list(range(13))


# ------------------------------------------------------------------------------------------------
# Conservation over random games
# ------------------------------------------------------------------------------------------------
def check_conservation(record: GameRecord, players: int) -> None:
    """Replay the log: every chip, card, tile and coin is always somewhere, and only once."""
    snap = record.snapshot
    n_chips = RULES.n_chips
    in_pile = set(range(n_chips))
    in_group: dict[int, int] = {}
    in_room: dict[int, tuple[int, int]] = {}
    money = [RULES.starting_money] * players
    bought = Counter()
    for e in record.events:
        round_no, kind, seat, a, b, c, d = e
        if kind == ev.ARRIVE:
            in_pile.remove(b)
            in_group[b] = a
        elif kind == ev.HOST:
            assert in_group.pop(a) == d
            in_room[a] = (seat, b)
            money[seat] += c
        elif kind in (ev.DEPART, ev.SEND_HOME, ev.HOLIDAY):
            assert in_room.pop(a) == (seat, b)
            in_pile.add(a)
        elif kind == ev.LEFTOVER:
            in_group.pop(a)
            in_pile.add(a)
        elif kind == ev.BUY:
            money[seat] -= b
            bought[a] += 1
            bought[(seat, a)] += 1
        elif kind == ev.POOL_BONUS:
            money[seat] += a
        elif kind == ev.TIEBREAK:
            assert not in_group
            assert len(in_pile) + len(in_room) == n_chips
            assert not in_pile & set(in_room)
    assert sorted(c for pile in snap["piles"] for c in pile) == sorted(in_pile)
    hosted = {chip: (s, r) for s, seat in enumerate(snap["seats"])
              for r, room in enumerate(seat["rooms"]) for chip in room}
    assert hosted == in_room
    tiles = len(snap["tile_stack"]) + sum(snap["table_tiles"]) + sum(bought[k] for k in range(6))
    assert tiles == 19
    uses = Counter()
    for e in record.events:
        if e[1] in (ev.SWITCH, ev.RECALL, ev.SEND_HOME):
            uses[(e[0], e[2], e[1])] = 1
    for s, seat in enumerate(snap["seats"]):
        assert seat["money"] == money[s]
        assert seat["money"] >= 0
        assert sorted(seat["hand"] + seat["discard"]) == list(range(RULES.n_cards))
        assert HOLIDAY in seat["hand"]
        assert len(seat["rooms"]) == 6 + bought[(s, EXTRA_ROOM)]
        assert len(seat["suites"]) == bought[(s, SUITE)]
        assert seat["pools"] == bought[(s, POOL)]
        for k, use_kind in enumerate((ev.SWITCH, ev.SEND_HOME, ev.RECALL)):
            used = sum(1 for (r, us, uk) in uses if us == s and uk == use_kind)
            assert seat["specials"][k] + used == bought[(s, 3 + k)]
        for room in seat["rooms"]:
            assert len(room) <= 2
            if len(room) == 2:
                assert all(RULES.tourists[c].is_lover for c in room)


@pytest.mark.parametrize("players", [3, 4, 5, 6])
def test_conservation_in_random_games(players):
    for game in range(250):
        record = play_game(DATA, players, seed=2024, game=game, log=True)
        check_conservation(record, players)
        final = record.snapshot["final"]
        assert sum(final["win_credit"]) == pytest.approx(1.0)
        assert len(of_kind(record, ev.FINAL)) == players


def test_random_games_are_deterministic_and_json_plain():
    a = play_game(DATA, 5, seed=77, game=3, log=True)
    b = play_game(DATA, 5, seed=77, game=3, log=True)
    assert a == b
    assert json.loads(json.dumps(a.snapshot)) == a.snapshot
    assert play_game(DATA, 5, seed=77, game=3).events == []
    assert play_game(DATA, 5, seed=77, game=3).snapshot == a.snapshot
    assert play_game(DATA, 5, seed=77, game=4).snapshot != a.snapshot


def test_params_change_play_and_are_checked():
    base = play_game(DATA, 4, seed=5, log=True)
    same = play_game(DATA, 4, seed=5, params={"take_pct": 50}, log=True)
    greedy = play_game(DATA, 4, seed=5, params=[{"take_pct": 100}, None, {}, {}], log=True)
    assert base.events == same.events
    assert base.events != greedy.events
    with pytest.raises(ValueError, match="unknown random-policy parameter"):
        play_game(DATA, 4, seed=5, params={"bluff_pct": 3})
    with pytest.raises(ValueError):
        play_game(DATA, 4, seed=5, params=[{}, {}])


def test_unscripted_position_is_the_seeded_game():
    assert (play_position(DATA, {"players": 4, "seed": 31, "game": 2}).events
            == play_game(DATA, 4, seed=31, game=2, log=True).events)


# ------------------------------------------------------------------------------------------------
# Hand-made positions
# ------------------------------------------------------------------------------------------------
def test_rulebook_anna_bart_claude_david_round():
    anna, bart, claude, david = range(4)
    norwegians = chips_of(NORWAY, PLAIN)
    english = chips_of(ENGLAND, PLAIN)
    pos = position(4, tile_stack=[POOL, EXTRA_ROOM], tiebreak=1,
                   seats=[{}, {}, {"rooms": rooms_with({0: [english[0]], 1: [english[1]]})}, {}],
                   arrivals={4: [norwegians[:4], norwegians[4:7]]},
                   decisions={4: [
                       script(card("2/3"), group=0, take=[[norwegians[0], 0], [norwegians[1], 1],
                                                          [norwegians[2], 2]]),
                       script(card("14/8")),                 # passes on the tile and the last tourist
                       script(HOLIDAY, holiday=[0, 1]),
                       script(card("6/5"), build={"tile": POOL, "room": None}, group=1,
                              take=[[norwegians[4], 0], [norwegians[5], 1], [norwegians[6], 2]]),
                   ]})
    record = play_position(DATA, pos)
    assert of_kind(record, ev.REVEAL) == [(4, ev.REVEAL, -1, POOL, -1, -1, -1)]
    assert of_kind(record, ev.BUY) == [(4, ev.BUY, david, POOL, 6, -1, -1)]
    assert of_kind(record, ev.POOL_BONUS) == [(4, ev.POOL_BONUS, david, 0, -1, -1, -1)]
    paid = Counter()
    for e in of_kind(record, ev.HOST):
        paid[e[2]] += e[5]
    assert paid == {anna: 9, david: 15}
    assert [e[2] for e in of_kind(record, ev.HOST)] == [anna] * 3 + [david] * 3
    assert of_kind(record, ev.HOLIDAY) == [(4, ev.HOLIDAY, claude, english[0], 0, -1, -1),
                                          (4, ev.HOLIDAY, claude, english[1], 1, -1, -1)]
    assert of_kind(record, ev.LEFTOVER) == [(4, ev.LEFTOVER, -1, norwegians[3], -1, -1, -1)]
    assert [(e[1], e[2]) for e in record.events if e[1] in (ev.DISCARD, ev.KEEP)] == [
        (ev.DISCARD, anna), (ev.KEEP, bart), (ev.KEEP, claude), (ev.DISCARD, david)]
    seats = record.snapshot["seats"]
    assert [s["money"] for s in seats] == [34, 25, 25, 34]
    assert card("14/8") in seats[bart]["hand"] and HOLIDAY in seats[claude]["hand"]
    assert seats[anna]["discard"] == [card("2/3")] and seats[david]["discard"] == [card("6/5")]
    assert record.snapshot["tiebreak"] == 2
    assert record.snapshot["round"] == 5
    assert "final" not in record.snapshot and not of_kind(record, ev.FINAL)


def test_rulebook_tiebreak_example():
    """Card between Anna and Bart (t = 1): builds D, C, A, B; tourists B, A, C, D."""
    guests = chips_of(ENGLAND, PLAIN)[:4]                # round 10 is England's
    cards = [card("8/6"), card("6/5"), card("8/6"), card("12/9")]
    pos = position(10, table_tiles=[4, 0, 0, 0, 0, 0], tiebreak=1,
                   arrivals={10: [[chip] for chip in guests]},
                   decisions={10: [script(cards[s], build={"tile": EXTRA_ROOM},
                                          group=s, take=[[guests[s], 0]]) for s in range(4)]})
    record = play_position(DATA, pos)
    assert [e[2] for e in of_kind(record, ev.BUY)] == [3, 2, 0, 1]
    assert [e[2] for e in of_kind(record, ev.HOST)] == [1, 0, 2, 3]
    assert of_kind(record, ev.TIEBREAK) == [(10, ev.TIEBREAK, -1, 2, -1, -1, -1)]


@pytest.mark.parametrize("players", [3, 6])
@pytest.mark.parametrize("t", [0, 1, 2])
def test_ties_resolve_clockwise_for_builds_and_counter_clockwise_for_tourists(players, t):
    guests = chips_of(JAPAN, PLAIN)[:players]
    pos = position(11, players=players, table_tiles=[players, 0, 0, 0, 0, 0], tiebreak=t,
                   arrivals={11: [[chip] for chip in guests]},
                   decisions={11: [script(card("8/6"), build={"tile": EXTRA_ROOM}, group=s,
                                          take=[[guests[s], 0]]) for s in range(players)]})
    record = play_position(DATA, pos)
    assert [e[2] for e in of_kind(record, ev.BUY)] == [(t + k) % players for k in range(players)]
    assert [e[2] for e in of_kind(record, ev.HOST)] == [(t - 1 - k) % players for k in range(players)]


def test_rich_suite_and_celebrity_double_but_never_more_than_twice():
    celebrity_a, celebrity_b = chips_of(GERMANY, CELEBRITY)
    rich = chips_of(GERMANY, RICH)[0]
    plain = chips_of(GERMANY, PLAIN)
    group = [plain[0], celebrity_a, rich, celebrity_b, plain[1], plain[2]]
    # hotel:  0 1 2   celebrities move into 1 and 2, the rich tourist into the suite 4 next to 1
    #         3 4 5   room 6 is an extra room next to nothing
    take = [[celebrity_a, 1], [celebrity_b, 2], [rich, 4], [plain[0], 0], [plain[1], 3], [plain[2], 6]]
    pos = position(2, seats=[{"rooms": empty_rooms(extra=1), "suites": [4]}, {}, {}, {}],
                   arrivals={2: [group]},
                   decisions={2: [script(card("10/7"), group=0, take=take), script(HOLIDAY),
                                  script(HOLIDAY), script(HOLIDAY)]})
    record = play_position(DATA, pos)
    assert [(e[3], e[4], e[5]) for e in of_kind(record, ev.HOST)] == [
        (celebrity_a, 1, 7), (celebrity_b, 2, 14), (rich, 4, 14), (plain[0], 0, 14),
        (plain[1], 3, 7), (plain[2], 6, 7)]
    assert record.snapshot["seats"][0]["money"] == 25 + 63


def test_swimmers_pay_buoys_times_pools_on_top_of_the_room_price():
    buoy1 = chips_of(GERMANY, SWIMMER, buoy=1)[0]
    buoy3 = chips_of(GERMANY, SWIMMER, buoy=3)[0]
    pos = position(2, seats=[{"pools": 2, "suites": [0]}, {}, {}, {}],
                   arrivals={2: [[buoy3, buoy1]]},
                   decisions={2: [script(card("10/7"), group=0, take=[[buoy3, 0], [buoy1, 5]]),
                                  script(HOLIDAY), script(HOLIDAY), script(HOLIDAY)]})
    record = play_position(DATA, pos)
    assert [e[5] for e in of_kind(record, ev.HOST)] == [7 * 2 + 3 * 2, 7 + 1 * 2]


def test_buying_a_pool_pays_one_per_buoy_point_already_in_the_hotel():
    swimmers = chips_of(ENGLAND, SWIMMER)            # buoys 1, 2, 3
    pos = position(2, table_tiles=[0, 0, 2, 0, 0, 0],
                   seats=[{"rooms": rooms_with({3: [swimmers[0]], 5: [swimmers[1]]})}, {}, {}, {}],
                   arrivals={2: [chips_of(GERMANY, PLAIN)[:2]]},
                   decisions={2: [script(card("20/12"), build={"tile": POOL}),
                                  script(card("18/11"), build={"tile": POOL}),
                                  script(HOLIDAY), script(HOLIDAY)]})
    record = play_position(DATA, pos)
    assert of_kind(record, ev.POOL_BONUS) == [(2, ev.POOL_BONUS, 0, 3, -1, -1, -1),
                                              (2, ev.POOL_BONUS, 1, 0, -1, -1, -1)]
    seats = record.snapshot["seats"]
    assert seats[0]["money"] == 25 - 20 + 3 and seats[0]["pools"] == 1
    assert seats[1]["money"] == 25 - 18 and seats[1]["pools"] == 1


def test_a_couple_of_two_nations_forms_and_leaves_together():
    english_lover = chips_of(ENGLAND, LOVER)[0]
    german_lover = chips_of(GERMANY, LOVER)[0]
    # round 2 is Germany's, round 5 England's (FLAGS); rounds 3-4 (Japan, Norway) pass in between
    pos = position(2, rounds=4, seats=[{"rooms": rooms_with({2: [english_lover]})}, {}, {}, {}],
                   arrivals={2: [[german_lover]]},
                   decisions={2: [script(card("10/7"), group=0, take=[[german_lover, 2]]),
                                  script(HOLIDAY), script(HOLIDAY), script(HOLIDAY)],
                              3: [script(HOLIDAY)] * 4, 4: [script(HOLIDAY)] * 4})
    record = play_position(DATA, pos)
    assert of_kind(record, ev.HOST, 2) == [(2, ev.HOST, 0, german_lover, 2, 7, 0)]
    assert of_kind(record, ev.DEPART, 5) == [(5, ev.DEPART, 0, english_lover, 2, -1, -1),
                                             (5, ev.DEPART, 0, german_lover, 2, -1, -1)]
    snap = record.snapshot
    assert german_lover in snap["piles"][GERMANY] and english_lover in snap["piles"][ENGLAND]


def test_only_a_lover_may_join_a_lonely_lover():
    english_lover = chips_of(ENGLAND, LOVER)[0]
    german_plain = chips_of(GERMANY, PLAIN)[0]
    pos = position(2, seats=[{"rooms": rooms_with({2: [english_lover]})}, {}, {}, {}],
                   arrivals={2: [[german_plain]]},
                   decisions={2: [script(card("10/7"), group=0, take=[[german_plain, 2]]),
                                  None, None, None]})
    with pytest.raises(IllegalDecision, match=r"round 2, seat 0: the room is not free"):
        play_position(DATA, pos)


def test_staff_holiday_counts_a_couple_as_one():
    english_lover = chips_of(ENGLAND, LOVER)[0]
    german_lover = chips_of(GERMANY, LOVER)[0]
    japanese = chips_of(JAPAN, PLAIN)
    rooms = rooms_with({0: [japanese[0]], 1: [japanese[1]], 2: [english_lover, german_lover]})

    def holiday_of_seat_0(rooms_to_empty):
        return position(4, seats=[{"rooms": rooms}, {}, {}, {}],
                        arrivals={4: [chips_of(NORWAY, PLAIN)[:1]]},
                        decisions={4: [script(HOLIDAY, holiday=rooms_to_empty), None, None, None]})

    record = play_position(DATA, holiday_of_seat_0([2, 0]))
    assert [(e[3], e[4]) for e in of_kind(record, ev.HOLIDAY)] == [
        (english_lover, 2), (german_lover, 2), (japanese[0], 0)]
    assert record.snapshot["seats"][0]["rooms"][1] == [japanese[1]]
    with pytest.raises(IllegalDecision, match="round 4, seat 0: too many tourists sent home"):
        play_position(DATA, holiday_of_seat_0([2, 0, 1]))


def test_unbought_tiles_stay_on_the_table_and_can_be_bought_after_round_9():
    everyone_rests = [script(HOLIDAY)] * 4
    pos = position(1, rounds=2, tile_stack=[SUITE, POOL, EXTRA_ROOM, POOL, SUITE],
                   decisions={1: everyone_rests, 2: everyone_rests})
    record = play_position(DATA, pos)
    assert [e[3] for e in of_kind(record, ev.REVEAL)] == [SUITE, POOL, EXTRA_ROOM, POOL]
    assert record.snapshot["table_tiles"] == [1, 1, 2, 0, 0, 0]
    assert record.snapshot["tile_stack"] == [SUITE]

    late = position(10, table_tiles=[0, 1, 0, 0, 0, 0], tile_stack=[POOL],
                     decisions={10: [script(card("20/12"), build={"tile": SUITE, "room": 3}),
                                     script(HOLIDAY), script(HOLIDAY), script(HOLIDAY)]})
    record = play_position(DATA, late)
    assert not of_kind(record, ev.REVEAL)
    assert of_kind(record, ev.BUY) == [(10, ev.BUY, 0, SUITE, 20, 3, -1)]
    assert record.snapshot["seats"][0]["suites"] == [3]
    assert record.snapshot["tile_stack"] == [POOL]


def test_switch_swaps_the_played_card_before_the_build_phase():
    pos = position(3, table_tiles=[1, 0, 0, 0, 0, 0], seats=[{"specials": [1, 0, 0]}, {}, {}, {}],
                   decisions={3: [script(card("2/3"), switch=card("20/12"), build={"tile": EXTRA_ROOM}),
                                  script(card("18/11")), script(HOLIDAY), script(HOLIDAY)]})
    record = play_position(DATA, pos)
    plays = of_kind(record, ev.PLAY)
    switch = of_kind(record, ev.SWITCH)
    assert switch == [(3, ev.SWITCH, 0, card("2/3"), card("20/12"), -1, -1)]
    assert record.events.index(plays[-1]) < record.events.index(switch[0])
    assert of_kind(record, ev.BUY) == [(3, ev.BUY, 0, EXTRA_ROOM, 20, -1, -1)]
    seat = record.snapshot["seats"][0]
    assert seat["specials"] == [0, 0, 0]
    assert seat["discard"] == [card("20/12")] and card("2/3") in seat["hand"]


def test_recall_takes_two_discarded_cards_back_before_the_card_is_chosen():
    discard = [card("2/3"), card("4/4"), card("6/5")]
    hand = [c for c in range(RULES.n_cards) if c not in discard]

    def recall(cards, specials=(0, 0, 1)):
        return position(3, seats=[{"hand": hand, "discard": discard, "specials": list(specials)},
                                  {}, {}, {}],
                        decisions={3: [script(card("2/3"), recall=cards), None, None, None]})

    record = play_position(DATA, recall([card("2/3"), card("6/5")]))
    assert [e[3] for e in of_kind(record, ev.RECALL)] == [card("2/3"), card("6/5")]
    assert of_kind(record, ev.PLAY)[0][3] == card("2/3")
    seat = record.snapshot["seats"][0]
    assert seat["specials"] == [0, 0, 0]
    assert card("6/5") in seat["hand"] and card("4/4") in seat["discard"]
    with pytest.raises(IllegalDecision, match="round 3, seat 0: RECALL must take back as many discarded cards as the tile allows"):
        play_position(DATA, recall([card("2/3")]))
    with pytest.raises(IllegalDecision, match="round 3, seat 0: RECALL used without a RECALL tile"):
        play_position(DATA, recall([card("2/3"), card("6/5")], specials=(0, 0, 0)))


def test_send_home_empties_two_rooms_at_the_start_of_the_turn():
    english = chips_of(ENGLAND, PLAIN)
    german = chips_of(GERMANY, PLAIN)
    rooms = rooms_with({0: [english[0]], 1: [english[1]], 2: [english[2]]})

    def send_home(rooms_to_empty, played=card("10/7")):
        take = [[german[0], 1]] if played != HOLIDAY else []
        return position(2, seats=[{"rooms": rooms, "specials": [0, 1, 0]}, {}, {}, {}],
                        arrivals={2: [german[:2]]},
                        decisions={2: [script(played, send_home=rooms_to_empty,
                                              group=0 if take else None, take=take),
                                       script(HOLIDAY), script(HOLIDAY), script(HOLIDAY)]})

    record = play_position(DATA, send_home([1, 0]))
    assert [(e[1], e[3], e[4]) for e in record.events if e[1] in (ev.SEND_HOME, ev.HOST)] == [
        (ev.SEND_HOME, english[1], 1), (ev.SEND_HOME, english[0], 0), (ev.HOST, german[0], 1)]
    snap = record.snapshot
    assert snap["seats"][0]["specials"] == [0, 0, 0]
    assert {english[0], english[1]} <= set(snap["piles"][ENGLAND])
    with pytest.raises(IllegalDecision, match="SEND_HOME must send home as many tourists as the tile allows"):
        play_position(DATA, send_home([1]))
    with pytest.raises(IllegalDecision, match="tourists were scripted but the seat got no turn in the tourist phase"):
        play_position(DATA, send_home([1, 0], played=HOLIDAY))


def test_end_of_game_free_rooms_break_ties_and_a_draw_shares_the_win():
    japanese = [t.id for t in RULES.tourists if t.nation == JAPAN]     # round 12 is Norway's
    seats = [
        {"money": 40, "rooms": rooms_with({0: [japanese[0]], 1: [japanese[1]]})},    # 40, 4 free
        {"money": 40, "rooms": rooms_with({0: [japanese[2]], 6: [japanese[3]]}, extra=1)},  # 40, 5
        {"money": 37, "specials": [1, 0, 0], "rooms": rooms_with({4: [japanese[4]]})},  # 40, 5
        {"money": 45, "rooms": rooms_with({r: [japanese[5 + r]] for r in range(6)})},  # 45, 0
    ]
    pos = position(12, seats=seats, arrivals={12: [chips_of(NORWAY, PLAIN)[:2]]},
                   decisions={12: [script(HOLIDAY)] * 4})
    record = play_position(DATA, pos)
    final = record.snapshot["final"]
    assert final == {"score": [40, 40, 40, 45], "free_rooms": [4, 5, 5, 0], "rank": [4, 2, 2, 1],
                     "win_credit": [0.0, 0.0, 0.0, 1.0]}
    seats[3]["money"] = 39
    record = play_position(DATA, position(12, seats=seats, arrivals={12: [chips_of(NORWAY, PLAIN)[:2]]},
                                          decisions={12: [script(HOLIDAY)] * 4}))
    final = record.snapshot["final"]
    assert final["rank"] == [3, 1, 1, 4]
    assert final["win_credit"] == [0.0, 0.5, 0.5, 0.0]
    assert of_kind(record, ev.FINAL) == [(12, ev.FINAL, 0, 40, 40, 4, 3), (12, ev.FINAL, 1, 40, 40, 5, 1),
                                         (12, ev.FINAL, 2, 37, 40, 5, 1), (12, ev.FINAL, 3, 39, 39, 0, 4)]
    assert record.snapshot["round"] == 13


# ------------------------------------------------------------------------------------------------
# Illegal decisions and invalid positions
# ------------------------------------------------------------------------------------------------
def test_a_card_not_in_hand_is_named_in_the_message():
    hand = [c for c in range(RULES.n_cards) if c != card("6/5")]
    pos = position(4, seats=[{}, {"hand": hand, "discard": [card("6/5")]}, {}, {}],
                   decisions={4: [None, script(card("6/5")), None, None]})
    with pytest.raises(IllegalDecision, match=r"^round 4, seat 1: the card played is not in hand$"):
        play_position(DATA, pos)


def test_decisions_never_asked_for_are_errors():
    building_on_holiday = position(3, table_tiles=[1, 0, 0, 0, 0, 0],
                                   decisions={3: [script(HOLIDAY, build={"tile": EXTRA_ROOM}),
                                                  None, None, None]})
    with pytest.raises(IllegalDecision, match="round 3, seat 0: a build decision was scripted but no tile was offered"):
        play_position(DATA, building_on_holiday)
    guests = chips_of(JAPAN, PLAIN)[:1]
    late_to_the_party = position(3, arrivals={3: [guests]},
                                 decisions={3: [script(card("2/3"), group=0, take=[[guests[0], 0]]),
                                                script(card("4/4"), group=0, take=[[guests[0], 0]]),
                                                script(HOLIDAY), script(HOLIDAY)]})
    with pytest.raises(IllegalDecision, match="round 3, seat 1: tourists were scripted but the seat got no turn"):
        play_position(DATA, late_to_the_party)
    with pytest.raises(IllegalDecision, match="round 3, seat 2: .*did not play Staff holiday"):
        play_position(DATA, position(3, decisions={3: [None, None, script(card("2/3"), holiday=[0]),
                                                       None]}))


@pytest.mark.parametrize("change, message", [
    (lambda p: p.update(colour="red"), "unknown key 'colour'"),
    (lambda p: p["seats"][0].update(rooms=rooms_with({0: [5]}), money=3) or
     p["seats"][1].update(rooms=rooms_with({2: [5]})), "in two places"),
    (lambda p: p["seats"][0].update(rooms=rooms_with({0: [10, 11, 12]})), "holds 3 tourists"),
    (lambda p: p["seats"][0].update(rooms=rooms_with({0: [0, 1]})), "not both lovers"),
    (lambda p: p["seats"][0].update(hand=list(range(10)), discard=[]), "neither in hand"),
    (lambda p: p["seats"][0].update(wallet=3), "unknown key 'wallet'"),
    (lambda p: p.update(arrivals={5: [[0]]}), "not played"),
    (lambda p: p.update(arrivals={3: [[0]]}), "not of that round's nation"),
])
def test_invalid_positions_are_rejected_clearly(change, message):
    pos = position(3, seats=[{}, {}, {}, {}])
    change(pos)
    with pytest.raises(ValueError, match=message):
        play_position(DATA, pos)
