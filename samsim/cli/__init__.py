"""The ``samsim`` command: parses arguments, calls the library, prints what it returns.

Nothing here computes anything a notebook user could not get from the same library call
(``samsim.runs.results.run_simulation``, ``samsim.analysis.report.load_report``,
``samsim.runs.narrate.play``, ``samsim.engine.bench.run``, ``samsim.runs.trace.trace_games``).
Bad input is the user's mistake, not a crash: it ends with one line on stderr and exit code 2,
never a traceback.

    app       the application, its errors and consoles, the options commands share
    progress  the loading line and progress bar of commands that play games
    games     simulate, play, trace, strategies, bench
    studies   compare, balance, run (experiment files), report
"""

from samsim.cli import games, studies  # noqa: F401  (their commands register with the app)
from samsim.cli.app import DEFAULT_CHUNK, app

__all__ = ["DEFAULT_CHUNK", "app"]
