"""Comparison reports (``samsim compare``): verdicts first, then the numbers behind them, in the
terminal (rich), in Markdown, and as a plot of every pair's difference with its interval.

Effect sizes and intervals lead; p-values follow. At millions of games everything is
"significant", and what a designer needs is how large a difference is and how sure we are of it.
"""

from __future__ import annotations

from pathlib import Path

from rich.console import Console

import samsim
from samsim.analysis.compare import Comparison
from samsim.analysis.report import numbers_table
from samsim.stats.inference import format_p

FILES = ("compare.md", "pairs.png", "pairs.csv", "ranking.csv")


def _pair_cells(row) -> list[str]:
    return [f"{row['a']} − {row['b']}", f"{row['groups']:,}", f"{row['win_diff']:+.2f}",
            f"{row['win_low']:+.2f}…{row['win_high']:+.2f}", f"{row['money_diff']:+.2f}",
            f"{row['money_low']:+.2f}…{row['money_high']:+.2f}", f"{row['effect_size']:+.2f}",
            format_p(row["p_value"]), format_p(row["p_adjusted"]),
            format_p(row["p_equivalent"])]


#: Win rate in points, final money in coins, both first minus second; d_z = mean / sd of groups.
PAIR_HEADERS = ("pair", "groups", "win pts", "{ci} CI", "coins", "{ci} CI", "d_z", "p",
                "adj. p", "equiv. p")
RANK_HEADERS = ("strategy", "win rate", "95% CI", "P-L strength", "95% CI")


#: The terminal's columns (80 wide): the rest (groups, money interval, d_z, unadjusted and
#: equivalence p) are in the Markdown and the CSV.
TERMINAL = (0, 2, 3, 4, 8)


def _headers(c: Comparison) -> tuple[str, ...]:
    """Sequential runs have no fixed-sample p-values (the stop makes them invalid)."""
    ci = "CS" if c.sequential else f"{c.confidence:.1%}".replace(".0%", "%")
    headers = tuple(h.format(ci=ci) for h in PAIR_HEADERS)
    return headers if c.sequential is None else headers[:6]


def _rank_cells(row) -> list[str]:
    return [str(row["strategy"]), f"{100 * row['win_rate']:.2f}%",
            f"{100 * row['win_low']:.2f}–{100 * row['win_high']:.2f}%",
            f"{row['strength']:+.3f}", f"{row['low']:+.3f} … {row['high']:+.3f}"]


RANK_NOTE = ("win rate: each strategy's own share of its games' wins (draws shared), 95% "
             "interval over groups; P-L strength: Plackett-Luce log-worth fitted to every game's "
             "finishing order among the compared strategies (so it ranks finishing ahead, not "
             "only winning), mean 0, 95% bootstrap interval over {units:,} groups "
             "({resamples:,} resamples)")


def print_comparison(c: Comparison, console: Console, data_line: str = "") -> None:
    for line in c.description():
        console.print(line, markup=False)
    console.print()
    pairs, ranking = c.pairs_frame(), c.ranking_frame()
    for verdict in pairs["verdict"]:
        console.print(f"[bold]{verdict}[/bold]")
    console.print()
    headers = _headers(c)
    shown = [k for k in TERMINAL if k < len(headers)]
    console.print(numbers_table(
        [headers[k] for k in shown],
        [[cells[k] for k in shown] for cells in map(_pair_cells, (r for _, r in pairs.iterrows()))],
        "first minus second: win rate in points, final money in coins"))
    console.print()
    console.print(numbers_table(RANK_HEADERS, [_rank_cells(r) for _, r in ranking.iterrows()],
                                "each strategy's win rate, and its Plackett-Luce strength"))
    console.print(RANK_NOTE.format(units=c.ratings.units, resamples=c.ratings.resamples),
                  markup=False)
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
              "Win rate in points, final money in coins; intervals simultaneous over the pairs; "
              "d_z: mean over the standard deviation of the group differences; p: one pair's "
              "t test; adj. p: Bonferroni over the pairs (the verdicts' test); equiv. p: the "
              "equivalence test for the margin, adjusted likewise.", "",
              "| " + " | ".join(headers) + " |",
              "| --- | " + " | ".join("---:" for _ in headers[1:]) + " |"]
    parts += ["| " + " | ".join(_pair_cells(row)[:len(headers)]) + " |"
              for _, row in pairs.iterrows()]
    parts += [""]
    parts += ["## Win rates and ranking", "",
              RANK_NOTE.format(units=c.ratings.units, resamples=c.ratings.resamples) + ".", "",
              "| " + " | ".join(RANK_HEADERS) + " |", "| --- | ---: | ---: | ---: | ---: |"]
    parts += ["| " + " | ".join(_rank_cells(r)) + " |" for _, r in ranking.iterrows()] + [""]
    diffs = c.ratings.differences(c.contestants)
    parts += ["Differences of Plackett-Luce strength (first minus second), 95% bootstrap "
              "intervals:", "", "| pair | difference | 95% CI |", "| --- | ---: | ---: |"]
    parts += [f"| {r['a']} − {r['b']} | {r['diff']:+.3f} | {r['low']:+.3f} … {r['high']:+.3f} |"
              for _, r in diffs.iterrows()] + [""]
    meet = c.meetings()
    parts += ["## Design: games in which each two strategies met", "",
              "| | " + " | ".join(meet.columns) + " |",
              "| --- | " + " | ".join("---:" for _ in meet.columns) + " |"]
    parts += [f"| {name} | " + " | ".join("" if a == name else f"{v:,}" for a, v in row.items())
              + " |" for name, row in meet.iterrows()] + [""]
    if plot:
        parts += [f"![win-rate differences]({Path(plot).name})", ""]
    parts += ["## Notes", ""] + [f"- {line}" for line in [*c.notes(), data_line,
                                                           f"samsim {samsim.__version__}"] if line]
    return "\n".join(parts) + "\n"


def plot_pairs(c: Comparison, path: Path) -> Path:
    """Every pair's win-rate difference with its interval (a forest plot), zero marked."""
    from samsim.analysis.plots import _pyplot, _save

    plt = _pyplot()
    pairs = c.pairs_frame()
    fig, ax = plt.subplots(figsize=(7, 0.45 * len(pairs) + 1.4))
    y = range(len(pairs))[::-1]
    ax.errorbar(pairs["win_diff"], list(y), xerr=[pairs["win_diff"] - pairs["win_low"],
                                                  pairs["win_high"] - pairs["win_diff"]],
                fmt="o", capsize=3)
    ax.axvline(0, color="grey", lw=0.8)
    ax.set_yticks(list(y), [f"{a} − {b}" for a, b in zip(pairs["a"], pairs["b"])])
    ax.set_xlabel(f"win rate difference (points), simultaneous {1 - c.alpha:.0%} intervals")
    ax.set_title(f"{c.players} players, {c.games:,} games")
    return _save(plt, fig, path)


def write_comparison(c: Comparison, out, data_line: str) -> list[Path]:
    """``compare.md``, ``pairs.png`` and the two tables as CSV in folder ``out``."""
    from samsim.runs.results import prepare_output_dir, write_text

    out = prepare_output_dir(out)
    plot = plot_pairs(c, out / "pairs.png")
    write_text(out / "pairs.csv", c.pairs_frame().to_csv(index=False))
    write_text(out / "ranking.csv", c.ranking_frame().to_csv(index=False))
    write_text(out / "compare.md", markdown(c, data_line, str(plot)))
    return [out / name for name in FILES]


__all__ = ["print_comparison", "markdown", "plot_pairs", "write_comparison"]
