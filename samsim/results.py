"""Results on disk: a run folder of Parquet chunks that survives being killed, resumes, and says
how it was made.

A run with ``out=DIR`` writes::

    DIR/run.json                   the run's configuration and provenance; "complete" when done
    DIR/results/<first>-<stop>.parquet   one file per chunk of games first..stop-1 (schema "results")
    DIR/rounds/<first>-<stop>.parquet    the same chunks' per-round records (only if recorded)

Every chunk file is written under a temporary name, flushed to disk (fsync) and renamed, so a
chunk either exists whole or not at all: killing the run (Ctrl-C, SIGTERM, SIGKILL, a power cut)
loses at most the chunks in flight. ``resume`` plays only the games no finished chunk holds; since
every game is keyed by (seed, game id), the resumed folder holds exactly the rows of an
uninterrupted run. Memory is bounded by the chunk size: nothing accumulates but the counts of a
``samsim.stats.Tally``.

Every file carries, in its Parquet metadata under the key ``samsim``, the run's configuration
(seed, players, seatings, data file and its sha256, samsim version, schema version), so a single
chunk file is enough to reproduce its rows. ``load`` reads a file or a whole folder into pandas.
"""

from __future__ import annotations

import json
import os
import re
from collections.abc import Callable, Iterator
from pathlib import Path

import pandas as pd

import samsim
from samsim import schema
from samsim.components import GameData

#: Key of samsim's JSON document in a Parquet file's key/value metadata.
META_KEY = b"samsim"
#: The run folder's manifest.
RUN_FILE = "run.json"
#: What a run folder may hold (``--overwrite`` removes exactly these, nothing else).
TABLES = tuple(schema.TABLES)
_PART = re.compile(r"^(\d{12})-(\d{12})\.parquet$")


class ResultsError(ValueError):
    """A results path that cannot be used: missing, foreign, corrupt, or not this run's."""


def provenance(data: GameData) -> dict:
    """What any output must record about where its numbers came from."""
    return {"samsim_version": samsim.__version__, "data_file": data.source,
            "data_sha256": data.sha256, "data_assumed": list(data.assumed)}


# ------------------------------------------------------------------------------------ Parquet I/O


def write_parquet(df: pd.DataFrame, path: str | Path, metadata: dict | None = None) -> Path:
    """Write ``df`` to ``path`` atomically and durably, with ``metadata`` (default
    ``df.attrs['samsim']``) stored as JSON in the file metadata."""
    import pyarrow as pa
    import pyarrow.parquet as pq

    path = Path(path)
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
    """Write through a temporary file in the same folder, fsync it, rename it over ``path`` and
    fsync the folder: after a crash ``path`` is either the old file or the whole new one."""
    tmp = path.with_name(f".{path.name}.{os.getpid()}.tmp")
    try:
        write(tmp)
        fd = os.open(tmp, os.O_RDONLY)
        try:
            os.fsync(fd)
        finally:
            os.close(fd)
        os.replace(tmp, path)
    except BaseException:
        tmp.unlink(missing_ok=True)
        raise
    _fsync_dir(path.parent)


def _fsync_dir(folder: Path) -> None:
    try:
        fd = os.open(folder, os.O_RDONLY)
    except OSError:  # not every platform opens folders
        return
    try:
        os.fsync(fd)
    except OSError:
        pass
    finally:
        os.close(fd)


def _write_json(path: Path, doc: dict) -> None:
    _atomic(path, lambda tmp: tmp.write_text(json.dumps(doc, indent=2, sort_keys=True) + "\n",
                                             encoding="utf-8"))


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
        raise ResultsError(f"cannot write to output folder {path}: {err.strerror or err}; "
                           f"choose another --out") from None
    return path


# ------------------------------------------------------------------------------------ run folders


def _parts(folder: Path) -> list[tuple[int, int, Path]]:
    """The chunk files of one table folder, as (first, stop, path), in game order."""
    if not folder.is_dir():
        return []
    found = []
    for path in folder.iterdir():
        m = _PART.match(path.name)
        if m:
            found.append((int(m.group(1)), int(m.group(2)), path))
    return sorted(found)


def part_name(first: int, stop: int) -> str:
    return f"{first:012d}-{stop:012d}.parquet"


def _missing(done: list[tuple[int, int]], games: int) -> list[tuple[int, int]]:
    gaps, at = [], 0
    for first, stop in sorted(done):
        if first > at:
            gaps.append((at, first))
        at = max(at, stop)
    if at < games:
        gaps.append((at, games))
    return gaps


def _describe_difference(old: dict, new: dict) -> str:
    """The first setting two runs differ in (the data file's path may move: its hash may not)."""
    for key in sorted((set(old) | set(new)) - {"data_file"}):
        if old.get(key) != new.get(key):
            return f"{key} {json.dumps(old.get(key))}, not {json.dumps(new.get(key))}"
    return ""


def open_run(out: str | Path, config: dict, resume: bool = False, overwrite: bool = False,
             warn: Callable[[str], None] = lambda message: None) -> list[tuple[int, int]]:
    """Make ``out`` ready for the run ``config`` describes; returns the game ranges still to play.

    A folder that already holds a run is resumed only with ``resume`` (and only if it is the same
    run: same configuration, samsim version and strategy sources) and replaced only with
    ``overwrite``; anything else is refused, so no result is ever lost by mistake. A folder that
    is not a run folder is never touched unless empty.
    """
    if resume and overwrite:
        raise ResultsError("give --resume or --overwrite, not both")
    out = Path(out)
    if out.exists() and not out.is_dir():
        raise ResultsError(f"{out} is a file, not a folder: choose another --out")
    manifest = out / RUN_FILE
    exists = manifest.is_file()
    if out.is_dir() and not exists and any(p for p in out.iterdir()):
        raise ResultsError(f"{out} is not empty and holds no samsim run ({RUN_FILE} missing): "
                           f"choose a new or empty folder for --out")
    if exists and not (resume or overwrite):
        raise ResultsError(f"{out} already holds a run: add --resume to finish it, or "
                           f"--overwrite to replace it")
    prepare_output_dir(out)
    games = config["games"]
    if exists and overwrite:
        for table in TABLES:
            for *_, path in _parts(out / table):
                path.unlink()
        manifest.unlink()
        exists = False
    if not exists:
        _write_json(manifest, {"samsim": config, "complete": False})
        return [(0, games)]
    try:
        old = json.loads(manifest.read_text(encoding="utf-8"))["samsim"]
    except (OSError, ValueError, KeyError, TypeError):
        raise ResultsError(f"{manifest} is unreadable: use --overwrite to start the run "
                           f"again") from None
    difference = _describe_difference(old, config)
    if difference:
        raise ResultsError(f"{out} holds a different run ({difference}): give the options it was "
                           f"started with to --resume it, or --overwrite to replace it")
    for table in TABLES:  # temporary files of chunks that were in flight when the run died
        folder = out / table
        for stale in folder.glob(".*.tmp") if folder.is_dir() else ():
            stale.unlink(missing_ok=True)
    done = []
    for first, stop, path in _parts(out / "results"):
        try:
            read_metadata(path)
        except Exception:  # noqa: BLE001  (any failure to read means: play it again)
            warn(f"{path} is unreadable; its games are played again")
            path.unlink()
            continue
        if not 0 <= first < stop <= games or any(a < stop and first < b for a, b in done):
            raise ResultsError(f"{path} does not fit this run of {games} games: use --overwrite")
        done.append((first, stop))
    kept = set(done)
    for table in TABLES[1:]:  # records of chunks whose results were not finished
        for first, stop, path in _parts(out / table):
            if (first, stop) not in kept:
                path.unlink()
    return _missing(done, games)


def finish_run(out: str | Path) -> None:
    manifest = Path(out) / RUN_FILE
    doc = json.loads(manifest.read_text(encoding="utf-8"))
    doc["complete"] = True
    _write_json(manifest, doc)


def write_chunk(out: str | Path, table: str, df: pd.DataFrame, first: int, stop: int,
                config: dict) -> Path:
    folder = Path(out) / table
    folder.mkdir(exist_ok=True)
    meta = {**config, "table": table, "first_game": first, "stop_game": stop}
    return write_parquet(df, folder / part_name(first, stop), meta)


# ------------------------------------------------------------------------------------ reading


def _check_frame(df: pd.DataFrame, path: Path, table: str, version: int) -> None:
    """Every column of the file's schema version is there (older files lack the newer ones)."""
    missing = [c.name for c in schema.TABLES[table] if c.since <= version and c.name not in df.columns]
    if missing:
        raise ResultsError(f"{path} is not a samsim {table} table (no column {missing[0]!r}): "
                           f"give a file or folder written by samsim simulate")


def _read_part(path: Path, table: str) -> pd.DataFrame:
    try:
        meta = read_metadata(path)
        df = pd.read_parquet(path)
    except Exception as error:  # noqa: BLE001  (pyarrow raises many kinds for a bad file)
        reason = " ".join(str(error).split())[:120]
        raise ResultsError(f"{path} is not a readable Parquet file ({reason})") from None
    if not meta:
        raise ResultsError(f"{path} was not written by samsim (no samsim metadata): give a file "
                           f"or folder written by samsim simulate")
    if meta.get("schema_version", 0) > schema.SCHEMA_VERSION:
        raise ResultsError(f"{path} has results schema {meta['schema_version']}, newer than this "
                           f"samsim {samsim.__version__} reads ({schema.SCHEMA_VERSION}): upgrade samsim")
    _check_frame(df, path, table, meta.get("schema_version", 1))
    df.attrs["samsim"] = meta
    return df


def _sources(path: Path, table: str) -> tuple[list[Path], dict]:
    """The chunk files behind ``path`` (a file, a run folder, or a folder of chunk files) and
    the run's metadata."""
    if not path.exists():
        raise ResultsError(f"{path} does not exist")
    if path.is_file():
        return [path], {}
    manifest = path / RUN_FILE
    meta = {}
    if manifest.is_file():
        try:
            doc = json.loads(manifest.read_text(encoding="utf-8"))
            meta = {**doc["samsim"], "complete": bool(doc.get("complete"))}
        except (OSError, ValueError, KeyError, TypeError):
            raise ResultsError(f"{manifest} is unreadable") from None
        folder = path / table
        files = [p for *_, p in _parts(folder)]
        if not files and table != "results" and table not in meta.get("record", []):
            raise ResultsError(f"{path} holds no {table} records: simulate with --record {table}")
        return files, meta
    files = [p for *_, p in _parts(path)] or sorted(path.glob("*.parquet"))
    if not files:
        raise ResultsError(f"{path} holds no samsim results (no {RUN_FILE}, no .parquet files)")
    return files, meta


def iter_chunks(path: str | Path, table: str = "results") -> Iterator[pd.DataFrame]:
    """The frames of a results file or folder, one chunk file at a time (what a report of ten
    million games reads without holding them all)."""
    if table not in schema.TABLES:
        raise ResultsError(f"unknown table {table!r} (tables: {', '.join(schema.TABLES)})")
    files, _ = _sources(Path(path), table)
    for file in files:
        yield _read_part(file, table)


def run_metadata(path: str | Path) -> dict:
    """The configuration of a results file or folder, with ``games_found`` (games in its files)
    and ``complete`` (False for an interrupted run)."""
    path = Path(path)
    files, meta = _sources(path, "results")
    found = 0
    for file in files:
        file_meta = read_metadata(file) if file.suffix == ".parquet" else {}
        if not meta:
            meta = {k: v for k, v in file_meta.items() if k not in ("first_game", "stop_game", "table")}
        first, stop = file_meta.get("first_game"), file_meta.get("stop_game")
        found += stop - first if first is not None else 0
    meta = dict(meta)
    meta["games_found"] = found
    meta.setdefault("complete", found == meta.get("games"))
    return meta


def load(path: str | Path, table: str = "results") -> pd.DataFrame:
    """A results file or run folder as one frame (``samsim.schema``: one row per game and seat,
    and per round for ``table="rounds"``), in game order, the run's configuration in
    ``df.attrs['samsim']``. An interrupted run loads what it finished (``complete`` is False)."""
    parts = list(iter_chunks(path, table))
    if not parts:
        columns = schema.TABLES[table]
        df = pd.DataFrame({c.name: pd.Series(dtype=c.dtype) for c in columns})
    else:
        df = parts[0] if len(parts) == 1 else pd.concat(parts, ignore_index=True)
        if len(parts) > 1 and not df["game"].is_monotonic_increasing:
            df = df.sort_values(["game", "seat"], kind="stable", ignore_index=True)
    df.attrs["samsim"] = {**run_metadata(path), "table": table}
    return df


# ------------------------------------------------------------------------------------ simulation


def run_config(games: int, players: int, seed: int, data: GameData, seats, record=()) -> dict:
    """The configuration a run records: everything that determines its rows. ``seatings`` lists
    each seating's specs (game id k plays seating k mod len(seatings)); a pool is recorded as
    ``pool`` and ``design`` instead (``samsim.designs.pool_design`` rebuilds its seatings)."""
    return {
        "kind": "simulate", "schema_version": schema.SCHEMA_VERSION,
        "games": int(games), "players": int(players), "seed": int(seed),
        **seats.config(),
        "strategy_sources": {info.name: info.source_hash for info in seats.infos},
        "record": sorted(record), **provenance(data),
    }


def run_simulation(games: int, players: int = 4, seed: int = 0, data: GameData | None = None,
                   params=None, chunk_size: int | None = None, threads: int | None = None,
                   out: str | Path | None = None, strategies=None, record=(),
                   resume: bool = False, overwrite: bool = False,
                   progress: Callable[[int], None] | None = None,
                   before_play: Callable[[], None] | None = None,
                   warn: Callable[[str], None] = lambda message: None):
    """Simulate (seats playing ``strategies``: specs or a ``samsim.strategy`` line-up, e.g.
    ``samsim.designs.pool_design(4, pool)``), writing chunk by chunk to the run folder ``out``
    if given; returns the run's ``samsim.stats.Tally`` (finished chunks of a resumed run
    included).

    ``record``: extra tables to keep (``("rounds",)``). ``progress(n)`` is called with the games
    already finished (on resume) and then after each chunk; ``before_play()`` once the output is
    ready and before the first game (where a caller loads the kernel, so that the time it takes
    is not counted as play).
    """
    from samsim import engine
    from samsim.stats import Tally

    record = tuple(record)
    unknown = sorted(set(record) - set(TABLES[1:]))
    if unknown:
        raise ResultsError(f"cannot record {unknown[0]!r} (records: {', '.join(TABLES[1:])})")
    games, players, seed, data, seats, chunk_size, threads = engine.checked(
        games, players, seed, data, params,
        engine.DEFAULT_CHUNK if chunk_size is None else chunk_size, threads, strategies)
    specs = seats.specs()
    config = run_config(games, players, seed, data, seats, record)
    tally = Tally()
    todo = [(0, games)]
    if out is not None:
        todo = open_run(out, config, resume, overwrite, warn)
        if todo != [(0, games)]:
            for frame in iter_chunks(out, "results"):
                tally.add(frame)
            if "rounds" in record:
                for frame in iter_chunks(out, "rounds"):
                    tally.add_rounds(frame)
    if before_play is not None and todo:
        before_play()
    if progress is not None:
        progress(games - sum(b - a for a, b in todo))
    for first, n, st in engine.batches(todo, players, seed, data, seats, chunk_size, threads,
                                       record="rounds" in record):
        frame = schema.results_frame(st, first, n, specs)
        rounds = schema.rounds_frame(st, first, n, specs) if "rounds" in record else None
        if out is not None:
            if rounds is not None:  # records first: the results file marks the chunk finished
                write_chunk(out, "rounds", rounds, first, first + n, config)
            write_chunk(out, "results", frame, first, first + n, config)
        tally.add(frame)
        if rounds is not None:
            tally.add_rounds(rounds)
        if progress is not None:
            progress(n)
    if out is not None:
        finish_run(out)
    tally.meta = {**config, "chunk_size": chunk_size}
    return tally


__all__ = ["provenance", "write_parquet", "read_parquet", "read_metadata", "prepare_output_dir",
           "open_run", "finish_run", "write_chunk", "iter_chunks", "run_metadata", "load",
           "run_config", "run_simulation", "ResultsError", "META_KEY", "RUN_FILE", "TABLES"]
