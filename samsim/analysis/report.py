"""Win-rate reports: what a person reads after a run, in the terminal (rich) and on disk
(Markdown with PNG plots).

Rendering lives here, not in the CLI, so that a notebook user gets the same tables from the same
counts (``samsim.stats.tally.Tally``). A report reads its inputs chunk by chunk, so one of ten million
games needs no more memory than one of ten thousand.
"""

from __future__ import annotations

from dataclasses import dataclass, field
from pathlib import Path

import numpy as np
import pandas as pd
from rich import box
from rich.console import Console
from rich.table import Table

import samsim
from samsim.components import GameData
from samsim.stats.tally import Tally

#: The grouping of each table of a report, and the column header naming it.
GROUPINGS = (("strategy", "strategy"), ("seat", "seat"))
FILES = ("report.md", "win_rate_by_seat.png", "score_by_strategy.png", "money_by_round.png")


def data_note(data: GameData) -> str:
    """Which data file produced the numbers, and whether it holds assumed values (said once per
    report: docs/rules.md, section 2)."""
    return _data_note(data.source, data.sha256, data.assumed)


def _data_note(source: str, sha256: str, assumed) -> str:
    note = f"data: {Path(source).name} (sha256 {sha256[:12]})"
    if assumed:
        note += f"; assumed values, not confirmed from a physical copy: {', '.join(assumed)}"
    return note


@dataclass
class Report:
    """The counts of one or more result files or folders, and where they came from."""

    tally: Tally
    sources: list[tuple[str, dict]] = field(default_factory=list)  # (path, run metadata)

    @property
    def player_counts(self) -> list[int]:
        return sorted({int(p) for p in self.tally.seats.index.get_level_values("players")})

    def summary(self, players: int, by: str) -> pd.DataFrame:
        """Rows of one player count by strategy (strongest first) or by seat."""
        table = self.tally.summary(("players", by)).xs(players, level="players")
        if by == "strategy":
            table = table.sort_values("win_rate", ascending=False, kind="stable")
        return table

    def meetings(self, players: int) -> pd.DataFrame:
        """Games in which each two strategies sat at one table (the design's meeting table)."""
        met = self.tally.meetings["n"].xs(players, level="players").unstack("b", fill_value=0)
        return met.loc[met.index, met.index]

    def meeting_line(self, players: int) -> str:
        met = self.meetings(players).to_numpy()
        off = met[~np.eye(len(met), dtype=bool)]
        if not len(off):
            return ""
        if off.min() == off.max():
            return f"every two strategies met in {int(off.min()):,} games"
        return (f"warning: strategies met unequally often ({int(off.min()):,} to "
                f"{int(off.max()):,} games): these win rates compare unlike fields")

    def notes(self) -> list[str]:
        """One line per input (seed, games, design, version), and the data files used."""
        lines = []
        for path, meta in self.sources:
            games = meta.get("described", f"{meta.get('games_found', 0):,} games")
            if not meta.get("complete", True):
                games = f"PARTIAL: {games} (finish it with --resume)"
            lines.append(f"{path}: {meta.get('players')} players, {games}, seed {meta.get('seed')}, "
                         f"samsim {meta.get('samsim_version')}{_design(meta)}")
        if self.sources:  # one data file: load_report refuses to pool two
            meta = self.sources[0][1]
            lines.append(_data_note(meta.get("data_file", "?"), meta.get("data_sha256", "?"),
                                    meta.get("data_assumed", ())))
        for source, players, check in self.tally.chunk_checks():
            where = f"{source} ({players} players)" if source else f"{players} players"
            lines.append(f"{'warning: ' if check.rejected else ''}{where}: seat wins per chunk: "
                         f"{check.summary()}")
        return lines


def _design(meta: dict) -> str:
    """How the run seated its strategies, where it had a pool."""
    from samsim.engine.designs import design_size

    if "pool" not in meta:
        return ""
    size = design_size(int(meta["players"]), len(meta["pool"]))
    passes = meta.get("games_found", 0) / size
    whole = "" if float(passes).is_integer() else " (not whole: unbalanced until finished)"
    return (f"; pool of {len(meta['pool'])} seated by the balanced design ({size:,} seatings a "
            f"pass: every strategy in every seat and every two in every pair of seats equally "
            f"often), {passes:g} pass{'es' * (passes != 1)}{whole}")


def load_report(paths, partial: bool = False) -> Report:
    """Tally the result files or run folders ``paths`` (chunk by chunk); rounds are included
    where they were recorded.

    Refused, since each would print wrong numbers: a run that is not whole (unless ``partial``:
    then it is reported as what it is), two inputs sharing games (the same seed and player
    count over overlapping game ids: the same deals, counted as if independent), and one
    strategy name standing for different code in different inputs."""
    from samsim.runs import results

    report = Report(Tally())
    surveys = [results.survey(path) for path in paths]
    for checked in surveys:
        if not checked.complete and not partial:
            busy = results.writer(checked.path) if checked.path.is_dir() else None
            if busy:
                raise results.ResultsError(
                    f"{checked.path} is being written now (by {busy}; {checked.describe()} so far): "
                    f"wait for it to finish, or add --partial to report what it holds")
            state = ("unfinished" if not checked.marked_complete else "damaged: chunks are missing")
            raise results.ResultsError(
                f"{checked.path} is not a whole run ({state}; {checked.describe()}): finish it "
                f"with --resume, or add --partial to report what it holds")
    _check_disjoint(surveys)
    _check_same_code(surveys)
    _check_same_data(surveys)
    for path, checked in zip(paths, surveys):
        meta = checked.metadata()
        for frame in checked.frames():
            report.tally.add(frame, str(path))
        if "rounds" in meta.get("record", []):
            for frame in results.survey(checked.path, "rounds").frames():
                report.tally.add_rounds(frame)
        report.sources.append((str(path), {**meta, "described": checked.describe()}))
    if report.tally.n_games == 0:
        raise results.ResultsError(f"no finished games in {', '.join(map(str, paths))}")
    return report


def _check_disjoint(surveys) -> None:
    """Two inputs with one seed and player count share deals where their game ids meet."""
    for i, a in enumerate(surveys):
        for b in surveys[i + 1:]:
            if (a.config.get("seed"), a.config.get("players")) != \
                    (b.config.get("seed"), b.config.get("players")):
                continue
            shared = [(max(x0, y0), min(x1, y1)) for x0, x1 in a.spans for y0, y1 in b.spans
                      if max(x0, y0) < min(x1, y1)]
            if shared:
                first, stop = shared[0]
                same = " (the same run twice)" if a.path.resolve() == b.path.resolve() else ""
                raise ValueError(
                    f"{a.path} and {b.path} both hold games {first:,}..{stop - 1:,} of seed "
                    f"{a.config.get('seed')} at {a.config.get('players')} players{same}: those "
                    f"games share their deals, and pooling them would count them as independent; "
                    f"give runs with different seeds")


def _check_same_data(surveys) -> None:
    """Runs of two data files are two games: one table of both would describe neither."""
    first = surveys[0]
    for checked in surveys[1:]:
        if checked.config.get("data_sha256") != first.config.get("data_sha256"):
            raise ValueError(
                f"{first.path} and {checked.path} were played with different data files "
                f"({Path(first.config.get('data_file', '?')).name} sha256 "
                f"{str(first.config.get('data_sha256'))[:12]}, "
                f"{Path(checked.config.get('data_file', '?')).name} sha256 "
                f"{str(checked.config.get('data_sha256'))[:12]}): report them separately (samsim "
                f"run's sensitivity kind compares rules variants)")


def _check_same_code(surveys) -> None:
    seen: dict[str, tuple[str, Path]] = {}
    for checked in surveys:
        for name, digest in checked.config.get("strategy_sources", {}).items():
            earlier = seen.setdefault(name, (digest, checked.path))
            if earlier[0] != digest:
                raise ValueError(
                    f"strategy {name} is different code in {earlier[1]} (source {earlier[0]}) and "
                    f"{checked.path} (source {digest}): their results cannot be pooled under one "
                    f"name; report them separately")


# ------------------------------------------------------------------------------------ terminal

_HEADERS = ("games", "wins", "win\nrate", "{ci}\n(win rate)", "mean\nscore", "median\nscore",
            "sd")


def number(x: float) -> str:
    """A count or a half (a median of whole scores) as written, never in exponent form:
    "1e+09" beside a mean of 1,000,000,212.45 would read as another number."""
    return f"{x:,.1f}".removesuffix(".0")


def _cells(row: pd.Series) -> list[str]:
    wins = float(row["wins"])
    return [f"{int(row['games']):,}", f"{wins:,.0f}" if wins.is_integer() else f"{wins:,.1f}",
            f"{row['win_rate']:.2%}", f"{100 * row['win_low']:.2f}-{row['win_high']:.2%}",
            f"{row['mean']:.2f}", number(row['median']), f"{row['sd']:.2f}"]


def numbers_table(headers, rows, title: str | None = None, prose=()) -> Table:
    """A terminal table whose numbers are never cut: each number column is as wide as its widest
    cell, and a narrow terminal folds the first column (a long strategy spec), the ``prose``
    columns (indices: sentences) and the headers instead. Rich would otherwise shorten "36.62%"
    to "36.6…", a different number, or squeeze a column out of sight beside a long sentence."""
    rows = [[str(cell) for cell in row] for row in rows]
    table = Table(title=title, title_justify="left", box=box.SIMPLE_HEAD, padding=(0, 0, 0, 1),
                  show_edge=False)
    for k, header in enumerate(headers):
        widest = max((len(row[k]) for row in rows), default=1)
        if k == 0 or k in prose:
            table.add_column(header, justify="left", overflow="fold", min_width=min(widest, 12))
        else:
            table.add_column(header, justify="right", no_wrap=True, min_width=widest)
    for row in rows:
        table.add_row(*row)
    return table


def summary_table(summary: pd.DataFrame, key: str, title: str | None = None) -> Table:
    """A rich table of ``Tally.summary`` rows (one per strategy or seat)."""
    confidence = summary.attrs.get("confidence", 0.95)
    headers = [key, *(h.format(ci=f"{confidence:.0%} CI") for h in _HEADERS)]
    return numbers_table(headers, [[str(name), *_cells(row)] for name, row in summary.iterrows()],
                         title)


def print_report(report: Report, console: Console) -> None:
    games = report.tally.game_summary()
    for players in report.player_counts:
        played = int(games.loc[players, "games"])
        console.print(f"[bold]{players} players[/bold]: {played:,} games; fair share "
                      f"{1 / players:.1%} per seat; wins count draws as shared")
        for key, _ in GROUPINGS:
            summary = report.summary(players, key)
            if key == "strategy" and len(summary) == 1:
                continue
            console.print(summary_table(summary, key))
            console.print()
        if len(report.summary(players, "strategy")) > 1:
            console.print(report.meeting_line(players), markup=False)
        row = games.loc[players]
        console.print(f"draws {row['draws']:.2%} of games; winner-to-last spread of final score: "
                      f"mean {row['spread_mean']:.1f}, median {number(row['spread_median'])}, "
                      f"90% of games within {number(row['spread_q90'])}")
        console.print()
    for line in report.notes():
        console.print(line, markup=False, style="yellow" if "assumed" in line or
                      "warning" in line or "interrupted" in line else None)


# ------------------------------------------------------------------------------------ Markdown


def _markdown_table(summary: pd.DataFrame, key: str) -> str:
    confidence = summary.attrs.get("confidence", 0.95)
    headers = [key, "games", "wins", "win rate", f"{confidence:.0%} CI", "mean score",
               "median score", "sd"]
    lines = ["| " + " | ".join(headers) + " |",
             "| " + " | ".join(["---"] + ["---:"] * (len(headers) - 1)) + " |"]
    for name, row in summary.iterrows():
        name = f"`{name}`" if key == "strategy" else str(name)
        lines.append("| " + " | ".join([name, *_cells(row)]) + " |")
    return "\n".join(lines)


def _cross_table(report: Report, players: int) -> str:
    """Win rate of each strategy in each seat (a pool seated by a balanced design)."""
    table = report.tally.summary(("players", "strategy", "seat")).xs(players, level="players")
    rates = table["win_rate"].unstack("seat")
    seats = list(rates.columns)
    lines = ["| strategy | " + " | ".join(f"seat {s}" for s in seats) + " |",
             "| --- | " + " | ".join("---:" for _ in seats) + " |"]
    for name, row in rates.iterrows():
        cells = ["" if pd.isna(v) else f"{v:.1%}" for v in row]
        lines.append(f"| `{name}` | " + " | ".join(cells) + " |")
    return "\n".join(lines)


def markdown(report: Report, plots: list[str]) -> str:
    games = report.tally.game_summary()
    parts = ["# Win-rate report", "",
             f"samsim {samsim.__version__}. Wins count draws as shared (1/k each); intervals are "
             f"95% Wilson score intervals with games as the independent units (a strategy's "
             f"seats of one game are correlated: one winner at most); the score is final money "
             f"with each unused special tile counted as 3. Results hold for these strategies, "
             f"this field and this data only.", ""]
    parts += [f"- {line}" for line in report.notes()] + [""]
    for players in report.player_counts:
        row = games.loc[players]
        parts += [f"## {players} players", "",
                  f"{int(row['games']):,} games; fair share {1 / players:.1%} per seat; draws "
                  f"{row['draws']:.2%}; winner-to-last spread of final score: mean "
                  f"{row['spread_mean']:.1f}, median {number(row['spread_median'])}, 90% quantile "
                  f"{number(row['spread_q90'])}.", ""]
        for key, _ in GROUPINGS:
            summary = report.summary(players, key)
            if key == "strategy" and len(summary) == 1:
                continue
            parts += [f"### By {key}", "", _markdown_table(summary, key), ""]
        if len(report.summary(players, "strategy")) > 1:
            parts += ["### Win rate by strategy and seat", "", _cross_table(report, players), ""]
            met = report.meetings(players)
            parts += ["### Games in which each two strategies met", "",
                      report.meeting_line(players) + ".", "",
                      "| | " + " | ".join(f"`{c}`" for c in met.columns) + " |",
                      "| --- | " + " | ".join("---:" for _ in met.columns) + " |"]
            parts += [f"| `{a}` | " + " | ".join("" if a == b else f"{v:,}" for b, v in row.items())
                      + " |" for a, row in met.iterrows()] + [""]
    if plots:
        parts += ["## Plots", ""]
        parts += [f"![{Path(p).stem.replace('_', ' ')}]({Path(p).name})" for p in plots] + [""]
    return "\n".join(parts)


def write_report(report: Report, out: str | Path) -> list[Path]:
    """``report.md`` and its PNG plots in folder ``out``; returns the files written."""
    from samsim.analysis import plots
    from samsim.runs.results import prepare_output_dir, write_text

    out = prepare_output_dir(out)
    written = plots.draw_all(report, out)
    path = write_text(out / "report.md", markdown(report, [str(p) for p in written]))
    return [path, *written]


__all__ = ["Report", "load_report", "print_report", "number", "numbers_table", "summary_table",
           "markdown", "write_report",
           "data_note"]
