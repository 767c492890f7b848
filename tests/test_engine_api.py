"""The public API of samsim.engine (and ``samsim.runs.simulate``): what ``simulate`` returns, how every entry point rejects bad
arguments (ValueError with a message naming the argument), how ``play_position`` rejects malformed
positions (ValueError) and illegal scripted decisions (IllegalDecision naming round and seat).
"""

from __future__ import annotations

import copy

import numba
import numpy as np
import pandas as pd
import pytest

from samsim import components, engine
from samsim.engine import IllegalDecision
from samsim.runs.simulate import simulate

DATA = components.load()
COLUMNS = ["game", "seat", "players", "strategy", "money", "score", "free_rooms", "rank",
           "win_credit", "tiles_bought", "tourists_hosted", "income", "spent", "build_ties_won",
           "build_ties_lost", "price_ties_won", "price_ties_lost"]
HOLIDAY = {"card": 10}
ALL_CARDS = list(range(11))
FLAGS = [0, 1, 2, 3] * 3  # England, Germany, Norway, Japan; no equal neighbours
ENGLAND_ROUNDS = (1, 5, 9)


# ------------------------------------------------------------------------------------- simulate
@pytest.fixture(scope="module", params=[3, 4, 5, 6])
def results(request):
    players = request.param
    return players, simulate(60, players, seed=77)


def test_simulate_columns_and_dtypes(results):
    """The ``results`` layout of samsim.runs.schema (test_results checks every dtype)."""
    players, df = results
    assert list(df.columns) == COLUMNS
    assert df["win_credit"].dtype == np.float64
    assert (df["players"] == players).all()


def test_simulate_has_one_row_per_game_and_seat(results):
    players, df = results
    assert len(df) == 60 * players
    assert df["game"].tolist() == [g for g in range(60) for _ in range(players)]
    assert df["seat"].tolist() == list(range(players)) * 60
    assert isinstance(df.index, pd.RangeIndex) and df.index[-1] == len(df) - 1


def test_win_credit_sums_to_one_per_game(results):
    players, df = results
    sums = df.groupby("game")["win_credit"].sum()
    assert len(sums) == 60
    np.testing.assert_allclose(sums.to_numpy(), 1.0, rtol=0, atol=1e-12)
    for _, game in df.groupby("game"):
        winners = game["rank"] == 1
        assert winners.any()
        assert (game.loc[winners, "win_credit"] == 1 / winners.sum()).all()
        assert (game.loc[~winners, "win_credit"] == 0).all()


def test_result_columns_are_consistent(results):
    players, df = results
    assert df["rank"].between(1, players).all()
    extra = df["score"] - df["money"]  # 3 per unused special tile
    assert (extra >= 0).all() and (extra % 3 == 0).all() and (extra <= 9).all()
    assert (df["money"] >= 0).all() and (df["spent"] >= 0).all() and (df["income"] >= 0).all()
    assert df["free_rooms"].between(0, 12).all()
    assert df["tiles_bought"].between(0, 12).all()
    # rank 1 = best (score, then free rooms); seats behind it rank lower
    key = df["score"] * 100 + df["free_rooms"]
    best = key.groupby(df["game"]).transform("max")
    assert (df.loc[key == best, "rank"] == 1).all()
    assert (df.loc[key < best, "rank"] > 1).all()
    assert (key < best).any()


def test_simulate_rows_are_the_games_play_game_plays():
    df = simulate(5, 4, seed=123)
    for g in range(5):
        final = engine.play_game(DATA, 4, seed=123, game=g).snapshot
        rows = df[df["game"] == g]
        assert rows["money"].tolist() == [s["money"] for s in final["seats"]]
        assert rows["win_credit"].tolist() == final["final"]["win_credit"]


def test_simulate_with_one_game():
    assert len(simulate(1, 3)) == 3


# ------------------------------------------------------------------------------- bad arguments
BAD_SIMULATE = [
    ("players_2", dict(players=2), r"players must be 3\.\.6, got 2"),
    ("players_7", dict(players=7), r"players must be 3\.\.6, got 7"),
    ("players_text", dict(players="4"), r"players must be 3\.\.6"),
    ("games_0", dict(games=0), r"games must be a positive whole number, got 0"),
    ("games_negative", dict(games=-3), r"games must be a positive whole number, got -3"),
    ("games_fraction", dict(games=2.5), r"games must be a positive whole number, got 2\.5"),
    ("seed_negative", dict(seed=-1), r"seed must be a whole number 0\.\.2\*\*64-1, got -1"),
    ("seed_2_64", dict(seed=2**64), r"seed must be a whole number 0\.\.2\*\*64-1, got 18446744073709551616"),
    ("seed_fraction", dict(seed=1.5), r"seed must be a whole number"),
    ("seed_bool", dict(seed=True), r"seed must be a whole number"),
    ("chunk_size_0", dict(chunk_size=0), r"chunk_size must be a positive whole number, got 0"),
    ("chunk_size_negative", dict(chunk_size=-1), r"chunk_size must be a positive whole number"),
    ("games_bool", dict(games=True), r"games must be a positive whole number, got True"),
    ("chunk_size_bool", dict(chunk_size=True), r"chunk_size must be a positive whole number, got True"),
    ("params_unknown_key", dict(params={"take_percent": 50}),
     r"random has no parameter 'take_percent' \(its parameters and defaults: recall_pct=25, "
     r"switch_pct=25, send_home_pct=25, take_pct=50\)"),
    ("params_above_100", dict(params={"take_pct": 101}), r"take_pct must be in 0\.\.100, got 101"),
    ("params_negative", dict(params={"recall_pct": -1}), r"recall_pct must be in 0\.\.100, got -1"),
    ("params_text", dict(params={"switch_pct": "12"}), r"switch_pct must be a finite number"),
    ("params_per_seat_count", dict(params=[{}, {}]), r"params: give one dict per seat \(4\), got 2"),
    ("params_per_seat_bad", dict(params=[{}, {}, {"send_home_pct": 200}, {}]),
     r"send_home_pct must be in 0\.\.100, got 200"),
    ("strategy_unknown", dict(strategies="greedyy"), r"unknown strategy 'greedyy'; known: .*greedy"),
    ("strategy_unknown_param", dict(strategies="undercut(margn=1)"),
     r"undercut has no parameter 'margn' \(its parameters and defaults: margin=1, scarce=1\)"),
    ("strategy_bad_syntax", dict(strategies="undercut(1)"), r"write parameters as name=value"),
    ("strategy_text_value", dict(strategies="undercut(margin='a')"), r"parameter values must be numbers"),
    ("strategies_count", dict(strategies=["random", "greedy"]), r"give one strategy per seat \(4\), got 2"),
    ("threads_0", dict(threads=0), r"threads must be 1\.\.\d+, got 0"),
    ("threads_too_many", dict(threads=numba.config.NUMBA_NUM_THREADS + 1), r"threads must be 1\.\.\d+"),
]


@pytest.mark.parametrize("kwargs, message", [b[1:] for b in BAD_SIMULATE], ids=[b[0] for b in BAD_SIMULATE])
def test_simulate_rejects_bad_arguments(kwargs, message):
    args = dict(games=4, players=4, seed=0) | kwargs
    with pytest.raises(ValueError, match=message):
        simulate(**args)


def test_simulate_accepts_the_extreme_arguments():
    df = simulate(2, 6, seed=2**64 - 1, chunk_size=1, threads=1,
                         params=[{"take_pct": 0}, {"take_pct": 100}, {}, {"recall_pct": 100},
                                 {"switch_pct": 0}, {"send_home_pct": 100}])
    assert len(df) == 12
    # a seat that never takes a tourist hosts none
    assert (df.loc[df["seat"] == 0, "tourists_hosted"] == 0).all()


def test_threads_setting_is_restored():
    before = numba.get_num_threads()
    simulate(3, 4, seed=1, threads=1)
    assert numba.get_num_threads() == before
    with pytest.raises(ValueError):
        simulate(3, 4, seed=1, threads=0)
    assert numba.get_num_threads() == before


@pytest.mark.parametrize("call, message", [
    (lambda: engine.play_game(DATA, 2, seed=0), r"players must be 3\.\.6, got 2"),
    (lambda: engine.play_game(DATA, 7, seed=0), r"players must be 3\.\.6, got 7"),
    (lambda: engine.play_game(DATA, 4, seed=-5), r"seed must be a whole number 0\.\.2\*\*64-1"),
    (lambda: engine.play_game(DATA, 4, seed=2**64), r"seed must be a whole number 0\.\.2\*\*64-1"),
    (lambda: engine.play_game(DATA, 4, seed=0, params={"bogus": 1}), r"random has no parameter .bogus."),
    (lambda: engine.run_batch(3, 2, seed=0), r"players must be 3\.\.6"),
    (lambda: engine.run_batch(3, 4, seed=0, threads=0), r"threads must be 1\.\."),
], ids=["play_game_players_2", "play_game_players_7", "play_game_seed_negative", "play_game_seed_2_64",
        "play_game_params", "run_batch_players", "run_batch_threads"])
def test_play_game_and_run_batch_reject_bad_arguments(call, message):
    with pytest.raises(ValueError, match=message):
        call()


# ------------------------------------------------------------------------ play_position: positions
def empty_rooms(n=6):
    return [[] for _ in range(n)]


def seats(players=4, **by_seat):
    """Default seats, with seat k replaced by by_seat[f"s{k}"]."""
    return [by_seat.get(f"s{k}", {}) for k in range(players)]


def position(**fields):
    base = {"players": 4, "seed": 1, "game": 0, "round": 5, "rounds": 1, "flags": FLAGS,
            "tile_stack": [], "table_tiles": [0] * 6, "tiebreak": 0}
    return base | fields


def test_a_plain_position_plays():
    record = engine.play_position(DATA, position(seats=seats(s0={"rooms": [[18]] + empty_rooms(5)})))
    assert record.snapshot["round"] == 6
    assert record.events and record.events[0][1] == 1  # FLAG rows first


MALFORMED = [
    ("not_a_dict", [1, 2], r"position: must be an object"),
    ("unknown_key", position(seeds=3), r"position: unknown key 'seeds'"),
    ("chip_in_two_rooms", position(seats=seats(s0={"rooms": [[0], [0]] + empty_rooms(4)})),
     r"seats\[0\]\.rooms\[1\]: chip E0 is in two places"),
    ("chip_in_two_hotels", position(seats=seats(s0={"rooms": [[5]] + empty_rooms(5)},
                                                s2={"rooms": empty_rooms(4) + [[5], []]})),
     r"seats\[2\]\.rooms\[4\]: chip E5 is in two places"),
    ("three_tourists_in_a_room", position(seats=seats(s1={"rooms": [[10, 11, 12]] + empty_rooms(5)})),
     r"seats\[1\]\.rooms\[0\]: at most 2 values, got 3"),
    ("two_plain_tourists_share", position(seats=seats(s0={"rooms": [[0, 1]] + empty_rooms(5)})),
     r"seats\[0\]\.rooms\[0\]: only two lovers may share a room"),
    ("lover_shares_with_plain", position(seats=seats(s3={"rooms": empty_rooms(2) + [[10, 0]] + empty_rooms(3)})),
     r"seats\[3\]\.rooms\[2\]: only two lovers may share a room"),
    ("card_in_neither_hand_nor_discard",
     position(seats=seats(s1={"hand": list(range(10)), "discard": []})),
     r"seats\[1\]: hand and discard must hold each of the 11 price cards once"),
    ("card_in_hand_and_discard", position(seats=seats(s2={"hand": ALL_CARDS, "discard": [3]})),
     r"seats\[2\]: hand and discard must hold each of the 11 price cards once"),
    ("unknown_card", position(seats=seats(s0={"hand": ALL_CARDS + [11]})),
     r"seats\[0\]\.hand: must be a list of whole numbers 0\.\.10"),
    ("unknown_chip", position(seats=seats(s0={"rooms": [[72]] + empty_rooms(5)})),
     r"seats\[0\]\.rooms\[0\]: must be a list of whole numbers 0\.\.71"),
    ("too_many_rooms", position(seats=seats(s0={"rooms": empty_rooms(13)})),
     r"seats\[0\]\.rooms: must list 6\.\.12 rooms"),
    ("too_few_rooms", position(seats=seats(s0={"rooms": empty_rooms(5)})),
     r"seats\[0\]\.rooms: must list 6\.\.12 rooms"),
    ("unknown_seat_key", position(seats=seats(s0={"cash": 10})), r"seats\[0\]: must be an object with keys among"),
    ("wrong_seat_count", position(seats=[{}, {}, {}]), r"seats: give one entry per seat \(4\)"),
    ("negative_money", position(seats=seats(s0={"money": -1})), r"seats\[0\]\.money: must be a whole number"),
    ("players_7", position(players=7), r"players must be 3\.\.6, got 7"),
    ("players_missing", {"round": 1}, r"players must be 3\.\.6, got None"),
    ("round_13", position(round=13), r"round: must be a whole number 1\.\.12, got 13"),
    ("rounds_past_the_end", position(round=10, rounds=4), r"rounds: must be a whole number 1\.\.3, got 4"),
    ("tiebreak_out_of_range", position(tiebreak=4), r"tiebreak: must be a whole number 0\.\.3, got 4"),
    ("seed_negative", position(seed=-1), r"seed must be a whole number"),
    ("flags_too_short", position(flags=FLAGS[:11]), r"flags: give one nation per round \(12\)"),
    ("flag_unknown_nation", position(flags=FLAGS[:11] + [4]), r"flags: must be a list of whole numbers 0\.\.3"),
    ("table_tiles_length", position(table_tiles=[0] * 5), r"table_tiles: give a count per tile kind"),
    ("tile_kind_unknown", position(tile_stack=[6]), r"tile_stack: must be a list of whole numbers 0\.\.5"),
    ("arrival_of_another_nation", position(arrivals={5: [[0, 18]]}),
     r"arrivals\.5\[0\]: every arriving chip must be of the round's nation \(England\)"),
    ("arrivals_outside_the_rounds_played", position(arrivals={6: [[18]]}), r"arrivals round: must be a whole number 5\.\.5, got 6"),
    ("decisions_outside_the_rounds_played", position(decisions={4: [HOLIDAY] * 4}),
     r"decisions round: must be a whole number 5\.\.5, got 4"),
    ("decisions_for_too_few_seats", position(decisions={5: [HOLIDAY] * 3}),
     r"decisions\.5: give one entry \(or null\) per seat \(4\)"),
    ("decision_without_card", position(decisions={5: [None, {"group": 0}, None, None]}),
     r"decisions\.5\[1\]: must be null or an object with a card"),
    ("decision_unknown_key", position(decisions={5: [{"card": 0, "bid": 2}, None, None, None]}),
     r"decisions\.5\[0\]: must be null or an object with a card and keys among"),
    ("decision_take_without_group", position(decisions={5: [{"card": 0, "take": [[0, 0]]}, None, None, None]}),
     r"decisions\.5\[0\]\.take: tourists taken without a group"),
    ("decision_take_not_a_pair", position(arrivals={5: [[0]]},
                                          decisions={5: [{"card": 0, "group": 0, "take": [[0]]}, None, None, None]}),
     r"decisions\.5\[0\]\.take\[0\]: must be a \[chip, room\] pair"),
    ("decision_unknown_card", position(decisions={5: [{"card": 11}, None, None, None]}),
     r"decisions\.5\[0\]\.card: must be a whole number 0\.\.10, got 11"),
    ("decision_five_holiday_rooms", position(decisions={5: [{"card": 10, "holiday": [0, 1, 2, 3, 4]},
                                                                   None, None, None]}),
     r"decisions\.5\[0\]\.holiday: at most 4 values, got 5"),
]


@pytest.mark.parametrize("pos, message", [m[1:] for m in MALFORMED], ids=[m[0] for m in MALFORMED])
def test_play_position_rejects_malformed_positions(pos, message):
    with pytest.raises(ValueError, match=message) as err:
        engine.play_position(DATA, copy.deepcopy(pos))
    # a malformed position is not an illegal decision: it never reaches the rules
    assert not isinstance(err.value, IllegalDecision)


# ----------------------------------------------------------------- play_position: illegal decisions
def with_holidays(players, round_no, **by_seat):
    """Decisions of one round: seat k as given by by_seat[f"s{k}"], every other seat on holiday."""
    return {round_no: [by_seat.get(f"s{k}", HOLIDAY) for k in range(players)]}


def rooms_with(placed: dict[int, list[int]], n=6):
    rooms = empty_rooms(n)
    for room, chips in placed.items():
        rooms[room] = chips
    return rooms


def case_recall_without_tile(illegal):
    return 2, 1, r"RECALL used without a RECALL tile", position(
        round=2, seats=seats(s1={"hand": [k for k in ALL_CARDS if k not in (3, 5)], "discard": [3, 5],
                                 "specials": [0, 0, 0 if illegal else 1]}),
        decisions=with_holidays(4, 2, s1={"card": 0, "recall": [3, 5]}))


def case_recall_one_of_two(illegal):
    return 7, 0, r"RECALL must take back as many discarded cards as the tile allows", position(
        round=7, seats=seats(s0={"hand": [k for k in ALL_CARDS if k not in (3, 5)], "discard": [3, 5],
                                 "specials": [0, 0, 1]}),
        decisions=with_holidays(4, 7, s0={"card": 0, "recall": [3] if illegal else [3, 5]}))


def case_switch_to_a_discarded_card(illegal):
    return 4, 2, r"SWITCH to a card that is not in hand", position(
        round=4, seats=seats(s2={"hand": [k for k in ALL_CARDS if k != 7], "discard": [7],
                                 "specials": [1, 0, 0]}),
        decisions=with_holidays(4, 4, s2={"card": 0, "switch": 7 if illegal else 6}))


def case_send_home_without_tile(illegal):
    return 5, 3, r"SEND_HOME used without a SEND_HOME tile", position(
        round=5, arrivals={5: [[0, 1]]},
        seats=seats(s3={"rooms": rooms_with({0: [18]}), "specials": [0, 0 if illegal else 1, 0]}),
        decisions=with_holidays(4, 5, s3={"card": 0, "send_home": [0]}))


def case_suite_on_a_room_not_owned(illegal):
    return 10, 1, r"a suite must cover an owned room", position(
        round=10, table_tiles=[0, 1, 0, 0, 0, 0],
        decisions=with_holidays(4, 10, s1={"card": 9, "build": {"tile": 1, "room": 8 if illegal else 2}}))


def case_chip_of_another_group(illegal):
    return 5, 0, r"the tourist taken is not in the chosen group", position(
        round=5, arrivals={5: [[0, 1], [2]]},
        decisions=with_holidays(4, 5, s0={"card": 0, "group": 0, "take": [[2 if illegal else 1, 0]]}))


def case_group_that_does_not_exist(illegal):
    return 9, 2, r"the group chosen does not exist or is empty", position(
        round=9, arrivals={9: [[0, 1], [2]]},
        decisions=with_holidays(4, 9, s2={"card": 0, "group": 2 if illegal else 1, "take": [[2, 3]]
                                          if not illegal else []}))


def case_holiday_on_an_empty_room(illegal):
    return 8, 3, r"the room is empty", position(
        round=8, seats=seats(s3={"rooms": rooms_with({1: [18]})}),
        decisions=with_holidays(4, 8, s3={"card": 10, "holiday": [0 if illegal else 1]}))


def case_card_not_in_hand_six_players(illegal):
    return 12, 5, r"the card played is not in hand", position(
        players=6, round=12, seats=seats(6, s5={"hand": [k for k in ALL_CARDS if k != 4], "discard": [4]}),
        decisions=with_holidays(6, 12, s5={"card": 4 if illegal else 3}))


def case_build_without_an_offer(illegal):
    # no tile on the table: the seat is never offered one
    return 3, 0, r"a build decision was scripted but no tile was offered", position(
        round=3, table_tiles=[0, 0, 0, 0, 0, 0] if illegal else [1, 0, 0, 0, 0, 0],
        decisions=with_holidays(4, 3, s0={"card": 5, "build": {"tile": 0}}))


CASES = [case_recall_without_tile, case_recall_one_of_two, case_switch_to_a_discarded_card,
         case_send_home_without_tile, case_suite_on_a_room_not_owned, case_chip_of_another_group,
         case_group_that_does_not_exist, case_holiday_on_an_empty_room,
         case_card_not_in_hand_six_players, case_build_without_an_offer]


@pytest.mark.parametrize("case", CASES, ids=[c.__name__[5:] for c in CASES])
def test_illegal_decision_names_round_and_seat(case):
    round_no, seat, reason, pos = case(True)
    with pytest.raises(IllegalDecision, match=rf"^round {round_no}, seat {seat}: .*{reason}") as err:
        engine.play_position(DATA, pos)
    assert isinstance(err.value, ValueError)


@pytest.mark.parametrize("case", CASES, ids=[c.__name__[5:] for c in CASES])
def test_the_same_position_with_the_legal_decision_plays(case):
    """Each illegal case differs from a legal one only in the illegal detail."""
    round_no, seat, _, pos = case(False)
    record = engine.play_position(DATA, pos)
    assert record.snapshot["round"] == round_no + 1
    assert any(e[0] == round_no and e[1] == 7 and e[2] == seat for e in record.events)  # its PLAY
