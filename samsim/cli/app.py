"""The ``samsim`` application: how it fails (one line, exit 2), where it prints, and the options
and parsing the commands share."""

from __future__ import annotations

import contextlib
import os
import sys
from pathlib import Path
from typing import Annotated, Optional

import typer
from rich.console import Console

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


def fail(message: str, code: int = BAD_INPUT):
    """One line on stderr and a non-zero exit: the whole contract for bad input."""
    line = " ".join(str(message).split())
    print(f"samsim: error: {line}", file=sys.stderr)
    raise typer.Exit(code)


class _App(typer.Typer):
    """Typer with click's usage errors (a non-integer ``--players``, an unknown option) reported
    in one line like samsim's own, instead of a framed usage box."""

    def __call__(self, *args, **kwargs):
        from samsim.runs import interrupt

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


def load_rules(rules: Path | None) -> components.GameData:
    try:
        return components.load(rules)
    except components.ComponentDataError as error:
        fail(str(error))


RulesOption = Annotated[Optional[Path], typer.Option(
    "--rules", metavar="FILE",
    help="Component data file (a rules variant); default: the packaged hotel_samoa.toml.")]


ThreadsOption = Annotated[Optional[int], typer.Option(
    help="Threads to use (default: all Numba threads); with --workers or --scheduler, threads "
         "of each worker.")]


SchedulerOption = Annotated[Optional[str], typer.Option(
    metavar="ADDRESS", help="Play on the Dask cluster of this scheduler, e.g. "
                            "tcp://10.0.0.5:8786 (README 'Running on a cluster').")]


WorkersOption = Annotated[Optional[int], typer.Option(
    metavar="N", help="Play on N worker processes of a Dask cluster started on this machine.")]


BackendOption = Annotated[str, typer.Option(
    metavar="cpu|cuda", help="Where games are played: cpu (this machine's cores) or cuda (its "
                             "NVIDIA GPU, with numba-cuda: README 'GPU backend'); with "
                             "--scheduler or --workers, on each worker.")]


@contextlib.contextmanager
def playing_on(scheduler: str | None, workers: int | None, threads: int | None,
               backend: str = "cpu"):
    """Inside: games are played on the cluster of --scheduler or --workers, if one is given, and
    on the --backend (this process's, or each worker's)."""
    if backend not in ("cpu", "cuda"):
        fail(f"--backend must be cpu or cuda, got {backend!r}")
    if backend == "cuda" and threads is not None:
        fail("--threads: the cuda backend plays on the GPU (each worker's, on a cluster), one "
             "game per GPU thread; leave --threads out")
    if scheduler is None and workers is None:
        if backend == "cpu":
            yield
            return
        from samsim.engine import gpu, play

        try:
            with play.backend("cuda"):
                status_console.print(f"playing on {gpu.check()}", markup=False)
                yield
        except gpu.CudaUnavailable as error:
            fail(str(error))
        return
    from samsim.engine.cluster import Cluster, ClusterError

    where = scheduler or f"{workers} local worker process{'es' * (workers != 1)}"
    with status_console.status(f"Joining the Dask cluster ({where})..."):
        try:
            cluster = Cluster(scheduler, workers, threads, backend).__enter__()
        except ClusterError as error:
            fail(str(error))
        except KeyboardInterrupt:  # Ctrl-C while it starts: nothing was played yet
            print("samsim: interrupted while joining the cluster, before any game was played",
                  file=sys.stderr)
            raise typer.Exit(130) from None
    try:
        status_console.print(f"playing on {cluster.describe()}", markup=False)
        yield
    except KeyboardInterrupt:  # before the command's own handler took over (starting to play)
        print("samsim: interrupted", file=sys.stderr)
        raise typer.Exit(130) from None
    finally:
        cluster.__exit__(None, None, None)


def parse_specs(text: str, option: str) -> list[str]:
    from samsim.engine.registry import split_specs

    specs = split_specs(text)
    if not text.strip():
        raise ValueError(f"{option}: no strategy given; name one or more, e.g. greedy,undercut")
    if any(not s for s in specs):
        raise ValueError(f"{option}: empty strategy in {text!r}; separate specs with commas, "
                         f"e.g. greedy,undercut(margin=2)")
    return specs


def seating(players: int, strategies: str | None, pool: str | None):
    """The line-up from --strategies (one per seat, or one for all) or --pool (a balanced
    design)."""
    from samsim.engine.designs import pool_design
    from samsim.engine.lineup import lineup

    if strategies is not None and pool is not None:
        raise ValueError("give --strategies (one per seat) or --pool (seated by a balanced "
                         "design), not both")
    if pool is not None:
        return pool_design(players, parse_specs(pool, "--pool"))
    specs = parse_specs("random" if strategies is None else strategies, "--strategies")
    return lineup(players, specs if len(specs) > 1 else specs[0])


def record_option(record: str | None) -> tuple[str, ...]:
    """``--record rounds`` -> ("rounds",); results.run_simulation says if a name is unknown."""
    return () if record is None else tuple(r.strip() for r in record.split(","))


def quote(path) -> str:
    """A path as a shell word, so that a suggested command can be pasted as it is."""
    import shlex

    return shlex.quote(str(path))


def print_written(files: list[Path]) -> None:
    if files:
        console.print(f"report: {files[0]} (+ {len(files) - 1} files)", markup=False)
