"""The ``samsim`` command: parses arguments, calls the library, prints what it returns.

Nothing here computes anything a notebook user could not get from the same library call
(``samsim.results.run_simulation``, ``samsim.report.load_report``, ``samsim.narrate.play``,
``samsim.bench.run``, ``samsim.trace.trace_games``).
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
                           TimeElapsedColumn)
from rich.text import Text

import samsim
from samsim import components

#: Exit code of every bad-input error (as for click's own usage errors).
BAD_INPUT = 2
DEFAULT_CHUNK = 16384  # samsim.engine.DEFAULT_CHUNK; repeated so `--help` need not import numba

#: Width of tables written to a file or a pipe: rich would cut them to 80 columns, and a
#: report saved with `> report.txt` must hold the whole table.
PIPED_WIDTH = 200
console = Console(highlight=False, width=None if sys.stdout.isatty() else PIPED_WIDTH)
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
        from samsim import interrupt

        kwargs.setdefault("standalone_mode", False)
        try:
            with interrupt.handlers():
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
ThreadsOption = Annotated[Optional[int], typer.Option(
    help="Threads to use (default: all Numba threads).")]


class _GamesPerSecond(ProgressColumn):
    """Rate of this session's games since the first one: chunks arrive seconds apart, so rich's
    windowed speed would jump between zero and peaks, and games a resumed run found finished
    were not played now."""

    def render(self, task) -> Text:
        start, done0 = task.fields.get("start"), task.fields.get("done0", 0)
        elapsed = time.perf_counter() - start if start else 0
        rate = (task.completed - done0) / elapsed if elapsed > 0 else 0
        return Text(f"{rate:,.0f} games/s", style="cyan")


class _Remaining(ProgressColumn):
    """Time left at this session's average rate."""

    def render(self, task) -> Text:
        start, done0 = task.fields.get("start"), task.fields.get("done0", 0)
        elapsed = time.perf_counter() - start if start else 0
        played = task.completed - done0
        if not played or elapsed <= 0:
            return Text("ETA -:--:--", style="cyan")
        left = (task.total - task.completed) * elapsed / played
        return Text(f"ETA {int(left // 3600)}:{int(left % 3600 // 60):02d}:{int(left % 60):02d}",
                    style="cyan")


def _specs(text: str, option: str) -> list[str]:
    from samsim.strategy import split_specs

    specs = split_specs(text)
    if not text.strip():
        raise ValueError(f"{option}: no strategy given; name one or more, e.g. greedy,undercut")
    if any(not s for s in specs):
        raise ValueError(f"{option}: empty strategy in {text!r}; separate specs with commas, "
                         f"e.g. greedy,undercut(margin=2)")
    return specs


def _seating(players: int, strategies: str | None, pool: str | None):
    """The line-up from --strategies (one per seat, or one for all) or --pool (a balanced
    design)."""
    from samsim.designs import pool_design
    from samsim.strategy import lineup

    if strategies is not None and pool is not None:
        raise ValueError("give --strategies (one per seat) or --pool (seated by a balanced "
                         "design), not both")
    if pool is not None:
        return pool_design(players, _specs(pool, "--pool"))
    specs = _specs("random" if strategies is None else strategies, "--strategies")
    return lineup(players, specs if len(specs) > 1 else specs[0])


class _Bar:
    """The progress of any command that plays games: count, games/s, elapsed time and ETA on
    stderr; before the first game a line that says the engine is loading, and that it is
    compiling only when it is (``samsim.engine.compiled``)."""

    def __init__(self, label: str, total: int, infos=()):
        from samsim import engine

        self.progress = Progress(TextColumn("{task.description}"), BarColumn(),
                                 MofNCompleteColumn(), _GamesPerSecond(), TimeElapsedColumn(),
                                 _Remaining(), console=status_console)
        self.task = self.progress.add_task(label, total=total, start=False)
        fresh = sorted({info.name for info in infos if not engine.compiled([info])})
        what = ("Compiling the engine (once after an install or upgrade: a few minutes on 2 "
                "cores)..." if not engine.compiled() else
                f"Compiling {', '.join(fresh)} (new or edited: seconds)..." if fresh else
                "Loading the engine...")
        self.loading = status_console.status(what)
        self.shown = []  # what was started, so only that is stopped (a stop prints a blank line)
        self.found_next = True  # see run_progress

    def __enter__(self):
        self.loading.start()
        self.shown.append(self.loading)
        return self

    def __exit__(self, kind, error, trace):
        if kind is not None and not issubclass(kind, KeyboardInterrupt):
            self.progress.live.transient = True  # an error is the one line left, not the bar
        for live in self.shown:
            live.stop()
        self.shown.clear()

    @property
    def fields(self) -> dict:
        return self.progress.tasks[0].fields

    def begin(self) -> None:
        """The engine is loaded: the loading line gives way to the bar, whose clock starts."""
        if "start" not in self.fields:
            self.loading.stop()
            self.progress.start()
            self.shown.append(self.progress)
            self.progress.update(self.task, start=time.perf_counter(), done0=0)
            self.progress.start_task(self.task)

    def skip(self, n: int) -> None:
        """Games found already played (a resumed run's): done, but not played now."""
        self.begin()
        self.progress.update(self.task, advance=n, done0=self.fields["done0"] + n)

    def advance(self, n: int) -> None:
        self.begin()
        self.progress.advance(self.task, n)

    def next_run(self) -> None:
        """A run starts: the first count it reports is what it found done (a resumed run's)."""
        self.found_next = True

    def run_progress(self, n: int) -> None:
        """``samsim.results.run_simulation``'s progress: games found done, then games played."""
        (self.skip if self.found_next else self.advance)(n)
        self.found_next = False

    def played(self) -> tuple[int, float]:
        """Games played in this session and the seconds they took."""
        task = self.progress.tasks[0]
        start = self.fields.get("start", time.perf_counter())
        return int(task.completed - self.fields.get("done0", 0)), time.perf_counter() - start


def _warm_up(players, seed, data, threads, seats) -> None:
    """Load (or compile) the engine and ``seats``' strategies before the clock starts."""
    from samsim import engine

    engine.run_batch(1, players, seed, 0, data, threads=threads, strategies=seats)


def _quote(path) -> str:
    """A path as a shell word, so that a suggested command can be pasted as it is."""
    import shlex

    return shlex.quote(str(path))


def _run(games, players, seed, data, seats, chunk_size, threads, out, resume, overwrite, record,
         label: str = "simulating"):
    """One run with a progress bar; returns (tally, games played now, seconds they took).
    Ctrl-C or SIGTERM stop it within about a second with the games played kept (exit 130;
    ``samsim.interrupt``)."""
    from samsim import engine, results

    engine.checked(games, players, seed, data, None, chunk_size, threads, seats)  # fail first
    bar = _Bar(label, games, seats.infos)
    try:
        with bar:
            tally = results.run_simulation(
                games, players, seed, data, chunk_size=chunk_size, threads=threads, out=out,
                strategies=seats, record=record, resume=resume, overwrite=overwrite,
                progress=bar.run_progress,
                before_play=lambda: _warm_up(players, seed, data, threads, seats),
                warn=lambda m: status_console.print(m, markup=False))
    except KeyboardInterrupt:
        done = int(bar.progress.tasks[0].completed)
        where = ""
        if out is not None and (out / results.RUN_FILE).is_file():
            done = results.run_metadata(out)["games_found"]  # what is on disk, not what was shown
            where = (f"; the games played are kept in {out}: add --resume to the same command "
                     f"to finish it" if done else "; add --resume to the same command to play it")
        told = f"after {done:,} of {games:,} games" if done else "before any game was played"
        print(f"samsim: interrupted {told}{where}", file=sys.stderr)
        raise typer.Exit(130)
    return (tally, *bar.played())


def _print_summary(tally, out: Path | None, played: int, seconds: float) -> None:
    from samsim.report import Report, print_report

    meta = {**tally.meta, "games_found": tally.n_games, "complete": True}
    who = (f"pool {', '.join(meta['pool'])} seated by a balanced design"
           if "pool" in meta else ", ".join(meta["seatings"][0]))
    console.print(f"[bold]{meta['players']} players, {meta['games']:,} games, seed "
                  f"{meta['seed']}[/bold]: {who}", highlight=False)
    print_report(Report(tally, [(str(out) if out else "(not saved: give --out DIR to keep the "
                                 "results)", meta)]), console)
    if played and seconds > 0:
        console.print(f"played {played:,} games in {seconds:.2f} s ({played / seconds:,.0f} "
                      f"games/s)")
    if out is not None:
        console.print(f"results: {out} (report: samsim report {_quote(out)} --out "
                      f"{_quote(out / 'report')})", markup=False, soft_wrap=True)


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
    from samsim.designs import whole_passes

    data = _load_rules(rules)
    try:
        seats = _seating(players, strategies, pool)
        if (resume or overwrite) and out is None:
            raise ValueError(f"{'--resume' if resume else '--overwrite'} needs --out DIR")
        recorded = _record_option(record)
        total = whole_passes(games, seats)
        if total != games:
            status_console.print(f"games rounded up to {total:,}: whole passes through the "
                                 f"pool's balanced design of {len(seats.seatings):,} seatings",
                                 markup=False)
        tally, played, seconds = _run(total, players, seed, data, seats, chunk_size, threads,
                                      out, resume, overwrite, recorded)
    except (ValueError, OSError) as error:
        _fail(str(error))
    _print_summary(tally, out, played, seconds)


def _record_option(record: str | None) -> tuple[str, ...]:
    """``--record rounds`` -> ("rounds",); results.run_simulation says if a name is unknown."""
    return () if record is None else tuple(r.strip() for r in record.split(","))


@app.command(epilog="Example: samsim compare greedy undercut --players 4 --field greedy "
                    "--games 200000 --out results/compare1")
def compare(
    strategies: Annotated[list[str], typer.Argument(
        metavar="A B [C...]", help="Strategies to compare (specs, e.g. 'undercut(margin=2)'). "
                                   "Up to --players share every game (every placement of "
                                   "them); with more, every table-sized subset plays in "
                                   "every arrangement (the --pool design).",
        show_default=False)],
    players: Annotated[int, typer.Option(help="Number of players (seats), 3..6.")] = 4,
    field: Annotated[str, typer.Option(
        help="Strategy of the seats the compared ones leave free (fewer strategies than "
             "seats): a strategy's strength in a multiplayer game depends on who else "
             "plays.")] = "greedy",
    games: Annotated[int, typer.Option(
        help="Games to play (with --sequential: the most), rounded down to whole groups (at "
             "least 2; a verdict needs 30).")] = 100000,
    seed: Annotated[int, typer.Option(help="Seed (0..2**64-1): the same seed, the same "
                                           "games.")] = 7,
    deals: Annotated[str, typer.Option(
        help="A group plays every placement of the compared strategies. 'independent': each "
             "game has its own deal, so a difference is the strategies' over random deals "
             "(measured the more precise for this game); 'duplicate': a group's games share one "
             "deal, so the deal's luck cancels in the differences. Both estimate the same "
             "difference; the report measures the precision of the choice.")] = "independent",
    margin: Annotated[float, typer.Option(
        help="Equivalence margin, points of win rate: 'no difference larger than +-margin'.")] = 0.5,
    sequential: Annotated[bool, typer.Option(
        "--sequential", help="Stop as soon as the answer is clear: GSPRT of H0 edge <= 0 "
                             "against H1 edge >= --edge points, alpha = beta = 0.05.")] = False,
    edge: Annotated[float, typer.Option(help="With --sequential: the edge (points of win rate) "
                                             "H1 claims.")] = 1.0,
    batch_games: Annotated[int, typer.Option(
        help="With --sequential: games between looks at the data.")] = 20000,
    rules: RulesOption = None,
    threads: ThreadsOption = None,
    out: Annotated[Optional[Path], typer.Option(
        metavar="DIR", help="Also write compare.md, pairs.png, pairs.csv and ranking.csv "
                            "here.")] = None,
):
    """Is A better than B? Balanced groups, paired differences, simultaneous intervals, verdicts."""
    from samsim import compare as comparing
    from samsim.compare_report import print_comparison, write_comparison
    from samsim.report import data_note
    from samsim.results import prepare_output_dir
    from samsim.strategy import parse_spec

    data = _load_rules(rules)
    try:
        specs = [parse_spec(s).spec() for text in strategies for s in _specs(text, "strategies")]
        field = parse_spec(field).spec()
        if not data.min_players <= players <= data.max_players:
            raise ValueError(f"players must be {data.min_players}..{data.max_players}, got {players}")
        if games < 1 or batch_games < 1:
            raise ValueError("--games and --batch-games must be positive")
        if not 0 < margin < 100 or not 0 < edge < 100:
            raise ValueError("--margin and --edge are points of win rate, between 0 and 100")
        if deals not in ("duplicate", "independent"):
            raise ValueError(f"--deals must be duplicate or independent, got {deals!r}")
        comparing.design(specs, players, field, deals == "duplicate")  # before --out is made
        if out is not None:
            prepare_output_dir(out)
        result = _compare(specs, players, games, seed, field, data, threads, margin,
                          edge if sequential else None, batch_games, deals == "duplicate")
        written = write_comparison(result, out, data_note(data)) if out is not None else []
    except (ValueError, OSError) as error:
        _fail(str(error))
    except KeyboardInterrupt:
        print("samsim: compare interrupted; a comparison is reported only whole, so nothing was "
              "written", file=sys.stderr)
        raise typer.Exit(130)
    print_comparison(result, console, data_note(data))
    _written(written)


def _written(files: list[Path]) -> None:
    if files:
        console.print(f"report: {files[0]} (+ {len(files) - 1} files)", markup=False)


@app.command(epilog="Example: samsim balance --players 3,4,5,6 --games 40000 --strategy greedy "
                    "--out results/balance")
def balance(
    players: Annotated[str, typer.Option(help="Player counts, comma-separated.")] = "3,4,5,6",
    games: Annotated[int, typer.Option(help="Games per player count.")] = 20000,
    seed: Annotated[int, typer.Option(help="Seed (0..2**64-1).")] = 7,
    strategy: Annotated[Optional[str], typer.Option(
        help="Strategy of every seat (the same everywhere, so a seat effect is the game's). "
             "Default: greedy.")] = None,
    pool: Annotated[Optional[str], typer.Option(
        help="Instead: a pool of strategies, comma-separated, seated by a balanced design "
             "(every strategy in every seat, every pair meeting, equally often).")] = None,
    rules: RulesOption = None,
    threads: ThreadsOption = None,
    out: Annotated[Optional[Path], typer.Option(
        metavar="DIR", help="Keep the games in DIR/<N>p/ (run folders) and write the report to "
                            "DIR/report/ (balance.md and PNG plots).")] = None,
    resume: Annotated[bool, typer.Option("--resume", help="Finish interrupted runs in --out.")]
        = False,
    overwrite: Annotated[bool, typer.Option("--overwrite", help="Replace the runs in --out.")]
        = False,
):
    """Is the game fair at 3-6 players? Seat win rates, ties, money, market, tiles: ranked."""
    from samsim.balance_report import print_balance, write_balance
    from samsim.report import data_note
    from samsim.strategy import parse_spec

    data = _load_rules(rules)
    try:
        try:
            counts = sorted({int(x) for x in players.split(",") if x.strip()})
        except ValueError:
            counts = []
        if not counts or any(not data.min_players <= n <= data.max_players for n in counts):
            raise ValueError(f"--players: give player counts {data.min_players}.."
                             f"{data.max_players}, comma-separated, e.g. 3,4,5,6")
        if strategy is not None and pool is not None:
            raise ValueError("give --strategy (every seat) or --pool (seated by a balanced "
                             "design), not both")
        strategy = "greedy" if strategy is None else strategy
        members = _specs(pool, "--pool") if pool is not None else None
        strategy = parse_spec(strategy).spec()  # as labels write it (e.g. greedy@1a2b3c4d)
        members = [parse_spec(s).spec() for s in members] if members is not None else None
        if games < 1:
            raise ValueError(f"--games must be positive, got {games}")
        if (resume or overwrite) and out is None:
            raise ValueError(f"{'--resume' if resume else '--overwrite'} needs --out DIR")
        if out is not None:
            from samsim.results import prepare_output_dir
            prepare_output_dir(out)
        measured = _balance(counts, games, seed, strategy, members, data, threads, out, resume,
                            overwrite)
        who = f"pool {', '.join(members)} seated by a balanced design" if members else \
            f"{strategy} in every seat"
        header = [f"{who}; {games:,} games per player count, seed {seed}", data_note(data),
                  f"samsim {samsim.__version__}"]
        written = write_balance(measured, header, Path(out) / "report") if out is not None else []
    except ValueError as error:
        _fail(str(error))
    except KeyboardInterrupt:
        print(f"samsim: interrupted; the games played are kept in {out}: add --resume to the same "
              f"command to finish" if out is not None else "samsim: interrupted", file=sys.stderr)
        raise typer.Exit(130)
    print_balance(measured, header, console)
    _written(written)


def _compare(specs, players, games, seed, field, data, threads, margin, edge, batch_games,
             duplicate):
    """``samsim.compare.compare`` with a progress bar (``edge``: sequential, else None)."""
    from samsim import compare as comparing
    from samsim import inference
    from samsim.strategy import parse_spec

    plan = comparing.design(specs, players, field, duplicate)
    with _Bar("comparing (at most)" if edge else "comparing", comparing.games_played(games, plan),
              [parse_spec(s).info for s in [*specs, field]]) as bar:
        _warm_up(players, seed, data, threads, field)
        bar.begin()
        result = comparing.compare(
            specs, players, games, seed, field, data, threads, margin / 100,
            inference.SPRT(theta1=edge / 100) if edge else None, batch_games, duplicate,
            progress=bar.advance)
        bar.progress.update(bar.task, total=result.games)  # a sequential test may stop early
        return result


def _balance(counts, games, seed, strategy, members, data, threads, out, resume, overwrite):
    """``samsim.balance.run`` with one progress bar over all player counts."""
    from samsim import balance as balancing

    plan = balancing.lineups(counts, strategy, members, games)

    def status(n):
        bar.next_run()
        bar.progress.update(bar.task, description=f"{n} players")

    with _Bar("balance", sum(total for *_, total in plan),
              [info for _, seats, _ in plan for info in seats.infos]) as bar:
        _warm_up(plan[0][0], seed, data, threads, plan[0][1])
        bar.begin()
        return balancing.run(counts, games, seed, strategy, members, data, threads, out, resume,
                             overwrite, status=status, progress=bar.run_progress)


@app.command(epilog="Example: samsim report results/run1 --out results/run1/report")
def report(
    paths: Annotated[list[Path], typer.Argument(
        metavar="PATH...", help="Result files or run folders (written by samsim simulate).",
        show_default=False)],
    out: Annotated[Optional[Path], typer.Option(
        metavar="DIR", help="Also write report.md and PNG plots (win rate per seat, final "
                            "score per strategy, money over rounds if recorded) here.")] = None,
    partial: Annotated[bool, typer.Option(
        "--partial", help="Report a run that is not whole (interrupted, or chunks missing) for "
                          "what it holds, marked PARTIAL; without it such a run is refused.")]
        = False,
):
    """Win rates per strategy, seat and player count, with 95% intervals, and score spreads."""
    from samsim.report import load_report, print_report, write_report

    try:
        result = load_report(paths, partial)
        if out is not None:
            written = write_report(result, out)
    except (ValueError, OSError) as error:
        _fail(str(error))
    print_report(result, console)
    if out is not None:
        console.print(f"report: {written[0]} (+ {len(written) - 1} plots)", markup=False)


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

    from samsim import narrate

    data = _load_rules(rules)
    try:
        seats = _seating(players, strategies, pool)
        told = narrate.play(players, seed, game, data, seats)
    except (ValueError, OSError) as error:
        _fail(str(error))
    if json_out:
        print(json.dumps(narrate.to_json(told), indent=1))
    else:
        narrate.print_game(told, console)


@app.command("strategies", epilog="Example: samsim strategies")
def list_strategies():
    """List the strategies (built-in and ./strategies/*.py) with their parameters and defaults."""
    from rich import box
    from rich.table import Table

    from samsim.strategy import available, load_strategy

    table = Table(box=box.SIMPLE_HEAD, show_edge=False, padding=(0, 1, 0, 0))
    for header in ("strategy", "idea", "parameters (default, range)"):
        table.add_column(header, overflow="fold")
    try:
        infos = [load_strategy(name) for name in available()]
    except ValueError as error:
        _fail(str(error))
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
    games: Annotated[int, typer.Option(help="Games per measurement (x threads, up to 4x, "
                                            "for scaling).")] = 100000,
    reference_games: Annotated[int, typer.Option(
        help="Games for the reference engine (about 1,000 games/s).")] = 500,
    compile: Annotated[bool, typer.Option(
        "--compile", help="Also time compiling from an empty cache (several minutes).")] = False,
    markdown: Annotated[Optional[Path], typer.Option(metavar="FILE",
                                                     help="Also write the tables here.")] = None,
):
    """Measure this machine: games/s per core for each player count, scaling with threads,
    speed-up over the reference engine."""
    from rich import box
    from rich.table import Table

    from samsim import bench as measure

    try:
        if games < 1 or reference_games < 1:
            raise ValueError("--games and --reference-games must be at least 1")
        if markdown is not None and not markdown.parent.is_dir():
            raise ValueError(f"cannot write {markdown}: folder {markdown.parent} does not exist")
        with status_console.status("measuring...") as status:
            result = measure.run(games=games, reference_games=reference_games, compile=compile,
                                 note=lambda text: status.update(f"measuring: {text}"))
    except (ValueError, OSError) as error:
        _fail(str(error))
    per_players, per_threads = measure.tables(result)
    for headers, rows in ((measure.PLAYER_HEADERS, per_players),
                          (measure.THREAD_HEADERS, per_threads)):
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
    if markdown is not None:
        try:
            from samsim.results import write_text
            write_text(markdown, measure.markdown(result))
        except ValueError as error:
            _fail(str(error))


@app.command("run", epilog="Example: samsim run experiments/showdown.toml")
def run_experiment(
    file: Annotated[Path, typer.Argument(metavar="FILE", help="Experiment file (TOML).",
                                         show_default=False)],
    results_dir: Annotated[Path, typer.Option(
        "--results", metavar="DIR", help="Where results/NAME/ goes.")] = Path("results"),
    threads: ThreadsOption = None,
    resume: Annotated[bool, typer.Option("--resume", help="Finish an interrupted run.")] = False,
    overwrite: Annotated[bool, typer.Option("--overwrite", help="Replace earlier results.")]
    = False,
):
    """Run an experiment file: its runs go to results/NAME/<N>p/, its report to
    results/NAME/report/."""
    from samsim import experiment

    try:
        exp = experiment.load(file)
        data = _load_rules(exp.rules)
    except (ValueError, OSError) as error:
        _fail(str(error))
    if exp.description:
        console.print(exp.description, markup=False)
    kinds = {"simulate": _run_simulate, "balance": _run_balance, "compare": _run_compare,
             "sensitivity": _run_sensitivity}
    try:
        kinds[exp.kind](exp, data, results_dir, threads, resume, overwrite)
    except (ValueError, OSError) as error:
        _fail(str(error))
    except KeyboardInterrupt:
        print("samsim: interrupted", file=sys.stderr)
        raise typer.Exit(130)


def _experiment_header(exp, data, games: str) -> list[str]:
    from samsim.report import data_note

    return [f"experiment {exp.path.name}: {games}, seed {exp.seed}", data_note(data),
            f"samsim {samsim.__version__}; run again: samsim run {_quote(exp.path.as_posix())}"]


def _run_balance(exp, data, results_dir, threads, resume, overwrite) -> None:
    from samsim.balance_report import print_balance, write_balance

    measured = _balance(exp.players, exp.games, exp.seed, exp.strategy, exp.pool, data, threads,
                        Path(results_dir) / exp.name, resume, overwrite)
    who = f"pool {', '.join(exp.pool)}" if exp.pool else f"{exp.strategy} in every seat"
    header = _experiment_header(exp, data, f"{who}, {exp.games:,} games per player count")
    written = write_balance(measured, header, exp.report_dir(results_dir))
    print_balance(measured, header, console)
    _written(written)


def _run_compare(exp, data, results_dir, threads, resume, overwrite) -> None:
    from samsim.compare_report import print_comparison, write_comparison
    from samsim.report import data_note

    result = _compare(exp.strategies, exp.players[0], exp.games, exp.seed, exp.field_spec, data,
                      threads, exp.margin, exp.edge if exp.sequential else None, exp.batch_games,
                      exp.deals == "duplicate")
    written = write_comparison(result, exp.report_dir(results_dir), data_note(data))
    print_comparison(result, console, data_note(data))
    _written(written)


def _run_sensitivity(exp, data, results_dir, threads, resume, overwrite) -> None:
    from samsim import sensitivity

    files = [("base", exp.rules), *((p.stem, p) for p in exp.variants)]
    with status_console.status("") as status:
        variants = sensitivity.run(files, exp.strategies, exp.players[0], exp.field_spec,
                                   exp.games, exp.balance_games, exp.seed,
                                   exp.deals == "duplicate", threads,
                                   status=lambda name: status.update(f"data: {name}..."))
    field = f" (field {exp.field_spec})" if len(exp.strategies) < exp.players[0] else ""
    header = _experiment_header(
        exp, data, f"{', '.join(exp.strategies)} compared at {exp.players[0]} players"
                   f"{field}, {exp.games:,} games per data file; seats: "
                   f"{exp.field_spec} everywhere, {exp.balance_games:,} games")
    written = sensitivity.write(variants, header, exp.report_dir(results_dir))
    for ok, text in sensitivity.conclusions(variants):
        console.print(f"{'robust' if ok else 'moves '}  {text}", markup=False)
    _written(written)


def _run_simulate(exp, data, results_dir, threads, resume, overwrite) -> None:
    from samsim.designs import whole_passes
    from samsim.report import load_report, print_report, write_report

    record = tuple(exp.record)
    runs = []
    for players in exp.players:
        seats = _seating(players, ",".join(exp.strategies) if exp.strategies else None,
                         ",".join(exp.pool) if exp.pool else None)
        games = whole_passes(exp.games, seats)
        out = exp.run_dir(results_dir, players)
        _run(games, players, exp.seed, data, seats,
             exp.chunk_size or DEFAULT_CHUNK, threads, out, resume, overwrite, record,
             label=f"{players} players")
        runs.append(out)
    result = load_report(runs)
    written = write_report(result, exp.report_dir(results_dir))
    print_report(result, console)
    _written(written)


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
            bar = _Bar("tracing", games)

            def progress(n, frame):
                nonlocal events
                if not first:
                    first.extend(frame.loc[frame["game"] == start, "text"])
                events += len(frame)
                bar.advance(n)

            with bar:
                _warm_up(players, seed, data, None, None)  # the load is not timed as games/s
                bar.begin()
                tracing.write_games(players, seed, ids, data, out, progress=progress)
    except (ValueError, OSError) as error:
        _fail(str(error))
    except KeyboardInterrupt:
        print("samsim: interrupted; no trace written", file=sys.stderr)
        raise typer.Exit(130)

    print(f"game {start} of seed {seed}, {players} players: {len(first)} events")
    for line in first:
        print(line)
    if out is not None:
        print(f"trace of {games} game{'s' if games != 1 else ''} ({events} events): {out}",
              file=sys.stderr)


if __name__ == "__main__":  # pragma: no cover
    app()
