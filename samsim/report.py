"""Terminal reports (rich): what a person reads after a run.

Rendering lives here, not in the CLI, so that a notebook user gets the same table from the same
frame (``rich.print(seat_table(seat_summary(df)))``).
"""

from __future__ import annotations

from pathlib import Path

import pandas as pd
from rich import box
from rich.table import Table

from samsim.components import GameData


def seat_table(summary: pd.DataFrame, title: str | None = None) -> Table:
    """The per-seat table of ``samsim.stats.seat_summary``."""
    confidence = summary.attrs.get("confidence", 0.95)
    # Compact enough for an 80-column terminal (and for output piped to a file, which rich
    # renders 80 wide): headers break over two lines rather than numbers being cut.
    table = Table(title=title, title_justify="left", box=box.SIMPLE_HEAD, padding=(0, 0, 0, 1),
                  show_edge=False)
    for header in ("seat", "games", "wins", "win\nrate", f"{confidence:.0%} CI\n(win rate)",
                   "mean\nscore", "median\nscore", "guests\n/game", "tiles\n/game"):
        table.add_column(header, justify="right", no_wrap=True)
    for seat, row in summary.iterrows():
        wins = float(row["wins"])
        table.add_row(
            str(seat), f"{int(row['games']):,}",
            f"{wins:,.0f}" if wins.is_integer() else f"{wins:,.1f}",
            f"{row['win_rate']:.2%}", f"{100 * row['win_low']:.2f}-{row['win_high']:.2%}",
            f"{row['mean_score']:.2f}", f"{row['median_score']:g}",
            f"{row['mean_tourists']:.2f}", f"{row['mean_tiles']:.2f}",
        )
    return table


def data_note(data: GameData) -> str:
    """Which data file produced the numbers, and whether it holds assumed values (said once per
    report, as shared/docs/components.md asks)."""
    note = f"data: {Path(data.source).name} (sha256 {data.sha256[:12]})"
    if data.assumed:
        note += (f"; assumed values, not confirmed from a physical copy: {', '.join(data.assumed)}")
    return note


__all__ = ["seat_table", "data_note"]
