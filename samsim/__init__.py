"""samsim: a high-throughput Monte Carlo simulator of the board game Hotel Samoa.

The entry points are re-exported here but imported on first use, so that ``import samsim`` (and
``samsim --help``) stays instant: ``samsim.engine`` pulls in Numba and the compiled kernel.

    simulate(games, players=4, seed=0, ...)       one row per game and seat (pandas)
    play_game(data, players, seed, game=0, ...)   one game, with its event log if asked
    play_position(data, position, log=True)       a scripted position (docs/protocol.md)
    load_data(path=None)                          a component data file (default: packaged)
    trace_games(players, seed, games=1, ...)      every event of some games, as a table
    run_simulation(games, players, seed, out=DIR) a run written chunk by chunk (resumable)
    load(path, table="results")                  a results file or run folder, as pandas
    pool_design(players, pool)                   a pool of strategies seated by a balanced design
    Cluster(scheduler=ADDRESS or workers=N)      inside ``with`` it, runs, simulate, compare and
                                                 balance play their games on Dask
"""

__version__ = "0.2.0"

_LAZY = {
    "simulate": ("samsim.runs.simulate", "simulate"),
    "play_game": ("samsim.engine.play", "play_game"),
    "play_position": ("samsim.engine.position", "play_position"),
    "load_data": ("samsim.components", "load"),
    "trace_games": ("samsim.runs.trace", "trace_games"),
    "load": ("samsim.runs.results", "load"),
    "run_simulation": ("samsim.runs.results", "run_simulation"),
    "pool_design": ("samsim.engine.designs", "pool_design"),
    "Cluster": ("samsim.engine.cluster", "Cluster"),
}

__all__ = ["__version__", *_LAZY]


def __getattr__(name):
    if name in _LAZY:
        import importlib

        module, attr = _LAZY[name]
        value = getattr(importlib.import_module(module), attr)
        globals()[name] = value  # later look-ups skip this function
        return value
    raise AttributeError(f"module 'samsim' has no attribute {name!r}")


def __dir__():
    return sorted(set(globals()) | set(_LAZY))
