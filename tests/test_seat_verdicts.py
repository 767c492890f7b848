"""Seat verdicts across populations (``samsim.stats.seats``), calibrated on games drawn from known
seat chances: with fair seats no effect is called robust more often than alpha, and a seat just at
the margin is called fair ("none found") no more often than alpha, and populations alike are not
said to differ ("depends on the players") more often than alpha; a real effect shared by every
population is found, and one that flips between populations is not called robust."""

import numpy as np
import pytest

from samsim.stats.seats import (DEPENDS, NONE_FOUND, ROBUST, UNDECIDED, seat_verdicts,
                                table_verdict)

ALPHA = 0.05
REPS = 300


def _draw(rng, chances, games):
    """Win counts of ``games`` games per population, ``chances[p]`` the seats' chances."""
    return np.array([rng.multinomial(games, c) for c in chances]), [games] * len(chances)


def _rate(calls: int) -> tuple[float, float]:
    """The observed rate and its binomial standard error over REPS replications."""
    rate = calls / REPS
    return rate, np.sqrt(max(rate, ALPHA) * (1 - max(rate, ALPHA)) / REPS)


def test_fair_seats_are_not_called_robust_more_often_than_alpha():
    rng = np.random.default_rng(1)
    fair = [[0.25] * 4] * 3
    robust = sum(any(v.verdict == ROBUST for v in seat_verdicts(*_draw(rng, fair, 2000), 2.0))
                 for _ in range(REPS))
    rate, se = _rate(robust)
    assert rate <= ALPHA + 2 * se


def test_a_seat_at_the_margin_is_not_called_fair_more_often_than_alpha():
    rng = np.random.default_rng(2)
    at_margin = [[0.27, 0.23, 0.25, 0.25]] * 3  # seat 0 exactly 2 points above 1/4
    fair_calls = sum(seat_verdicts(*_draw(rng, at_margin, 20000), 2.0)[0].verdict == NONE_FOUND
                     for _ in range(REPS))
    rate, se = _rate(fair_calls)
    assert rate <= ALPHA + 2 * se


@pytest.mark.parametrize("chances", [[0.25] * 4, [0.31, 0.23, 0.23, 0.23]])
def test_populations_alike_are_not_said_to_differ_more_often_than_alpha(chances):
    """Every population gives the seats the same chances (fair, or seat 0 well ahead): a
    population whose interval shows an effect that another's merely misses is no difference."""
    rng = np.random.default_rng(5)
    alike = [chances] * 3
    depends = sum(any(v.verdict == DEPENDS for v in seat_verdicts(*_draw(rng, alike, 300), 2.0))
                  for _ in range(REPS))
    rate, se = _rate(depends)
    assert rate <= ALPHA + 2 * se


def test_one_population_showing_an_effect_the_others_allow_is_undecided():
    """The trial's case: seat 1 +11 points with one population, +4 with another whose interval
    reaches +11 too: no evidence that the players matter."""
    wins = np.array([[60, 115, 75], [60, 95, 95]])  # 250 games each, 3 seats
    verdicts = seat_verdicts(wins, [250, 250], 2.0)
    assert verdicts[1].low[0] > 0 and verdicts[1].high[1] > verdicts[1].deviation[0]
    assert verdicts[1].verdict == UNDECIDED


def test_an_effect_every_population_shares_is_robust():
    rng = np.random.default_rng(3)
    shared = [[0.29, 0.23, 0.24, 0.24], [0.30, 0.24, 0.23, 0.23], [0.28, 0.24, 0.24, 0.24]]
    found = sum(seat_verdicts(*_draw(rng, shared, 20000), 2.0)[0].verdict == ROBUST
                for _ in range(100))
    assert found >= 95


def test_fair_seats_in_many_games_are_found_fair():
    rng = np.random.default_rng(4)
    fair = [[0.25] * 4] * 3
    calls = [table_verdict(seat_verdicts(*_draw(rng, fair, 40000), 2.0)) for _ in range(50)]
    assert calls.count(NONE_FOUND) >= 48


def test_an_effect_that_flips_depends_on_the_players():
    wins = np.array([[3000, 2300, 2350, 2350], [1900, 2700, 2700, 2700]])
    verdicts = seat_verdicts(wins, [10000, 10000], 2.0)
    assert verdicts[0].verdict == DEPENDS and table_verdict(verdicts) == DEPENDS
    assert verdicts[0].size == pytest.approx((-6.0, 5.0))


def test_too_few_games_are_undecided_not_a_disagreement():
    verdicts = seat_verdicts([[20, 15, 15], [14, 18, 18]], [50, 50], 2.0)
    assert {v.verdict for v in verdicts} == {UNDECIDED} and table_verdict(verdicts) == UNDECIDED


def test_bad_inputs_are_refused():
    with pytest.raises(ValueError, match="margin must be positive"):
        seat_verdicts([[10, 10]], [20], 0.0)
    with pytest.raises(ValueError, match="two seats"):
        seat_verdicts([[10]], [10], 2.0)
