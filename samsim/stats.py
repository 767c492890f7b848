"""Win rates with honest intervals, and the per-seat summary of a simulation.

Wins are counted as win credit: a draw between k seats gives each 1/k of a win, so the win counts
of a game add up to exactly 1 and a seat's win rate is an unbiased share of the games. The interval
is Wilson's score interval, which unlike the normal approximation stays inside [0, 1] and keeps its
coverage for rare winners and small runs; it accepts the fractional counts draws produce.
"""

from __future__ import annotations

import numpy as np
import pandas as pd


def wilson_interval(successes, n, confidence: float = 0.95) -> tuple[np.ndarray, np.ndarray]:
    """Wilson score interval for a proportion ``successes / n`` (array-like, fractions allowed)."""
    from scipy.stats import norm

    if not 0 < confidence < 1:
        raise ValueError(f"confidence must lie strictly between 0 and 1, got {confidence!r}")
    k = np.asarray(successes, dtype=float)
    n = np.asarray(n, dtype=float)
    if np.any(n <= 0) or np.any(k < 0) or np.any(k > n):
        raise ValueError("need 0 <= successes <= n and n > 0")
    z = norm.ppf(0.5 + confidence / 2)
    p = k / n
    denom = 1 + z * z / n
    centre = (p + z * z / (2 * n)) / denom
    half = z / denom * np.sqrt(p * (1 - p) / n + z * z / (4 * n * n))
    return np.clip(centre - half, 0, 1), np.clip(centre + half, 0, 1)


SUMMARY_COLUMNS = ("games", "wins", "win_rate", "win_low", "win_high", "mean_score",
                   "median_score", "mean_tourists", "mean_tiles")


def seat_summary(results: pd.DataFrame, confidence: float = 0.95) -> pd.DataFrame:
    """One row per seat of a results frame (``samsim.simulate``'s layout): games, wins (win
    credit, so draws are shared), win rate with its Wilson interval, mean and median final score,
    mean tourists hosted and mean tiles bought."""
    by_seat = results.groupby("seat", sort=True)
    games = by_seat.size().astype(np.int64)
    wins = by_seat["win_credit"].sum()
    low, high = wilson_interval(wins.to_numpy(), games.to_numpy(), confidence)
    out = pd.DataFrame({
        "games": games,
        "wins": wins,
        "win_rate": wins / games,
        "win_low": low,
        "win_high": high,
        "mean_score": by_seat["score"].mean(),
        "median_score": by_seat["score"].median(),
        "mean_tourists": by_seat["tourists_hosted"].mean(),
        "mean_tiles": by_seat["tiles_bought"].mean(),
    })
    out.attrs["confidence"] = confidence
    return out


__all__ = ["wilson_interval", "seat_summary", "SUMMARY_COLUMNS"]
