"""The ``samsim`` command: parses arguments, calls the library, prints what it returns.

Nothing here computes anything a notebook user could not get from the same library call
(``samsim.results.run_simulation``, ``samsim.stats.seat_summary``, ``samsim.trace.trace_games``).
Bad input is the user's mistake, not a crash: it ends with one line on stderr and exit code 2,
never a traceback.
"""

from __future__ import annotations

import os
import sys
import time
from pathlib import Path
from typing import Annotated, Optional

import typer
from rich.console import Console
from rich.progress import (BarColumn, MofNCompleteColumn, Progress, ProgressColumn, TextColumn,
                           TimeElapsedColumn, TimeRemainingColumn)
from rich.text import Text

import samsim
from samsim import components

#: Exit code of every bad-input error (as for click's own usage errors).
BAD_INPUT = 2
DEFAULT_CHUNK = 16384  # samsim.engine.DEFAULT_CHUNK; repeated so `--help` need not import numba

console = Console(highlight=False)
status_console = Console(stderr=True, highlight=False)  # progress and status, kept out of stdout


def _fail(message: str, code: int = BAD_INPUT):
    """One line on stderr and a non-zero exit: the whole contract for bad input."""
    line = " ".join(str(message).split())
    print(f"samsim: error: {line}", file=sys.stderr)
    raise typer.Exit(code)


class _App(typer.Typer):
    """Typer with click's usage errors (a non-integer ``--players``, an unknown option) reported
    in one line like samsim's own, instead of a framed usage box."""

    def __call__(self, *args, **kwargs):
        kwargs.setdefault("standalone_mode", False)
        try:
            rc = super().__call__(*args, **kwargs)
        except typer.Abort:
            print("samsim: aborted", file=sys.stderr)
            sys.exit(1)
        except BrokenPipeError:  # `samsim trace | head`: the reader has gone, which is fine
            os.dup2(os.open(os.devnull, os.O_WRONLY), sys.stdout.fileno())
            sys.exit(1)
        except Exception as error:  # click's exceptions, without importing typer's vendored click
            if type(error).__name__ == "NoArgsIsHelpError":  # bare `samsim`: its message is the help
                print(error.format_message())
                sys.exit(0)
            if hasattr(error, "format_message") and hasattr(error, "exit_code"):
                ctx = getattr(error, "ctx", None)
                hint = f" (see '{ctx.command_path} --help')" if ctx is not None else ""
                line = " ".join(error.format_message().split())
                print(f"samsim: error: {line}{hint}", file=sys.stderr)
                sys.exit(error.exit_code)
            raise
        sys.exit(rc if isinstance(rc, int) else 0)


def _version(value: bool):
    if value:
        print(f"samsim {samsim.__version__}")
        raise typer.Exit()


app = _App(
    name="samsim",
    help="Monte Carlo simulator of the board game Hotel Samoa.",
    epilog="Example: samsim simulate --players 4 --games 200000 --seed 7",
    no_args_is_help=True,
    add_completion=False,
    pretty_exceptions_enable=False,
    rich_markup_mode=None,
    context_settings={"help_option_names": ["-h", "--help"]},
)


@app.callback()
def _main(version: Annotated[bool, typer.Option(
        "--version", callback=_version, is_eager=True, help="Print the version and exit.")] = False):
    """Monte Carlo simulator of the board game Hotel Samoa."""


def _load_rules(rules: Path | None) -> components.GameData:
    try:
        return components.load(rules)
    except components.ComponentDataError as error:
        _fail(str(error))


RulesOption = Annotated[Optional[Path], typer.Option(
    "--rules", metavar="FILE",
    help="Component data file (a rules variant); default: the packaged hotel_samoa.toml.")]


class _GamesPerSecond(ProgressColumn):
    """Average rate since the start: chunks arrive seconds apart, so rich's windowed speed would
    jump between zero and peaks."""

    def render(self, task) -> Text:
        elapsed = task.elapsed or 0
        rate = task.completed / elapsed if elapsed > 0 else 0
        return Text(f"{rate:,.0f} games/s", style="cyan")


@app.command(epilog="Example: samsim simulate --players 4 --games 200000 --seed 7 --out runs/p4")
def simulate(
    players: Annotated[int, typer.Option(help="Number of players (seats).")] = 4,
    games: Annotated[int, typer.Option(help="Number of games to play.")] = 100000,
    seed: Annotated[int, typer.Option(help="Seed of the run (0..2**64-1): the same seed gives the "
                                            "same games, for any thread count.")] = 7,
    threads: Annotated[Optional[int], typer.Option(
        help="Threads to use (default: all Numba threads).")] = None,
    chunk_size: Annotated[int, typer.Option(help="Games played per batch.")] = DEFAULT_CHUNK,
    rules: RulesOption = None,
    out: Annotated[Optional[Path], typer.Option(
        metavar="DIR", help="Folder to write results.parquet to (one row per game and seat, "
                            "with the run's configuration in its metadata).")] = None,
    strategies: Annotated[str, typer.Option(
        help="Strategy of each seat, comma-separated (as many as --players), or one for all; "
             "parameters in parentheses, e.g. 'lookahead,greedy,undercut(margin=2),random'.")]
    = "random",
):
    """Play games and report each seat's results."""
    from samsim import engine, results
    from samsim.report import data_note, seat_table
    from samsim.stats import seat_summary

    from samsim.strategy import lineup, split_specs

    data = _load_rules(rules)
    try:
        specs = split_specs(strategies)
        seats = lineup(players, specs if len(specs) > 1 else specs[0])
        engine.simulate_chunks(games, players, seed, data, chunk_size=chunk_size, threads=threads,
                               strategies=seats)
        if out is not None:
            results.prepare_output_dir(out)
        # One game first, so the bar's games/s measures play, not loading (or, on the first run
        # after an install, compiling) the kernel.
        with status_console.status("Loading the compiled kernel (the first run after an install "
                                   "compiles it: about 3 minutes)..."):
            engine.run_batch(1, players, seed, 0, data, threads=threads, strategies=seats)
        progress = Progress(TextColumn("simulating"), BarColumn(), MofNCompleteColumn(),
                            _GamesPerSecond(), TimeElapsedColumn(), TimeRemainingColumn(),
                            console=status_console)
        started = time.perf_counter()
        with progress:
            task = progress.add_task("games", total=games)
            df = results.run_simulation(games, players, seed, data, chunk_size=chunk_size,
                                        threads=threads, out=out, strategies=seats,
                                        progress=lambda n: progress.advance(task, n))
        seconds = time.perf_counter() - started
    except (ValueError, OSError) as error:
        _fail(str(error))

    title = f"{players} players, {games:,} games, seed {seed}: {', '.join(seats.specs())}"
    console.print(seat_table(seat_summary(df), title=title))
    console.print()
    console.print(f"{games:,} games in {seconds:.2f} s ({games / seconds:,.0f} games/s); "
                  "wins count draws as shared (1/k each).")
    console.print(data_note(data), style="yellow" if data.assumed else None, markup=False)
    if out is not None:
        console.print(f"results: {out / results.RESULTS_FILE}", markup=False)


@app.command(epilog="Example: samsim trace --players 4 --seed 7 --games 1 --out game0.jsonl")
def trace(
    players: Annotated[int, typer.Option(help="Number of players (seats).")] = 4,
    seed: Annotated[int, typer.Option(help="Seed of the run the games belong to.")] = 7,
    games: Annotated[int, typer.Option(help="Number of games to trace.")] = 1,
    start: Annotated[int, typer.Option(help="Id of the first game to trace (games start .. "
                                             "start+games-1 of the run).")] = 0,
    rules: RulesOption = None,
    out: Annotated[Optional[Path], typer.Option(
        metavar="FILE", help="Trace file to write: .jsonl (JSON lines) or .parquet; either "
                             "records seed, players, data hash and version.")] = None,
):
    """Record every event of some games, write them to a file and print the first game's log."""
    from samsim import trace as tracing

    data = _load_rules(rules)
    try:
        if games < 1:
            raise ValueError(f"games must be at least 1, got {games}")
        if start < 0:
            raise ValueError(f"start must not be negative, got {start}")
        if out is not None:
            tracing.check_trace_path(out)
        df = tracing.trace_games(players, seed, range(start, start + games), data)
        if out is not None:
            tracing.write_trace(df, out)
    except (ValueError, OSError) as error:
        _fail(str(error))

    first = df[df["game"] == start]
    print(f"game {start} of seed {seed}, {players} players: {len(first)} events")
    for line in first["text"]:
        print(line)
    if out is not None:
        print(f"trace of {games} game{'s' if games != 1 else ''} ({len(df)} events): {out}",
              file=sys.stderr)


if __name__ == "__main__":  # pragma: no cover
    app()
