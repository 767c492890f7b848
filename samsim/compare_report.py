"""Comparison reports (``samsim compare``): verdicts first, then the numbers behind them, in the
terminal (rich), in Markdown, and as a plot of every pair's difference with its interval.

Effect sizes and intervals lead; p-values follow. At millions of games everything is
"significant", and what a designer needs is how large a difference is and how sure we are of it.
"""

from __future__ import annotations

from pathlib import Path

import pandas as pd
from rich import box
from rich.console import Console
from rich.table import Table

import samsim
from samsim.compare import Comparison

FILES = ("compare.md", "pairs.png", "pairs.csv", "ranking.csv")


def _p(value: float) -> str:
    return "" if pd.isna(value) else (f"{value:.2g}" if value >= 1e-4 else "<1e-4")


def _pair_cells(row) -> list[str]:
    return [f"{row['a']} − {row['b']}", f"{row['groups']:,}", f"{row['win_diff']:+.2f}",
            f"{row['win_low']:+.2f}…{row['win_high']:+.2f}", f"{row['money_diff']:+.2f}",
            f"{row['money_low']:+.2f}…{row['money_high']:+.2f}", f"{row['effect_size']:+.2f}",
            _p(row["p_value"]), _p(row["p_holm"]), _p(row["p_equivalent"])]


#: Win rate in points, final money in coins, both first minus second; d_z = mean / sd of groups.
PAIR_HEADERS = ("pair", "groups", "win pts", "95% CI", "coins", "95% CI", "d_z", "p", "Holm p",
                "equiv. p")
RANK_HEADERS = ("strategy", "Bradley-Terry strength", "95% CI")


#: The terminal's columns (80 wide): the money interval and equivalence p are in the Markdown.
TERMINAL = (0, 1, 2, 3, 4, 6, 7, 8)


def _headers(c: Comparison) -> tuple[str, ...]:
    """Sequential runs have no fixed-sample p-values (the stop makes them invalid)."""
    return PAIR_HEADERS if c.sequential is None else PAIR_HEADERS[:6]


def print_comparison(c: Comparison, console: Console, data_line: str = "") -> None:
    for line in c.description():
        console.print(line, markup=False)
    console.print()
    pairs, ranking = c.pairs_frame(), c.ranking_frame()
    for verdict in pairs["verdict"]:
        console.print(f"[bold]{verdict}[/bold]")
    console.print()
    table = Table(box=box.SIMPLE_HEAD, show_edge=False, padding=(0, 0, 0, 1),
                  title="first minus second: win rate in points, final money in coins",
                  title_justify="left")
    shown = [k for k in TERMINAL if k < len(_headers(c))]
    for k in shown:
        table.add_column(PAIR_HEADERS[k], justify="left" if k == 0 else "right", no_wrap=True)
    for _, row in pairs.iterrows():
        cells = _pair_cells(row)
        table.add_row(*[cells[k] for k in shown])
    console.print(table)
    if len(c.contestants) > 2:
        console.print()
        rank = Table(box=box.SIMPLE_HEAD, show_edge=False, padding=(0, 0, 0, 1),
                     title="ranking (log-odds of finishing ahead of the average compared "
                           "strategy)", title_justify="left")
        for h in RANK_HEADERS:
            rank.add_column(h, justify="left" if h == "strategy" else "right")
        for _, row in ranking.iterrows():
            rank.add_row(row["strategy"], f"{row['strength']:+.3f}",
                         f"{row['low']:+.3f} … {row['high']:+.3f}")
        console.print(rank)
    console.print()
    for line in [*c.notes(), data_line, f"samsim {samsim.__version__}"]:
        if line:
            console.print(line, markup=False, style="yellow" if "inconsistent" in line or
                          "assumed" in line else None)


def markdown(c: Comparison, data_line: str, plot: str | None) -> str:
    pairs, ranking = c.pairs_frame(), c.ranking_frame()
    headers = _headers(c)
    parts = [f"# Comparison: {', '.join(f'`{s}`' for s in c.contestants)}", ""]
    parts += [f"- {line}" for line in c.description()] + [""]
    parts += ["## Verdicts", ""] + [f"- {v}" for v in pairs["verdict"]] + [""]
    parts += ["## Pairs (first minus second)", "",
              "Win rate in points, final money in coins; d_z: mean over the standard deviation "
              "of the group differences; equiv. p: the equivalence test for the margin.", "",
              "| " + " | ".join(headers) + " |",
              "| --- | " + " | ".join("---:" for _ in headers[1:]) + " |"]
    parts += ["| " + " | ".join(_pair_cells(row)[:len(headers)]) + " |"
              for _, row in pairs.iterrows()]
    parts += [""]
    if len(c.contestants) > 2:
        parts += ["## Ranking", "", "Bradley-Terry strengths from every game's finishing order "
                  "among the compared strategies (ties left out), log-odds of finishing ahead of "
                  "the average one; 95% intervals from a bootstrap over groups.", "",
                  "| " + " | ".join(RANK_HEADERS) + " |", "| --- | ---: | ---: |"]
        parts += [f"| `{r['strategy']}` | {r['strength']:+.3f} | {r['low']:+.3f} … "
                  f"{r['high']:+.3f} |" for _, r in ranking.iterrows()]
        parts += [""]
    if plot:
        parts += [f"![win-rate differences]({Path(plot).name})", ""]
    parts += ["## Notes", ""] + [f"- {line}" for line in [*c.notes(), data_line,
                                                           f"samsim {samsim.__version__}"] if line]
    return "\n".join(parts) + "\n"


def plot_pairs(c: Comparison, path: Path) -> Path:
    """Every pair's win-rate difference with its interval (a forest plot), zero marked."""
    from samsim.plots import _pyplot, _save

    plt = _pyplot()
    pairs = c.pairs_frame()
    fig, ax = plt.subplots(figsize=(7, 0.45 * len(pairs) + 1.4))
    y = range(len(pairs))[::-1]
    ax.errorbar(pairs["win_diff"], list(y), xerr=[pairs["win_diff"] - pairs["win_low"],
                                                  pairs["win_high"] - pairs["win_diff"]],
                fmt="o", capsize=3)
    ax.axvline(0, color="grey", lw=0.8)
    ax.set_yticks(list(y), [f"{a} − {b}" for a, b in zip(pairs["a"], pairs["b"])])
    ax.set_xlabel("win rate difference (points), 95% interval")
    ax.set_title(f"{c.players} players, field {c.field}, {c.games:,} games")
    return _save(plt, fig, path)


def write_comparison(c: Comparison, out, data_line: str) -> list[Path]:
    """``compare.md``, ``pairs.png`` and the two tables as CSV in folder ``out``."""
    from samsim.results import prepare_output_dir

    out = prepare_output_dir(out)
    plot = plot_pairs(c, out / "pairs.png")
    c.pairs_frame().to_csv(out / "pairs.csv", index=False)
    c.ranking_frame().to_csv(out / "ranking.csv", index=False)
    (out / "compare.md").write_text(markdown(c, data_line, str(plot)), encoding="utf-8")
    return [out / name for name in FILES]


__all__ = ["print_comparison", "markdown", "plot_pairs", "write_comparison"]
