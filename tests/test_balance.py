"""``samsim balance``: each measurement against a hand count on small frames, and the whole
command on real games."""

import os
import subprocess
import sys
from pathlib import Path

import numpy as np
import pandas as pd
import pytest

from samsim import balance, components, engine, schema

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


def test_findings_are_ranked_largest_first(played):
    _, _, c = played
    sizes = [size for size, _ in c.findings]
    assert sizes == sorted(sizes, reverse=True)
    assert any("seat" in text and "fair 25.0%" in text for _, text in c.findings)


def test_the_balance_command_writes_its_report(tmp_path):
    out = tmp_path / "bal"
    done = subprocess.run([SAMSIM, "balance", "--players", "3,5", "--games", "600", "--strategy",
                           "fixed", "--out", str(out)], capture_output=True, text=True,
                          timeout=900, cwd=tmp_path, env={**os.environ, "COLUMNS": "100"})
    assert done.returncode == 0, done.stderr
    assert "Findings, largest imbalance first" in done.stdout
    assert "conditional on the strategies" in done.stdout
    text = (out / "report" / "balance.md").read_text()
    assert "## 3 players" in text and "## 5 players" in text and "sha256" in text
    for name in ("seats.png", "market.png", "money.png", "final_money.png"):
        assert (out / "report" / name).stat().st_size > 1000
    assert (out / "3p" / "rounds").is_dir()  # the games are kept, rounds included
    again = subprocess.run([SAMSIM, "balance", "--players", "3,5", "--games", "600", "--strategy",
                            "fixed", "--out", str(out)], capture_output=True, text=True,
                           timeout=900, cwd=tmp_path)
    assert again.returncode == 2 and "--resume" in again.stderr  # nothing is overwritten unasked
