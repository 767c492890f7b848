"""Games played into a results table in memory (``run_simulation`` in ``samsim.runs.results``
writes one to disk, chunk by chunk)."""

from __future__ import annotations

from collections.abc import Iterator

import pandas as pd

from samsim.components import GameData
from samsim.engine.cluster import batches
from samsim.engine.play import DEFAULT_CHUNK, checked
from samsim.runs import schema


def simulate_chunks(games: int, players: int = 4, seed: int = 0, data: GameData | None = None,
                    params=None, chunk_size: int = DEFAULT_CHUNK,
                    threads: int | None = None, strategies=None) -> Iterator[pd.DataFrame]:
    """``simulate``, one chunk of games at a time, so a caller can show progress or write as it
    goes; the chunks concatenated are ``simulate``'s frame.

    Inputs are checked now, before the first chunk is asked for: a bad one is reported before any
    work starts.
    """
    games, players, seed, data, seats, chunk_size, threads = checked(
        games, players, seed, data, params, chunk_size, threads, strategies)
    specs = seats.specs()
    return (schema.results_frame(st, start, n, specs) for start, n, st in
            batches([(0, games)], players, seed, data, seats, chunk_size, threads))


def simulate(games: int, players: int = 4, seed: int = 0, data: GameData | None = None,
             params=None, chunk_size: int = DEFAULT_CHUNK, threads: int | None = None,
             strategies=None) -> pd.DataFrame:
    """Play ``games`` games (seats playing ``strategies``, see ``run_batch``; a pool seated by a
    balanced design is ``samsim.engine.designs.pool_design``); one row per game and seat, in the
    ``results`` layout of ``samsim.runs.schema`` (README "Results").

    Game g of any run with the same seed is the same game, whatever the chunk size or thread
    count.
    """
    parts = list(simulate_chunks(games, players, seed, data, params, chunk_size, threads,
                                 strategies))
    return parts[0] if len(parts) == 1 else pd.concat(parts, ignore_index=True)
