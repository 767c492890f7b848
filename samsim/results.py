"""Results as data: simulation frames produced chunk by chunk, and Parquet files that carry their
own provenance.

A results file is only worth keeping if it says how it was made, so every Parquet file samsim
writes holds, in its file metadata under the key ``samsim``, the configuration (seed, players,
games, policy parameters), the data file's path and sha256 and the samsim version: enough to
reproduce every row. Files are written to a temporary name and renamed, so a killed run never
leaves a half-written file behind under the real name.

The frame layout is ``samsim.engine.simulate``'s: one row per game and seat, columns ``game``,
``seat`` and ``samsim.engine.RESULT_COLUMNS``.
"""

from __future__ import annotations

import json
import os
from collections.abc import Callable
from pathlib import Path

import pandas as pd

import samsim
from samsim import components as comps
from samsim.components import GameData

#: Key of samsim's JSON document in a Parquet file's key/value metadata.
META_KEY = b"samsim"
#: File name of a simulation's results inside its output folder.
RESULTS_FILE = "results.parquet"


def provenance(data: GameData) -> dict:
    """What any output must record about where its numbers came from."""
    return {"samsim_version": samsim.__version__, "data_file": data.source,
            "data_sha256": data.sha256, "data_assumed": list(data.assumed)}


# ------------------------------------------------------------------------------------ Parquet I/O


def write_parquet(df: pd.DataFrame, path: str | Path, metadata: dict | None = None) -> Path:
    """Write ``df`` to ``path`` atomically, with ``metadata`` (default ``df.attrs['samsim']``)
    stored as JSON in the file metadata."""
    path = Path(path)
    import pyarrow as pa
    import pyarrow.parquet as pq

    metadata = df.attrs.get("samsim", {}) if metadata is None else metadata
    table = pa.Table.from_pandas(df, preserve_index=False)
    schema_meta = dict(table.schema.metadata or {})
    schema_meta[META_KEY] = json.dumps(metadata, sort_keys=True).encode()
    table = table.replace_schema_metadata(schema_meta)
    _atomic(path, lambda tmp: pq.write_table(table, tmp))
    return path


def read_metadata(path: str | Path) -> dict:
    """The samsim metadata of a Parquet file ({} for a file samsim did not write)."""
    import pyarrow.parquet as pq

    raw = (pq.read_schema(path).metadata or {}).get(META_KEY)
    return json.loads(raw) if raw else {}


def read_parquet(path: str | Path) -> pd.DataFrame:
    """A Parquet file as a frame, its samsim metadata in ``df.attrs['samsim']``."""
    df = pd.read_parquet(path)
    df.attrs["samsim"] = read_metadata(path)
    return df


def _atomic(path: Path, write: Callable[[Path], None]) -> None:
    tmp = path.with_name(f".{path.name}.{os.getpid()}.tmp")
    try:
        write(tmp)
        os.replace(tmp, path)
    except BaseException:
        tmp.unlink(missing_ok=True)
        raise


def prepare_output_dir(path: str | Path) -> Path:
    """Create ``path`` (and its parents) and prove it is writable, before any work is done.

    A run that only discovers at its end that it cannot write its results has wasted the run.
    """
    path = Path(path)
    try:
        path.mkdir(parents=True, exist_ok=True)
        probe = path / f".samsim-write-test.{os.getpid()}"
        probe.write_bytes(b"")
        probe.unlink()
    except OSError as err:
        raise OSError(f"cannot write to output folder {path}: {err.strerror or err}") from None
    return path


# ------------------------------------------------------------------------------------ simulation


def run_simulation(games: int, players: int = 4, seed: int = 0, data: GameData | None = None,
                   params=None, chunk_size: int | None = None, threads: int | None = None,
                   out: str | Path | None = None,
                   progress: Callable[[int], None] | None = None,
                   strategies=None) -> pd.DataFrame:
    """Simulate (seats playing ``strategies``, see ``samsim.engine.run_batch``) and return one row
    per game and seat, with the run's configuration in ``df.attrs['samsim']``.

    ``progress(n)`` is called after each chunk with the games it finished; ``out`` is a folder
    that receives ``results.parquet`` (checked writable before the run starts).
    """
    from samsim import engine

    from samsim.strategy import lineup

    data = data or comps.load()
    seats = lineup(players, strategies, params)
    chunks = engine.simulate_chunks(games, players, seed, data, None,  # params are in the line-up
                                    engine.DEFAULT_CHUNK if chunk_size is None else chunk_size, threads,
                                    strategies=seats)
    folder = prepare_output_dir(out) if out is not None else None
    parts = []
    for part in chunks:
        parts.append(part)
        if progress is not None:
            progress(len(part) // players)
    df = pd.concat(parts, ignore_index=True)
    df.attrs["samsim"] = {
        "kind": "simulate", "games": int(games), "players": int(players), "seed": int(seed),
        "strategies": seats.specs(),
        "chunk_size": int(engine.DEFAULT_CHUNK if chunk_size is None else chunk_size),
        **provenance(data),
    }
    if folder is not None:
        write_parquet(df, folder / RESULTS_FILE)
    return df


__all__ = ["provenance", "write_parquet", "read_parquet", "read_metadata", "prepare_output_dir",
           "run_simulation", "META_KEY", "RESULTS_FILE"]
