"""The report's PNG plots (matplotlib, drawn off-screen), one figure per question a reader asks:
does the seat matter, how are final scores spread per strategy, how does money grow over the game.

Each figure has one panel per player count, since a seat's or strategy's chances are only
comparable at the same table size.
"""

from __future__ import annotations

from pathlib import Path

import numpy as np


def _pyplot():
    import matplotlib

    matplotlib.use("Agg")  # files only: no display needed (CI, servers)
    import matplotlib.pyplot as plt

    return plt


def _panels(plt, count: int, title: str):
    fig, axes = plt.subplots(1, count, figsize=(4.2 * count + 1.5, 3.8), squeeze=False,
                             sharey=True)
    fig.suptitle(title)
    return fig, axes[0]


def win_rate_by_seat(report, path: Path) -> Path:
    """Win rate per seat with 95% intervals, one line per strategy, and the fair share 1/N."""
    plt = _pyplot()
    counts = report.player_counts
    fig, axes = _panels(plt, len(counts), "Win rate by seat (95% Wilson intervals)")
    table = report.tally.summary(("players", "strategy", "seat"))
    for ax, players in zip(axes, counts):
        rows = table.xs(players, level="players")
        strategies = list(dict.fromkeys(rows.index.get_level_values("strategy")))
        width = 0.8 / len(strategies)
        for i, name in enumerate(strategies):
            s = rows.xs(name, level="strategy")
            seats = s.index.to_numpy()
            x = seats + (i - (len(strategies) - 1) / 2) * width
            err = np.maximum(0, np.vstack([s["win_rate"] - s["win_low"],
                                           s["win_high"] - s["win_rate"]]))  # rounding: never < 0
            ax.errorbar(x, s["win_rate"], yerr=err, fmt="o", ms=3, capsize=2, label=name)
        ax.axhline(1 / players, color="grey", ls="--", lw=1, label="fair share")
        ax.set_title(f"{players} players")
        ax.set_xlabel("seat")
        ax.set_xticks(range(players))
        ax.yaxis.set_major_formatter(plt.FuncFormatter(lambda v, _: f"{v:.0%}"))
    axes[0].set_ylabel("win rate")
    axes[-1].legend(fontsize=7, loc="center left", bbox_to_anchor=(1, 0.5))
    return _save(plt, fig, path)


def score_by_strategy(report, path: Path) -> Path:
    """Distribution of final score per strategy: share of its seats in each of 40 score bins."""
    plt = _pyplot()
    counts = report.player_counts
    fig, axes = _panels(plt, len(counts), "Final score distribution by strategy")
    seats = report.tally.seats
    scores = seats.index.get_level_values("score")
    edges = np.histogram_bin_edges(scores, bins=40, range=(scores.min(), scores.max() + 1))
    for ax, players in zip(axes, counts):
        rows = seats.xs(players, level="players")
        for name, group in rows.groupby(level="strategy", sort=False):
            values = group.index.get_level_values("score")
            share, _ = np.histogram(values, bins=edges, weights=group["n"] / group["n"].sum())
            ax.stairs(share, edges, lw=1.2, label=name)
        ax.set_title(f"{players} players")
        ax.set_xlabel("final score (coins)")
    axes[0].set_ylabel("share of seats")
    axes[-1].legend(fontsize=7, loc="center left", bbox_to_anchor=(1, 0.5))
    return _save(plt, fig, path)


def money_by_round(report, path: Path) -> Path | None:
    """Mean money at the end of each round per strategy (needs recorded rounds)."""
    rounds = report.tally.round_summary()
    if rounds.empty:
        return None
    plt = _pyplot()
    counts = sorted({int(p) for p in rounds.index.get_level_values("players")})
    fig, axes = _panels(plt, len(counts), "Mean money at the end of each round")
    for ax, players in zip(axes, counts):
        rows = rounds.xs(players, level="players")
        for name, group in rows.groupby(level="strategy", sort=False):
            g = group.droplevel("strategy")
            ax.plot(g.index, g["money"], marker="o", ms=2, lw=1, label=name)
        ax.set_title(f"{players} players")
        ax.set_xlabel("round")
        ax.set_xticks(range(1, int(rows.index.get_level_values("round").max()) + 1))
    axes[0].set_ylabel("money (coins)")
    axes[-1].legend(fontsize=7, loc="center left", bbox_to_anchor=(1, 0.5))
    return _save(plt, fig, path)


def _save(plt, fig, path: Path) -> Path:
    from samsim.runs.results import atomic_write

    import warnings

    with warnings.catch_warnings():  # long strategy specs as labels: the figure stays as drawn
        warnings.filterwarnings("ignore", "Tight layout not applied", UserWarning)
        fig.tight_layout()
    try:
        atomic_write(Path(path), lambda tmp: fig.savefig(tmp, format=Path(path).suffix[1:],
                                                         dpi=110, bbox_inches="tight"))
    finally:
        plt.close(fig)
    return path


def draw_all(report, out: Path) -> list[Path]:
    """Every plot the report's data allows, as PNG files in ``out``."""
    drawn = [win_rate_by_seat(report, out / "win_rate_by_seat.png"),
             score_by_strategy(report, out / "score_by_strategy.png"),
             money_by_round(report, out / "money_by_round.png")]
    return [p for p in drawn if p is not None]


__all__ = ["win_rate_by_seat", "score_by_strategy", "money_by_round", "draw_all"]
