"""Commands that play games and show them: ``simulate``, ``play``, ``trace``, ``strategies``,
``bench``."""

from __future__ import annotations

import sys
from pathlib import Path
from typing import Annotated, Optional

import typer

from samsim.cli.app import (
    DEFAULT_CHUNK,
    RulesOption,
    SchedulerOption,
    ThreadsOption,
    WorkersOption,
    app,
    console,
    fail,
    load_rules,
    BackendOption,
    playing_on,
    record_option,
    seating,
    status_console,
)
from samsim.cli.progress import Bar, print_summary, run_with_bar, warm_up


@app.command(epilog="Example: samsim simulate --players 4 --games 1000000 --seed 7 "
                    "--strategies random,greedy,undercut,saver --out results/run1")
def simulate(
    players: Annotated[int, typer.Option(help="Number of players (seats), 3..6.")] = 4,
    games: Annotated[int, typer.Option(help="Number of games to play (rounded up to a multiple "
                                            "of the pool with --pool).")] = 100000,
    seed: Annotated[int, typer.Option(help="Seed of the run (0..2**64-1): the same seed gives the "
                                            "same games, for any thread count or chunk size.")] = 7,
    strategies: Annotated[Optional[str], typer.Option(
        help="Strategy of each seat, comma-separated (as many as --players), or one for all; "
             "parameters in parentheses, e.g. 'lookahead,greedy,undercut(margin=2),random'. "
             "Default: random. See 'samsim strategies'.")] = None,
    pool: Annotated[Optional[str], typer.Option(
        help="Strategies seated by a balanced design, comma-separated: every strategy in every "
             "seat, and every two in every pair of seats, equally often (README 'Statistics').")]
        = None,
    rules: RulesOption = None,
    threads: ThreadsOption = None,
    scheduler: SchedulerOption = None,
    workers: WorkersOption = None,
    backend: BackendOption = "cpu",
    chunk_size: Annotated[int, typer.Option(help="Games played and written per chunk: memory "
                                                 "grows with it, not with --games.")] = DEFAULT_CHUNK,
    out: Annotated[Optional[Path], typer.Option(
        metavar="DIR", help="Run folder to write: run.json and one Parquet file per chunk "
                            "(README 'Results'). Without it nothing is saved.")] = None,
    resume: Annotated[bool, typer.Option(
        "--resume", help="Finish an interrupted run in --out (same options as it was started "
                         "with): only the missing chunks are played.")] = False,
    overwrite: Annotated[bool, typer.Option(
        "--overwrite", help="Replace the run already in --out.")] = False,
    record: Annotated[Optional[str], typer.Option(
        metavar="rounds", help="Also record each seat's money, rooms filled, card and tile at "
                               "the end of every round (table 'rounds').")] = None,
):
    """Play games and write one Parquet row per game and seat; ends with a win-rate summary."""
    from samsim.engine import checked
    from samsim.engine.designs import whole_passes

    data = load_rules(rules)
    try:
        seats = seating(players, strategies, pool)
        if (resume or overwrite) and out is None:
            raise ValueError(f"{'--resume' if resume else '--overwrite'} needs --out DIR")
        recorded = record_option(record)
        total = whole_passes(games, seats)
        if total != games:
            status_console.print(f"games rounded up to {total:,}: whole passes through the "
                                 f"pool's balanced design of {len(seats.seatings):,} seatings",
                                 markup=False)
        # Bad sizes in one line, before the GPU or cluster says where the games will go.
        checked(total, players, seed, data, None, chunk_size, None, seats)
        with playing_on(scheduler, workers, threads, backend):
            tally, played, seconds = run_with_bar(total, players, seed, data, seats, chunk_size,
                                                  threads, out, resume, overwrite, recorded)
    except (ValueError, OSError) as error:
        fail(str(error))
    print_summary(tally, out, played, seconds)


@app.command(epilog="Example: samsim play --seed 7 --game 3 --strategies "
                    "greedy,undercut,holiday,saver")
def play(
    seed: Annotated[int, typer.Option(help="Seed of the run the game belongs to.")] = 7,
    game: Annotated[int, typer.Option(help="Game id within that run.")] = 0,
    players: Annotated[int, typer.Option(help="Number of players (seats), 3..6.")] = 4,
    strategies: Annotated[Optional[str], typer.Option(
        help="Strategy of each seat, or one for all (as for simulate).")] = None,
    pool: Annotated[Optional[str], typer.Option(
        help="A simulate --pool: the game is seated as that run seated it.")] = None,
    rules: RulesOption = None,
    json_out: Annotated[bool, typer.Option(
        "--json", help="Print the game as JSON (provenance, events, rounds, final) instead.")]
    = False,
):
    """Play one game and tell it round by round: flags, tourists, cards, builds, guests and
    payments, money after each round, the final ranking."""
    import json

    from samsim.runs import narrate

    data = load_rules(rules)
    try:
        seats = seating(players, strategies, pool)
        told = narrate.play(players, seed, game, data, seats)
    except (ValueError, OSError) as error:
        fail(str(error))
    if json_out:
        print(json.dumps(narrate.to_json(told), indent=1))
    else:
        narrate.print_game(told, console)


@app.command("strategies", epilog="Example: samsim strategies")
def list_strategies():
    """List the strategies (built-in and ./strategies/*.py) with their parameters and defaults."""
    from rich import box
    from rich.table import Table

    from samsim.engine.registry import available, load_strategy

    table = Table(box=box.SIMPLE_HEAD, show_edge=False, padding=(0, 1, 0, 0))
    for header in ("strategy", "idea", "parameters (default, range)"):
        table.add_column(header, overflow="fold")
    try:
        infos = [load_strategy(name) for name in available()]
    except ValueError as error:
        fail(str(error))
    for info in infos:
        params = []
        for name, default in info.defaults.items():
            lo, hi = info.limits.get(name, (None, None))
            limits = f", {lo:g}..{hi:g}" if lo is not None else ""
            params.append(f"{name}={default:g}{limits}")
        table.add_row(info.name, info.idea, "\n".join(params) or "-")
    console.print(table)
    console.print("Use them as --strategies greedy,undercut(margin=2),... or --pool; a file "
                  "./strategies/NAME.py adds NAME (README 'Write your own strategy').",
                  markup=False)


@app.command(epilog="Example: samsim bench --games 200000 --markdown bench.md")
def bench(
    games: Annotated[Optional[int], typer.Option(
        help="Games per measurement (x threads, up to 4x, for scaling); default 100,000, on a "
             "GPU 4,194,304.")] = None,
    reference_games: Annotated[int, typer.Option(
        help="Games for the reference engine (about 1,000 games/s).")] = 500,
    compile: Annotated[bool, typer.Option(
        "--compile", help="Also time compiling from an empty cache (several minutes).")] = False,
    markdown: Annotated[Optional[Path], typer.Option(metavar="FILE",
                                                     help="Also write the tables here.")] = None,
    scheduler: SchedulerOption = None,
    workers: WorkersOption = None,
    backend: BackendOption = "cpu",
):
    """Measure this machine: games/s per core for each player count and for the line-ups users
    study (random, greedy, undercut, lookahead, the showdown pool), on all threads and on a
    cluster if given, scaling with threads, speed-up over the reference engine."""
    from rich import box
    from rich.table import Table

    from samsim.engine import bench as measure

    try:
        if (games is not None and games < 1) or reference_games < 1:
            raise ValueError("--games and --reference-games must be at least 1")
        if markdown is not None and not markdown.parent.is_dir():
            raise ValueError(f"cannot write {markdown}: folder {markdown.parent} does not exist")
        if backend == "cuda" and (scheduler is not None or workers is not None or compile):
            raise ValueError("bench --backend cuda measures this machine's GPU: leave out "
                             "--scheduler, --workers and --compile")
        with playing_on(scheduler, workers, None, backend), \
                status_console.status("measuring...") as status:
            def note(text):
                status.update(f"measuring: {text}")

            if backend == "cuda":
                result = measure.run_gpu(games=games or measure.GPU_GAMES, note=note)
            else:
                result = measure.run(games=games or 100_000, reference_games=reference_games,
                                     compile=compile, note=note)
    except (ValueError, OSError) as error:
        fail(str(error))
    for headers, rows in measure.tables(result):
        table = Table(box=box.SIMPLE_HEAD, show_edge=False)
        for h in headers:
            table.add_column(h, justify="right")
        for row in rows:
            table.add_row(*row)
        console.print(table)
    if result.compile:
        console.print(f"compile: cold {result.compile['cold']:.1f} s, warm "
                      f"{result.compile['warm']:.1f} s")
    console.print(f"machine: {result.machine}", markup=False)
    if result.device:
        console.print(f"GPU: {result.device}", markup=False)
    if result.cluster:
        console.print(f"cluster: {result.cluster}", markup=False)
    if markdown is not None:
        try:
            from samsim.runs.results import write_text
            write_text(markdown, measure.markdown(result))
        except ValueError as error:
            fail(str(error))


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
    from samsim.runs import trace as tracing

    data = load_rules(rules)
    first: list[str] = []  # the first game's lines: all that is kept of the games written
    events = 0
    try:
        if games < 1:
            raise ValueError(f"games must be at least 1, got {games}")
        if start < 0:
            raise ValueError(f"start must not be negative, got {start}")
        if out is None:  # only the first game is shown: playing the others would be lost work
            first = tracing.trace_games(players, seed, [start], data)["text"].tolist()
        else:
            tracing.check_trace_path(out)
            ids = range(start, start + games)
            tracing.trace_chunks(players, seed, ids, data)  # checks the arguments, plays nothing
            bar = Bar("tracing", games)

            def progress(n, frame):
                nonlocal events
                if not first:
                    first.extend(frame.loc[frame["game"] == start, "text"])
                events += len(frame)
                bar.advance(n)

            with bar:
                warm_up(players, seed, data, None, None)  # the load is not timed as games/s
                bar.begin()
                tracing.write_games(players, seed, ids, data, out, progress=progress)
    except (ValueError, OSError) as error:
        fail(str(error))
    except KeyboardInterrupt:
        print("samsim: interrupted; no trace written", file=sys.stderr)
        raise typer.Exit(130)

    print(f"game {start} of seed {seed}, {players} players: {len(first)} events")
    for line in first:
        print(line)
    if out is not None:
        print(f"trace of {games} game{'s' if games != 1 else ''} ({events} events): {out}",
              file=sys.stderr)
