"""The shared building blocks of ``samsim.kernel.moves``: the planned round value (worked out
once per decision, then read for every card and guess) gives exactly what working each value out
from the placements gives, in every position real games reach.

The check runs inside the engine: a strategy compares the two at each of its decisions and, on
any difference, makes an illegal decision, which stops the batch with the game, seat and round.
"""

import numpy as np
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from samsim import components, engine
from samsim.kernel.moves import typical_card_nb

DATA = components.load()

CHECKER = '''"""Checks the planned round value against the placements at every card and take decision
(a test strategy: plays greedy's card and the default take)."""
from samsim.kernel.bits import lowest_bit_nb
from samsim.kernel.contract import decision
from samsim.kernel.decisions import CARD, GROUP, N_TAKE, TAKE
from samsim.kernel.moves import (G, best_planned_card_nb, best_take_nb, best_tile_nb,
                                 plan_round_nb, plan_take_nb, planned_value_nb,
                                 typical_profile_nb, with_card_nb)

PARAMS = {"tile_scale": 1.0, "blind": 0}
LIMITS = {"tile_scale": (0, 10), "blind": (0, 1)}  # blind=1: call equal values different
WRONG = 99  # not a card: the rules stop the batch and say where


@decision
def card(comp, view, params, rng, out):
    p = view.me
    profile = typical_profile_nb(comp, view)
    ok = True
    cards = view.hand[G, p]
    while cards:
        c = lowest_bit_nb(cards)
        cards &= cards - 1
        mine = with_card_nb(profile, p, c)
        plan = plan_round_nb(comp, view, p, out)  # afresh: the slow value writes over it
        worth, _, tiles = plan
        fast = planned_value_nb(comp, view, p, mine, params[0], plan, out)
        slow = planned_value_nb(comp, view, p, mine, params[0], (worth, False, tiles), out)
        ok = ok and (fast[0] == slow[0] and fast[1] == slow[1]) != (params[1] > 0)
        if c != comp.holiday_card:  # the tile: best_tile_nb's surplus for this card's bid
            kind, surplus = best_tile_nb(comp, view, p, comp.card_bid[c], params[0])
            bid = comp.card_bid[c]
            planned_surplus = params[0] * worth - bid if worth >= 0.0 and bid <= view.money[G, p] \\
                else 0.0
            ok = ok and (surplus == planned_surplus if kind >= 0 else planned_surplus <= 0.0)
    plan = plan_round_nb(comp, view, p, out)
    best, _ = best_planned_card_nb(comp, view, profile, params[0], plan, out)
    out[CARD] = best if ok else WRONG


@decision
def take(comp, view, params, rng, out):
    """The default take, checked against the best group found from the placements."""
    p = view.me
    price = comp.card_price[view.played[G, p]]
    best_group, best_money = -1, 0
    for group in range(view.group_left.shape[1]):
        if view.group_left[G, group] != 0:
            money = plan_take_nb(comp, view, p, price, group, 1 << 20, out)
            if money > best_money:
                best_group, best_money = group, money
    money = best_take_nb(comp, view, p, price, 1 << 20, out)
    if money != best_money or out[GROUP] != best_group:
        out[GROUP] = WRONG
'''


@pytest.fixture(scope="module")
def checker(tmp_path_factory):
    path = tmp_path_factory.mktemp("checker") / "checker.py"
    path.write_text(CHECKER)
    return str(path)


@pytest.mark.parametrize("players", [3, 4, 5, 6])
@pytest.mark.parametrize("scale", [0.0, 1.0, 2.5])
def test_the_planned_round_value_is_the_value_worked_out(checker, players, scale):
    seats = [f"{checker}(tile_scale={scale})", "greedy", "holiday", "undercut", "lookahead",
             "random"][:players]
    for seed in range(2):
        engine.run_batch(150, players, seed, strategies=seats)  # raises at the first difference


def test_a_price_of_zero_is_planned_too(checker, tmp_path):
    """At a price of 0 only buoys pay: the planned money must still match (a rules variant)."""
    text = components.default_data_path().read_text(encoding="utf-8")
    old = "prices = [3, 4, 5, 6, 7, 9, 8, 10, 11, 12]"
    assert old in text
    variant = tmp_path / "free.toml"
    variant.write_text(text.replace(old, "prices = [0, 4, 5, 6, 7, 9, 8, 10, 0, 12]"))
    data = components.load(variant)
    engine.run_batch(200, 4, 3, data=data, strategies=[checker, checker, "greedy", "random"])


@settings(max_examples=300, deadline=None)
@given(hand=st.integers(0, (1 << (len(DATA.components.card_price))) - 1))
def test_the_typical_card_is_the_median_by_price(hand):
    c = DATA.components
    normal = sorted((int(c.card_price[k]), k) for k in range(len(c.card_price))
                    if k != c.holiday_card and (hand >> k) & 1)
    want = normal[len(normal) // 2][1] if normal else c.holiday_card
    assert typical_card_nb(c, np.int64(hand)) == want


def test_the_checker_would_catch_a_difference(checker):
    """The check is not vacuous: a checker that calls equal values different stops the batch."""
    with pytest.raises(engine.IllegalDecision, match=r"checker\(blind=1\)"):
        engine.run_batch(5, 4, 0, strategies=[f"{checker}(blind=1)", "greedy", "greedy", "greedy"])


AHEAD = '''"""Checks rivals_ahead_nb against its definition at every card decision: each rival's cards
counted one by one with hosts_before_nb (a test strategy: plays its cheapest card)."""
from samsim.kernel.bits import lowest_bit_nb, popcount_nb
from samsim.kernel.contract import decision
from samsim.kernel.decisions import CARD
from samsim.kernel.moves import G, cheapest_in_nb, hosts_before_nb, rivals_ahead_nb, with_card_nb

PARAMS = {"blind": 0}
LIMITS = {"blind": (0, 1)}  # blind=1: call equal counts different
WRONG = 99


@decision
def card(comp, view, params, rng, out):
    p = view.me
    ok = True
    cards = view.hand[G, p] & ~(1 << comp.holiday_card)
    while cards:
        c = lowest_bit_nb(cards)
        cards &= cards - 1
        slow = 0.0
        for q in range(view.money.shape[1]):
            hand = view.hand[G, q]
            if q == p or hand == 0:
                continue
            before = 0
            rest = hand
            while rest:
                k = lowest_bit_nb(rest)
                rest &= rest - 1
                profile = with_card_nb(with_card_nb(0, p, c), q, k)
                before += (hosts_before_nb(comp, view, p, profile) >> q) & 1
            slow += before / popcount_nb(hand)
        ok = ok and (rivals_ahead_nb(comp, view, p, c) == slow) != (params[0] > 0)
    best = cheapest_in_nb(comp, view.hand[G, p])
    out[CARD] = (best if best >= 0 else comp.holiday_card) if ok else WRONG
'''


@pytest.mark.parametrize("players", [3, 6])
def test_rivals_ahead_is_its_definition(tmp_path, players):
    """Counted with bitmaps of the cards priced below and alike, exactly what counting every
    rival card with hosts_before_nb gives; equal prices too (a variant with two cards at 0)."""
    path = tmp_path / "ahead.py"
    path.write_text(AHEAD)
    text = components.default_data_path().read_text(encoding="utf-8")
    variant = tmp_path / "ties.toml"
    variant.write_text(text.replace("prices = [3, 4, 5, 6, 7, 9, 8, 10, 11, 12]",
                                    "prices = [0, 4, 5, 6, 7, 9, 8, 10, 0, 12]"))
    seats = [str(path), "tuned", "undercut", "random", "lookahead", "greedy"][:players]
    for data in (DATA, components.load(variant)):
        engine.run_batch(150, players, 1, data=data, strategies=seats)
    with pytest.raises(engine.IllegalDecision, match=r"ahead\(blind=1\)"):
        engine.run_batch(5, players, 0, strategies=[f"{path}(blind=1)", *seats[1:]])
