"""Progress of anything that plays games: a line while the engine loads or compiles, then a bar
(count, games/s, ETA) on stderr; a run played under it, and its summary printed."""

from __future__ import annotations

import sys
import time
from pathlib import Path

import typer
from rich.progress import (
    BarColumn,
    MofNCompleteColumn,
    Progress,
    ProgressColumn,
    TextColumn,
    TimeElapsedColumn,
)
from rich.text import Text

from samsim.cli.app import console, quote, status_console


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


class Bar:
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
        what = ("Loading the engine on the cluster's workers (a worker without it in its cache "
                "compiles it: minutes)..." if engine.cluster.active() else
                "Compiling the engine (once after an install or upgrade: a few minutes on 2 "
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

    def next_run(self, label: str | None = None) -> None:
        """A run starts (shown as ``label``): the first count it reports is what it found done (a
        resumed run's)."""
        self.found_next = True
        if label is not None:
            self.progress.update(self.task, description=label)

    def run_progress(self, n: int) -> None:
        """``samsim.runs.results.run_simulation``'s progress: games found done, then games played."""
        (self.skip if self.found_next else self.advance)(n)
        self.found_next = False

    def played(self) -> tuple[int, float]:
        """Games played in this session and the seconds they took."""
        task = self.progress.tasks[0]
        start = self.fields.get("start", time.perf_counter())
        return int(task.completed - self.fields.get("done0", 0)), time.perf_counter() - start


def warm_up(players, seed, data, threads, seats) -> None:
    """Load (or compile) the engine and ``seats``' strategies, where the games will be played,
    before the clock starts."""
    from samsim import engine

    engine.warm_up(players, seed, data, seats, threads)


def run_with_bar(games, players, seed, data, seats, chunk_size, threads, out, resume, overwrite, record,
         label: str = "simulating"):
    """One run with a progress bar; returns (tally, games played now, seconds they took).
    Ctrl-C or SIGTERM stop it within about a second with the games played kept (exit 130;
    ``samsim.runs.interrupt``)."""
    from samsim import engine
    from samsim.runs import results

    engine.checked(games, players, seed, data, None, chunk_size, threads, seats)  # fail first
    bar = Bar(label, games, seats.infos)
    try:
        with bar:
            tally = results.run_simulation(
                games, players, seed, data, chunk_size=chunk_size, threads=threads, out=out,
                strategies=seats, record=record, resume=resume, overwrite=overwrite,
                progress=bar.run_progress,
                before_play=lambda: warm_up(players, seed, data, threads, seats),
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


def print_summary(tally, out: Path | None, played: int, seconds: float) -> None:
    from samsim.analysis.report import Report, print_report

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
        console.print(f"results: {out} (report: samsim report {quote(out)} --out "
                      f"{quote(out / 'report')})", markup=False, soft_wrap=True)
