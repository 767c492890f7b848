"""``samsim balance``: each measurement against a hand count on small frames, and the whole
command on real games."""

import dataclasses
import os
import subprocess
import sys
from pathlib import Path

import numpy as np
import pandas as pd
import pytest

from samsim import components, engine
from samsim.analysis import balance, balance_report
from samsim.runs import schema

DATA = components.load()
SAMSIM = str(Path(sys.executable).parent / "samsim")


@pytest.fixture(scope="module")
def played():
    """3,000 four-player games of greedy, with rounds recorded, and their measurements."""
    st = engine.run_batch(3000, 4, 21, 0, DATA, strategies="greedy", record=True)
    specs = [["greedy"] * 4]
    res, rnd = schema.results_frame(st, 0, 3000, specs), schema.rounds_frame(st, 0, 3000, specs)
    return res, rnd, balance.measure(res, rnd, DATA)


def test_seat_table_counts_wins_and_holds_the_fair_share(played):
    res, _, c = played
    assert c.players == 4 and c.games == 3000
    assert c.seats["wins"].sum() == pytest.approx(3000)
    for seat in range(4):
        assert c.seats.loc[seat, "wins"] == pytest.approx(res[res["seat"] == seat]["win_credit"].sum())
    assert (c.seats["low"] <= c.seats["win_rate"]).all() and (c.seats["win_rate"] <= c.seats["high"]).all()
    assert (c.seats["fair"] == 0.25).all()


def test_money_facts_are_the_hand_count():
    """Game 0: a clear winner. Game 1: two at the top, free rooms decide. Game 2: two at the top
    with equal free rooms: a draw."""
    rows = []
    for game, scores, rooms, credit in ((0, [50, 40, 30], [1, 2, 3], [1, 0, 0]),
                                         (1, [50, 50, 30], [2, 1, 0], [1, 0, 0]),
                                         (2, [60, 60, 10], [1, 1, 0], [0.5, 0.5, 0])):
        for seat in range(3):
            rows.append({"game": game, "seat": seat, "score": scores[seat],
                         "free_rooms": rooms[seat], "win_credit": credit[seat]})
    m = balance.money(pd.DataFrame(rows))
    assert m["draws"] == pytest.approx(1 / 3)
    assert m["top_tied"] == pytest.approx(2 / 3)
    assert m["free_rooms_decides"] == pytest.approx(1 / 3)
    assert m["spread_mean"] == pytest.approx((20 + 20 + 50) / 3)


def test_market_earned_adds_up_to_the_final_income(played):
    res, rnd, c = played
    assert c.market["round"].tolist() == list(range(1, 13))
    assert c.market["earned"].sum() == pytest.approx(res["income"].mean())
    double = c.market.set_index("round")["arrived"]
    assert double[6] > 1.8 * double[5] and double[12] > 1.8 * double[11]  # double rounds
    assert (c.market["hosted"] * 4 <= c.market["arrived"] + 1e-9).all()


def test_tile_prices_are_the_buyers_bids(played):
    _, rnd, c = played
    bought = rnd[rnd["tile"] >= 0]
    for _, row in c.tiles.iterrows():
        kind = ["extra_room", "suite", "pool", "switch", "send_home", "recall"].index(row["tile"])
        mine = bought[bought["tile"] == kind]
        assert row["bought"] == len(mine)
        assert row["price"] == pytest.approx(DATA.components.card_bid[mine["card"]].mean())


def test_equal_cards_make_one_tie_measurement(played):
    """In the packaged data an equal bid is an equal card, so every build tie won is a tourist
    tie lost: only their sum is measurable, reported once."""
    res, _, c = played
    assert (res["build_ties_won"] == res["price_ties_lost"]).all()
    assert c.ties["kind"].tolist() == ["card"]
    row = c.ties.iloc[0]
    assert row["points_low"] <= row["points"] <= row["points_high"]
    assert row["per_game"] == pytest.approx(res["build_ties_won"].mean())


def test_findings_are_ranked_largest_first_within_their_kind(played):
    _, _, c = played
    for kind in (c.findings.effects, c.findings.associations):
        sizes = [size for size, _ in kind]
        assert sizes == sorted(sizes, reverse=True)
    assert [text for _, text in c.findings.effects] == balance_report.ranked([c], "effects")
    assert any("seat" in text and "fair 25.0%" in text for _, text in c.findings.effects)


def test_seat_effects_and_associations_are_kept_apart(played):
    """A seat's deviation is caused by the seat (same strategy everywhere); ties and tiles only
    describe who won: they are listed, ranked and adjusted separately."""
    _, _, c = played
    effects = [text for _, text in c.findings.effects]
    associations = [text for _, text in c.findings.associations]
    assert len(effects) == 1 and "simultaneous" in effects[0]
    assert len(associations) == len(c.ties) + len(c.tiles)
    assert all("association" in text and "Holm p=" in text for text in associations)
    assert not any("tie" in text or "tile" in text for text in effects)
    report = balance_report.markdown([c], ["header"], [])
    seats_at = report.index("## Seat effects (simultaneous 95% intervals, Goodman)")
    assoc_at = report.index("## Associations (not effects; Bonferroni-simultaneous per player "
                            "count, Holm p)")
    assert seats_at < report.index(effects[0]) < assoc_at < report.index(associations[0])
    assert f"4 players: {c.associations} intervals" in report


def test_the_tie_finding_is_an_association_not_a_worth(played):
    _, _, c = played
    tie = [text for _, text in c.findings.associations if "ties on equal cards" in text]
    assert len(tie) == 1
    assert "association, not an effect" in tie[0] and "worth" not in tie[0]
    assert "An association, not what a tie is worth" in balance.ties.__doc__
    report = balance_report.markdown([c], ["header"], [])
    assert "an association, not what a tie is worth" in report
    assert "is worth" not in report.replace("not what a tie is worth", "")


def test_association_intervals_are_bonferroni_and_p_values_holm(played):
    """One family per player count: two tie intervals (coins, points) per tie kind and one per
    tile kind, each at 1 - 0.05/m; Holm over the same family's p-values."""
    from statsmodels.stats.multitest import multipletests

    res, rnd, c = played
    assert c.associations == 2 * len(c.ties) + len(c.tiles)
    assert c.association_confidence == pytest.approx(1 - 0.05 / c.associations)
    raw = balance.tiles(res, rnd, DATA)  # unadjusted 95%: narrower than the simultaneous ones
    assert ((c.tiles["diff_high"] - c.tiles["diff_low"])
            > (raw["diff_high"] - raw["diff_low"])).all()
    assert c.tiles["diff"].to_numpy() == pytest.approx(raw["diff"].to_numpy())
    p = np.concatenate([c.ties["coins_p"], c.ties["points_p"], c.tiles["p"]])
    holm = np.concatenate([c.ties["coins_holm"], c.ties["points_holm"], c.tiles["holm"]])
    assert holm == pytest.approx(multipletests(p, method="holm")[1])


def test_a_zero_p_value_prints_as_below_the_floor(played):
    _, _, c = played
    zero = dataclasses.replace(c, equal_p=0.0, ties=c.ties.assign(points_holm=0.0, coins_holm=0.0),
                               tiles=c.tiles.assign(holm=0.0))
    zero.findings = balance.findings(zero)
    texts = [text for kind in zero.findings for _, text in kind]
    assert sum("p < 1e-300" in text for text in texts) == 1 + len(c.ties) + len(c.tiles)
    report = balance_report.markdown([zero], ["header"], [])
    assert "p=0" not in report.replace(" ", "") and "p < 1e-300" in report
    assert "| < 1e-300 |" in report


def _one_winner_games(rng, games: int, players: int, buyers: str):
    """Seat rows of games with one winner each, drawn at random (so buying says nothing about
    winning: the true difference is 0). ``buyers``: "one" seat per game buys (a scarce tile:
    buying is negatively correlated within a game), or "game" (a tile most seats of some games
    buy and few of the others: positively correlated)."""
    seat = np.tile(np.arange(players), games)
    game = np.repeat(np.arange(games), players)
    win = (seat == np.repeat(rng.integers(0, players, games), players)).astype(float)
    if buyers == "one":
        buyer = seat == np.repeat(rng.integers(0, players, games), players)
    else:
        buyer = rng.random(games * players) < np.repeat(
            np.where(rng.random(games) < 0.5, 0.8, 0.1), players)
    return win, buyer, game


@pytest.mark.parametrize("buyers", ["one", "game"])
def test_clustered_tile_interval_covers_a_null_difference(buyers):
    """Calibration without the engine: over 300 seeds of 300 three-player games, the 95%
    game-clustered interval for buyers minus others covers the true 0 about 95% of the time
    (binomial sd 1.3 points: at least 91%). With one buyer per game, seat rows treated as
    independent (Welch, the old interval) are too narrow by sqrt(2/3) and undercover (about
    89%); its centre is the same difference, so it can only cover less than the clustered one.
    (With buying positively correlated within a game, Welch is too wide instead: the single
    winner makes the win credits negatively correlated.)"""
    from statsmodels.stats.weightstats import CompareMeans

    seeds, covered, welch_covered, ratio = 300, 0, 0, []
    for seed in range(seeds):
        win, buyer, game = _one_winner_games(np.random.default_rng(seed), 300, 3, buyers)
        d = balance.buyer_difference(win, buyer, game)
        assert d["diff"] == pytest.approx(win[buyer].mean() - win[~buyer].mean())
        covered += d["low"] <= 0 <= d["high"]
        low, high = CompareMeans.from_data(win[buyer], win[~buyer]).tconfint_diff(usevar="unequal")
        welch_covered += low <= 0 <= high
        ratio.append((high - low) / (d["high"] - d["low"]))
    assert covered / seeds >= 0.91
    if buyers == "one":
        assert np.mean(ratio) == pytest.approx(np.sqrt(2 / 3), abs=0.03)
        assert welch_covered < covered
    else:
        assert np.mean(ratio) > 1.2 and welch_covered >= covered


def test_buyer_difference_without_a_comparison_is_nan():
    d = balance.buyer_difference([1.0, 0.0, 0.0], [True, True, True], [0, 0, 0])
    assert np.isnan(d["diff"]) and np.isnan(d["p"])


@pytest.mark.parametrize("players", [4, 6])
def test_below_the_least_games_the_seat_intervals_do_not_hold(players):
    """Why a balance needs MIN_GAMES games: Goodman's simultaneous intervals, on fair seats,
    miss 1/N more often than 5% at 10 games (a false "beyond chance"), not from MIN_GAMES on."""
    from samsim.stats.inference import multinomial_intervals

    rng = np.random.default_rng(players)

    def missed(games, tables=2000):
        wins = rng.multinomial(games, [1 / players] * players, size=tables).astype(float)
        out = 0
        for w in wins:
            ci = multinomial_intervals(w)
            out += bool(((ci[:, 0] > 1 / players) | (ci[:, 1] < 1 / players)).any())
        return out / tables

    assert missed(10) > 0.06
    assert missed(balance.MIN_GAMES) <= 0.05 + 2 * np.sqrt(0.05 * 0.95 / 2000)


def test_a_balance_of_too_few_games_is_refused_before_any_game(tmp_path):
    with pytest.raises(ValueError, match=f"--games: a balance needs at least {balance.MIN_GAMES}"):
        balance.run([4], games=balance.MIN_GAMES - 1, out=tmp_path / "bal")
    assert not (tmp_path / "bal").exists()
    done = subprocess.run([SAMSIM, "balance", "--players", "4", "--games", "1"],
                          capture_output=True, text=True, cwd=tmp_path)
    assert done.returncode == 2 and done.stderr.count("\n") == 1, done.stderr
    assert "a balance needs at least 30 games per player count (got 1)" in done.stderr


def test_the_balance_command_writes_its_report(tmp_path):
    out = tmp_path / "bal"
    done = subprocess.run([SAMSIM, "balance", "--players", "3,5", "--games", "600", "--strategy",
                           "fixed", "--out", str(out)], capture_output=True, text=True,
                          timeout=900, cwd=tmp_path, env={**os.environ, "COLUMNS": "100"})
    assert done.returncode == 0, done.stderr
    assert "Seat effects (simultaneous 95% intervals, Goodman)" in done.stdout
    assert "Associations (not effects; Bonferroni-simultaneous per player count, Holm p)" \
        in done.stdout
    assert "conditional on the strategies" in done.stdout
    text = (out / "report" / "balance.md").read_text()
    assert "## 3 players" in text and "## 5 players" in text and "sha256" in text
    assert "## Seat effects" in text and "## Associations" in text
    for name in ("seats.png", "market.png", "money.png", "final_money.png"):
        assert (out / "report" / name).stat().st_size > 1000
    assert (out / "3p" / "rounds").is_dir()  # the games are kept, rounds included
    again = subprocess.run([SAMSIM, "balance", "--players", "3,5", "--games", "600", "--strategy",
                            "fixed", "--out", str(out)], capture_output=True, text=True,
                           timeout=900, cwd=tmp_path)
    assert again.returncode == 2 and "--resume" in again.stderr  # nothing is overwritten unasked


def test_schedule_gains_and_skill_describe_the_games(tmp_path):
    """The tie-breaker's schedule follows the card (start, one seat per round; tourists first one
    seat counter-clockwise); each round's gains sum to zero over the seats (each is against the
    others' mean); skill is measured only where several strategies played, and a strong strategy
    against a weak one shows a spread and a positive skill share."""
    from samsim.analysis.balance import gains, schedule, skill
    from samsim.runs import results as runs

    sched = schedule(4, 1, False, 12, {6, 12})
    assert sched["tiles_first"].tolist() == [(1 + r) % 4 for r in range(12)]
    assert sched["tourists_first"].tolist() == [r % 4 for r in range(12)]
    assert sched["double"].sum() == 2
    assert schedule(5, 0, True, 12, set())["tourists_first"].tolist() == [r % 5 for r in range(12)]
    runs.run_simulation(400, 4, seed=2, strategies=["greedy", "random", "greedy", "random"],
                        record=("rounds",), out=tmp_path / "run")
    results, rounds = runs.load(tmp_path / "run"), runs.load(tmp_path / "run", "rounds")
    assert abs(gains(rounds).sum(axis=1)).max() < 1e-9
    s = skill(results)
    assert s["strongest"] == "greedy" and s["spread"] > 10 and 0 < s["skill_share"] < 1
    assert skill(results[results["strategy"] == "greedy"].assign(strategy="greedy")) is None


def test_the_report_explains_robust_seats_and_each_populations_largest_effect():
    """Robust seats are explained under every population; where effects depend on the players,
    each population's farthest seat beyond chance; a population with no effect adds nothing."""
    from samsim.analysis.balance import Robustness
    from samsim.analysis.balance_report import explained_seats
    from samsim.stats.seats import seat_verdicts

    games = np.array([20_000, 20_000, 20_000], float)
    share = np.array([[0.30, 0.20, 0.25, 0.25],   # seat 0 up, seat 1 down: both off
                      [0.30, 0.25, 0.25, 0.20],   # seat 0 up, seat 3 down
                      [0.25, 0.25, 0.25, 0.25]])  # fair: nothing to explain
    wins = share * games[:, None]
    seats = seat_verdicts(wins, games, 2.0)
    r = Robustness(4, ["a", "b", "fair"], list(games), 2.0, seats, wins)
    assert explained_seats(r) == [(0, 0), (0, 1)]  # ties in size go to the lower seat
    share[2] = [0.29, 0.22, 0.25, 0.24]  # now seat 0 is robust: explained everywhere
    wins = share * games[:, None]
    r = Robustness(4, ["a", "b", "c"], list(games), 2.0, seat_verdicts(wins, games, 2.0), wins)
    assert explained_seats(r) == [(0, 0), (0, 1), (0, 2)]
