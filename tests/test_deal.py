"""The deal of the compiled engine (docs/protocol.md, "The deal"; docs/rules.md, "Confirmed"):
flags, the build-tile stack, tourist cards, arrivals, the tie-breaker and the starting position,
seen through ``samsim.engine.play_game(..., log=True)`` events and ``run_batch`` state.

Statistical checks use fixed seeds, so they are deterministic; each states its tolerance.
"""

from __future__ import annotations

from collections import Counter, defaultdict

import numpy as np
import pytest
from scipy import stats

from samsim import components, engine
from samsim.kernel import events as ev
from samsim.runs.simulate import simulate

DATA = components.load()
C = DATA.components
N_TILES = 19
ROUNDS = 12
# docs/rules.md: tiles revealed per round, rounds 1-3, 4-6, 7-9, 10-12
TILES_PER_BLOCK = {3: [1, 1, 1, 0], 4: [2, 1, 1, 0], 5: [2, 2, 1, 0], 6: [3, 2, 1, 0]}
TILE_MIX = {0: 6, 1: 5, 2: 5, 3: 1, 4: 1, 5: 1}  # extra room, suite, pool, switch, send home, recall
DOUBLE_ROUNDS = {6, 12}
ALL_IN = {"recall_pct": 100, "switch_pct": 100, "send_home_pct": 100, "take_pct": 100}
NOTHING = {"recall_pct": 0, "switch_pct": 0, "send_home_pct": 0, "take_pct": 0}
DEAL_KINDS = (ev.FLAG, ev.REVEAL, ev.TOURIST_CARD, ev.ARRIVE)


def of_kind(events, kind, round_no=None):
    return [e for e in events if e[1] == kind and (round_no is None or e[0] == round_no)]


def deal_events(events):
    return [e for e in events if e[1] in DEAL_KINDS]


def check_flags(flags, where=""):
    flags = [int(f) for f in flags]
    assert len(flags) == 12, where
    assert Counter(flags) == {0: 3, 1: 3, 2: 3, 3: 3}, (where, flags)
    for stack in range(3):
        assert sorted(flags[4 * stack:4 * stack + 4]) == [0, 1, 2, 3], (where, flags)
    assert all(a != b for a, b in zip(flags, flags[1:])), (where, flags)


@pytest.fixture(scope="module")
def logged_games():
    """40 logged games per player count, with the state of the same games from run_batch."""
    out = []
    for players in (3, 4, 5, 6):
        batch = engine.run_batch(40, players, seed=31337, game0=100, data=DATA)
        for g in range(40):
            record = engine.play_game(DATA, players, seed=31337, game=100 + g, log=True)
            out.append((players, record, {
                "flags": batch.flags[g].tolist(), "tile_stack": batch.tile_stack[g].tolist(),
                "card_order": batch.card_order[g].tolist()}))
    return out


@pytest.fixture(scope="module")
def big_batch():
    """12,000 games of one seed: only the deal is looked at."""
    return engine.run_batch(12_000, 3, seed=424242, data=DATA)


# ------------------------------------------------------------------------------------------ flags
def test_flags_over_2000_seeds():
    seeds = list(range(1000)) + [(k * 0x9E3779B97F4A7C15 + 12345) % 2**64 for k in range(1000)]
    flag_rows = set()
    for seed in seeds:
        st = engine.run_batch(1, 3, seed, data=DATA)
        check_flags(st.flags[0], seed)
        flag_rows.add(tuple(st.flags[0].tolist()))
    # the deal really depends on the seed: 2,000 seeds give many different rows
    assert len(flag_rows) > 1500


def test_flag_events_are_the_dealt_flags(logged_games):
    for players, record, state in logged_games:
        flags = of_kind(record.events, ev.FLAG)
        assert record.events[:12] == flags  # the flag row is logged first
        assert [e[0] for e in flags] == list(range(1, 13))
        assert [e[3] for e in flags] == state["flags"]
        check_flags(state["flags"])
        assert all(e[2] == e[4] == e[5] == e[6] == -1 for e in flags)


def test_each_nation_is_a_quarter_of_every_flag_position(big_batch):
    """12,000 games: at each of the 12 positions each nation about 3,000 times. Tolerance: chi-square
    p > 1e-4 at every position (12 tests) and every share within 0.25 +/- 0.02 (about 5 sigma)."""
    flags = big_batch.flags
    assert flags.shape == (12_000, 12)
    for position in range(12):
        counts = np.bincount(flags[:, position], minlength=4)
        assert len(counts) == 4
        assert stats.chisquare(counts).pvalue > 1e-4, (position, counts)
        assert np.all(np.abs(counts / len(flags) - 0.25) < 0.02), (position, counts)


def test_stack_boundaries_show_every_ordered_pair_of_different_nations(big_batch):
    """Equal neighbours are split, not avoided by dropping deals: across the boundaries 4|5 and 8|9
    all 12 ordered pairs of different nations occur, none of the 4 equal pairs."""
    flags = big_batch.flags
    for left in (3, 7):
        pairs = Counter(zip(flags[:, left].tolist(), flags[:, left + 1].tolist()))
        assert set(pairs) == {(a, b) for a in range(4) for b in range(4) if a != b}
        assert min(pairs.values()) > 12_000 / 12 * 0.5


# ------------------------------------------------------------------------------------- tile stack
def test_tile_stack_holds_the_19_tiles(big_batch):
    stacks = big_batch.tile_stack
    assert stacks.shape == (12_000, N_TILES)
    assert np.all(big_batch.stack_len == N_TILES)
    for kind, count in TILE_MIX.items():
        assert np.all((stacks == kind).sum(axis=1) == count), kind
    # shuffled: not every game has the same order, and the top tile is each kind in proportion
    assert len({tuple(row) for row in stacks[:500].tolist()}) == 500


def test_top_tile_is_drawn_in_proportion_to_the_kinds(big_batch):
    """Tolerance: chi-square p > 1e-4 against 6:5:5:1:1:1 over 12,000 games."""
    for position in (0, 9, 18):
        counts = np.bincount(big_batch.tile_stack[:, position], minlength=6)
        expected = np.array(list(TILE_MIX.values())) / N_TILES * len(big_batch.tile_stack)
        assert stats.chisquare(counts, expected).pvalue > 1e-4, (position, counts)


@pytest.mark.parametrize("players", [3, 4, 5, 6])
def test_tiles_revealed_per_round_match_the_table(logged_games, players):
    games = [(r, s) for p, r, s in logged_games if p == players]
    assert len(games) == 40
    expected = [TILES_PER_BLOCK[players][(round_no - 1) // 3] for round_no in range(1, 13)]
    for record, state in games:
        reveals = of_kind(record.events, ev.REVEAL)
        per_round = [len(of_kind(reveals, ev.REVEAL, r)) for r in range(1, 13)]
        assert per_round == expected
        # revealed from the top of the dealt stack, in order; the rest is still face down
        shown = sum(expected)
        assert [e[3] for e in reveals] == state["tile_stack"][:shown]
        assert record.snapshot["tile_stack"] == state["tile_stack"][shown:]
        assert all(e[2] == -1 for e in reveals)


# ---------------------------------------------------------------------------------- tourist cards
def test_tourist_card_deck_is_a_shuffle_of_13(big_batch):
    """Every game's deck is a permutation of 0..12; round 1's card is each card about 1/13 of the
    time (chi-square p > 1e-4 over 12,000 games)."""
    order = big_batch.card_order
    assert order.shape == (12_000, 13)
    assert np.all(np.sort(order, axis=1) == np.arange(13))
    counts = np.bincount(order[:, 0], minlength=13)
    assert len(counts) == 13
    assert stats.chisquare(counts).pvalue > 1e-4, counts


def test_each_round_draws_a_different_tourist_card(logged_games):
    for players, record, state in logged_games:
        cards = of_kind(record.events, ev.TOURIST_CARD)
        assert [e[0] for e in cards] == list(range(1, 13))
        drawn = [e[3] for e in cards]
        assert len(set(drawn)) == 12 and all(0 <= c < 13 for c in drawn)
        assert drawn == state["card_order"][:12]


# ---------------------------------------------------------------------------------------- arrivals
def test_arrivals_follow_the_card_line_doubled_in_rounds_6_and_12(logged_games):
    for players, record, state in logged_games:
        flags = [e[3] for e in of_kind(record.events, ev.FLAG)]
        cards = {e[0]: e[3] for e in of_kind(record.events, ev.TOURIST_CARD)}
        for round_no in range(1, 13):
            arrivals = of_kind(record.events, ev.ARRIVE, round_no)
            groups = defaultdict(list)
            for e in arrivals:
                groups[e[3]].append(e[4])
            line = [int(x) for x in C.card_groups[cards[round_no], players] if x > 0]
            factor = 2 if round_no in DOUBLE_ROUNDS else 1
            assert list(groups) == list(range(len(line))), (round_no, groups)  # groups in order
            assert [len(groups[k]) for k in range(len(line))] == [n * factor for n in line], \
                (players, round_no, cards[round_no])
            chips = [e[4] for e in arrivals]
            assert len(set(chips)) == len(chips)
            assert all(chip // 18 == flags[round_no - 1] for chip in chips), (round_no, chips)
            assert all(e[2] == -1 for e in arrivals)


def test_doubled_rounds_bring_twice_the_tourists():
    """Round 6 and 12 arrivals, counted directly: double the card's sum; the other rounds single."""
    doubled = single = 0
    for game in range(30):
        record = engine.play_game(DATA, 6, seed=99, game=game, log=True)
        cards = {e[0]: e[3] for e in of_kind(record.events, ev.TOURIST_CARD)}
        for round_no, card in cards.items():
            total = int(C.card_groups[card, 6].sum())
            arrived = len(of_kind(record.events, ev.ARRIVE, round_no))
            if round_no in (6, 12):
                assert arrived == 2 * total
                doubled += 1
            else:
                assert arrived == total
                single += 1
    assert (doubled, single) == (60, 300)


def test_arriving_chips_are_a_prefix_of_one_shuffle_whatever_the_player_count():
    """A round's chips come from stream 16 + r of (seed, game) alone: with more players (a longer
    line on the same card) the chips are the same draw, continued."""
    for game in range(20):
        drawn = {}
        for players in (3, 4, 5, 6):
            events = engine.play_game(DATA, players, seed=7, game=game, log=True).events
            drawn[players] = {r: [e[4] for e in of_kind(events, ev.ARRIVE, r)] for r in range(1, 13)}
        for r in range(1, 13):
            rows = sorted((drawn[p][r] for p in (3, 4, 5, 6)), key=len)
            for shorter, longer in zip(rows, rows[1:]):
                assert longer[:len(shorter)] == shorter, (game, r)


# ------------------------------------------------------------------------- independence from play
@pytest.mark.parametrize("players", [3, 4, 5, 6])
def test_the_deal_is_the_same_whatever_the_play(players):
    """Same (seed, game), other policy parameters: identical FLAG, REVEAL (the stack is dealt before
    play and revealed by a fixed count), TOURIST_CARD and ARRIVE events, although play differs."""
    differing = 0
    for game in range(15):
        logs = [engine.play_game(DATA, players, seed=2026, game=game, params=p, log=True).events
                for p in (None, ALL_IN, NOTHING)]
        assert deal_events(logs[0]) == deal_events(logs[1]) == deal_events(logs[2]), game
        assert len(of_kind(logs[0], ev.ARRIVE)) > 0
        differing += logs[0] != logs[1] and logs[1] != logs[2]
    assert differing == 15  # the parameters did change the play


def test_flags_stack_and_deck_do_not_depend_on_the_player_count():
    for game in range(10):
        logs = {p: engine.play_game(DATA, p, seed=55, game=game, log=True).events for p in (3, 6)}
        assert of_kind(logs[3], ev.FLAG) == of_kind(logs[6], ev.FLAG)
        assert of_kind(logs[3], ev.TOURIST_CARD) == of_kind(logs[6], ev.TOURIST_CARD)
        reveal3 = [e[3] for e in of_kind(logs[3], ev.REVEAL)]
        reveal6 = [e[3] for e in of_kind(logs[6], ev.REVEAL)]
        assert (len(reveal3), len(reveal6)) == (9, 18)
        assert reveal6[:9] == reveal3


def test_other_seeds_and_games_deal_other_games():
    base = deal_events(engine.play_game(DATA, 4, seed=1, game=0, log=True).events)
    for seed, game in ((2, 0), (1, 1), (2**64 - 1, 0), (1, 2**40)):
        other = deal_events(engine.play_game(DATA, 4, seed=seed, game=game, log=True).events)
        assert other != base, (seed, game)


# ------------------------------------------------------------------------------------- tie-breaker
def test_tie_breaker_moves_one_seat_clockwise_each_round(logged_games):
    for players, record, _ in logged_games:
        moves = of_kind(record.events, ev.TIEBREAK)
        assert [e[0] for e in moves] == list(range(1, 13))
        assert [e[3] for e in moves] == [r % players for r in range(1, 13)]
        assert record.snapshot["tiebreak"] == 12 % players


# ------------------------------------------------------------------------------- starting position
def all_holiday(players, data=None):
    """Round 1 with every seat on Staff holiday: nothing is bought, hosted or paid."""
    position = {"players": players, "round": 1, "rounds": 1,
                "decisions": {1: [{"card": 10} for _ in range(players)]}}
    return engine.play_position(data, position)


@pytest.mark.parametrize("players", [3, 4, 5, 6])
def test_every_seat_starts_with_25_and_the_11_cards(players):
    snap = all_holiday(players).snapshot
    assert snap["round"] == 2
    assert len(snap["seats"]) == players
    for seat in snap["seats"]:
        assert seat["money"] == 25
        assert seat["hand"] == list(range(11)) and seat["discard"] == []
        assert seat["rooms"] == [[]] * 6
        assert (seat["suites"], seat["pools"], seat["specials"]) == ([], 0, [0, 0, 0])


def test_starting_money_comes_from_the_data_file(tmp_path):
    text = components.default_data_path().read_text().replace("starting_money = 25",
                                                             "starting_money = 40", 1)
    path = tmp_path / "rich.toml"
    path.write_text(text)
    rich = components.load(path)
    assert [s["money"] for s in all_holiday(4, rich).snapshot["seats"]] == [40] * 4
    df = simulate(50, 4, seed=3, data=rich)
    assert (df["money"] == 40 + df["income"] - df["spent"]).all()


def test_money_is_25_plus_income_minus_spending():
    df = simulate(400, 5, seed=8)
    assert (df["money"] == 25 + df["income"] - df["spent"]).all()
    assert df["income"].gt(0).any() and df["spent"].gt(0).any()


def test_first_round_cards_are_drawn_from_all_11():
    """The random policy plays the below(|hand|)-th card: with a full hand of 11 every card
    (holiday included) comes up in round 1, about 1/11 of the time each (chi-square p > 1e-4 over
    1,500 seat-rounds)."""
    st = engine.run_batch(250, 6, seed=4, data=DATA, log=True)
    played = []
    for g in range(250):
        rows = st.events[g, :st.n_events[g]]
        first = rows[(rows[:, 0] == 1) & (rows[:, 1] == ev.PLAY)]
        assert first[:, 2].tolist() == list(range(6))
        played += first[:, 3].tolist()
    assert len(played) == 1500
    counts = np.bincount(played, minlength=11)
    assert len(counts) == 11
    assert stats.chisquare(counts).pvalue > 1e-4, counts
