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
``samsim.stats.tally.Tally``.

Every file carries, in its Parquet metadata under the key ``samsim``, the run's configuration
(seed, players, seatings, data file and its sha256, strategy source hashes, samsim version,
schema version), so a single chunk file is enough to reproduce its rows. ``load`` reads a file or
a whole folder into pandas.

A folder is trusted only as far as it checks out (``survey``): every chunk must be of the run
``run.json`` describes, named for the games it holds, and no game may be in two chunks; a run is
``complete`` only when its chunks hold each of its games exactly once. A deleted, copied or
foreign chunk is therefore reported, never silently counted. One process writes a run folder at a
time (``writer_lock``).
"""

from __future__ import annotations

import contextlib
import json
import os
import re
import socket
import time
from collections.abc import Callable, Iterator
from dataclasses import dataclass
from pathlib import Path

import numpy as np
import pandas as pd

import samsim
from samsim.components import GameData
from samsim.runs import interrupt, schema

#: Key of samsim's JSON document in a Parquet file's key/value metadata.
META_KEY = b"samsim"
#: The run folder's manifest.
RUN_FILE = "run.json"
#: The writer's lock: held (flock) while a process writes the folder; says who holds it.
LOCK_FILE = ".samsim.lock"
#: Keys of a chunk's metadata that place it in its run, not the run's configuration.
_PLACE = ("first_game", "stop_game", "table")
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
    import pyarrow.parquet as pq

    path = Path(path)
    table = arrow_table(df, df.attrs.get("samsim", {}) if metadata is None else metadata)
    atomic_write(path, lambda tmp: pq.write_table(table, tmp))
    return path


def arrow_table(df: pd.DataFrame, metadata: dict):
    """``df`` as an Arrow table carrying ``metadata`` as JSON under ``META_KEY``: what every
    Parquet file samsim writes holds, whole or streamed."""
    import pyarrow as pa

    table = pa.Table.from_pandas(df, preserve_index=False)
    schema_meta = dict(table.schema.metadata or {})
    schema_meta[META_KEY] = json.dumps(metadata, sort_keys=True).encode()
    return table.replace_schema_metadata(schema_meta)


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


def atomic_write(path: Path, write: Callable[[Path], None]) -> None:
    """``write(tmp)``, then ``tmp`` renamed over ``path``: the temporary file lies in the same
    folder and is fsynced, and so is the folder, so after a crash ``path`` is either the old
    file or the whole new one."""
    tmp = path.with_name(f".{path.name}.{os.getpid()}.tmp")
    try:
        write(tmp)
        fd = os.open(tmp, os.O_RDONLY)
        try:
            os.fsync(fd)
        finally:
            os.close(fd)
        os.replace(tmp, path)
    except OSError as error:  # a full disk, a lost mount: which file, not just "[Errno 28]"
        tmp.unlink(missing_ok=True)
        reason = error.strerror or " ".join(str(error).split())
        raise ResultsError(f"cannot write {path}: {reason}") from None
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


def write_text(path: str | Path, text: str) -> Path:
    """A text file (a report, a manifest) written as atomically and durably as a chunk."""
    path = Path(path)
    atomic_write(path, lambda tmp: tmp.write_text(text, encoding="utf-8"))
    return path


def _write_json(path: Path, doc: dict) -> None:
    write_text(path, json.dumps(doc, indent=2, sort_keys=True) + "\n")


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
    if out.is_dir() and not exists and any(p.name != LOCK_FILE for p in out.iterdir()):
        raise ResultsError(f"{out} is not empty and holds no samsim run ({RUN_FILE} missing): "
                           f"choose a new or empty folder for --out")
    if exists and not (resume or overwrite):
        finished = survey(out).complete if manifest.stat().st_size else False
        raise ResultsError(f"{out} already holds a finished run: add --resume to use it as it is "
                           f"(nothing is played again), --overwrite to replace it, or choose "
                           f"another --out" if finished else
                           f"{out} already holds a run: add --resume to finish it, or "
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
    for first, stop, path in _parts(out / "results"):
        try:
            read_metadata(path)
        except Exception:  # noqa: BLE001  (any failure to read means: play it again)
            warn(f"{path} is unreadable; its games are played again")
            path.unlink()
    checked = survey(out, "results")  # a foreign or overlapping chunk is refused, not resumed
    kept = set(checked.ranges)
    for table in TABLES:  # chunks not finished in every table recorded: played again
        for first, stop, path in _parts(out / table):
            if (first, stop) not in kept:
                if table == "results":
                    warn(f"{path} has no {', '.join(config['record'])} records beside it; its "
                         f"games are played again")
                path.unlink()
    return checked.missing


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


def _read_part(path: Path, table: str, meta: dict) -> pd.DataFrame:
    try:
        df = pd.read_parquet(path)
    except Exception as error:  # noqa: BLE001  (pyarrow raises many kinds for a bad file)
        raise _unreadable(path, error) from None
    _check_frame(df, path, table, meta.get("schema_version", 1))
    first, stop = meta.get("first_game"), meta.get("stop_game")
    if table == "results" and first is not None and (
            len(df) != (stop - first) * meta.get("players", 0)
            or (len(df) and (df["game"].iloc[0] != first or df["game"].iloc[-1] != stop - 1))):
        raise ResultsError(f"{path} says it holds games {first:,}..{stop - 1:,} but its rows do "
                           f"not (edited?): delete it and finish the run with --resume")
    df.attrs["samsim"] = meta
    return df


def _unreadable(path: Path, error: Exception) -> ResultsError:
    reason = " ".join(str(error).split())[:120]
    return ResultsError(f"{path} is not a readable Parquet file ({reason}): delete it (and "
                        f"finish its run with --resume) or give another file")


@dataclass
class Survey:
    """What a results path holds, checked: one table's chunk files in game order, the run's
    configuration, and the games its files hold (``ranges``) and lack (``missing``)."""

    path: Path
    table: str
    files: list[Path]
    metas: list[dict]  # each file's samsim metadata, as read for the check
    config: dict
    ranges: list[tuple[int, int]]
    marked_complete: bool  # run.json says the run finished (a lone file: True)

    def frames(self) -> Iterator[pd.DataFrame]:
        """The files' frames, one at a time, in game order."""
        for file, meta in zip(self.files, self.metas):
            yield _read_part(file, self.table, meta)

    @property
    def games(self) -> int:
        return int(self.config.get("games", 0))

    @property
    def games_found(self) -> int:
        return sum(b - a for a, b in self.ranges)

    @property
    def spans(self) -> list[tuple[int, int]]:
        """``ranges`` with adjacent chunks joined: the runs of consecutive games held."""
        out: list[tuple[int, int]] = []
        for first, stop in self.ranges:
            if out and out[-1][1] == first:
                out[-1] = (out[-1][0], stop)
            else:
                out.append((first, stop))
        return out

    @property
    def missing(self) -> list[tuple[int, int]]:
        return _missing(self.ranges, self.games)

    @property
    def complete(self) -> bool:
        return self.marked_complete and not self.missing

    def describe(self) -> str:
        """"33,616 of 50,000 games; missing 16,384-32,767" (or "50,000 games")."""
        if not self.missing:
            return f"{self.games_found:,} games"
        gaps = [f"{a:,}-{b - 1:,}" if b - a > 1 else f"{a:,}" for a, b in self.missing]
        more = f" and {len(gaps) - 3} more ranges" if len(gaps) > 3 else ""
        return f"{self.games_found:,} of {self.games:,} games; missing {', '.join(gaps[:3])}{more}"

    def metadata(self) -> dict:
        return {**self.config, "games_found": self.games_found, "complete": self.complete,
                "missing": [list(r) for r in self.missing]}


def _chunk_meta(path: Path) -> dict:
    try:
        meta = read_metadata(path)
    except Exception as error:  # noqa: BLE001  (pyarrow raises many kinds for a bad file)
        raise _unreadable(path, error) from None
    if not meta:
        raise ResultsError(f"{path} was not written by samsim (no samsim metadata): give a file "
                           f"or folder written by samsim simulate")
    if meta.get("schema_version", 0) > schema.SCHEMA_VERSION:
        raise ResultsError(f"{path} has results schema {meta['schema_version']}, newer than this "
                           f"samsim {samsim.__version__} reads ({schema.SCHEMA_VERSION}): upgrade samsim")
    return meta


def _places(meta: dict, path: Path) -> list[tuple[int, int]]:
    """The game ids a file holds, as ranges: a chunk says so in its metadata; a table saved
    otherwise (``write_parquet`` of a loaded frame) is read for them."""
    first, stop = meta.get("first_game"), meta.get("stop_game")
    if isinstance(first, int) and isinstance(stop, int) and 0 <= first < stop:
        return [(first, stop)]
    import pyarrow.parquet as pq

    try:
        ids = np.unique(pq.read_table(path, columns=["game"]).column("game").to_numpy())
    except Exception:  # noqa: BLE001  (no game column: _check_frame says so when it is read)
        return []
    breaks = np.flatnonzero(np.diff(ids) != 1) + 1
    return [(int(run[0]), int(run[-1]) + 1) for run in np.split(ids, breaks) if len(run)]


def _run_config(meta: dict) -> dict:
    return {k: v for k, v in meta.items() if k not in _PLACE}


def survey(path: str | Path, table: str = "results") -> Survey:
    """Check the chunk files of ``table`` behind ``path`` (a run folder, a folder of chunk files,
    or one chunk file) against each other and against ``run.json``. A chunk of another run, one
    named for games it does not hold, or two chunks holding the same game raise ResultsError
    naming the file: counting them would give wrong numbers, silently. Missing games are not an
    error here: ``Survey.missing`` says which."""
    if table not in schema.TABLES:
        raise ResultsError(f"unknown table {table!r} (tables: {', '.join(schema.TABLES)})")
    path = Path(path)
    if not path.exists():
        raise ResultsError(f"{path} does not exist")
    if path.is_file():
        meta = _chunk_meta(path)
        own = meta.get("table", "results")
        if own != table:  # a lone chunk file: its other table lies in the sibling folder
            sibling = path.parent.parent / table / path.name
            if not sibling.is_file():
                raise ResultsError(f"{path} is a {own} chunk, and no {table} chunk lies beside it "
                                   f"({sibling})")
            path, meta = sibling, _chunk_meta(sibling)
        return Survey(path, table, [path], [meta], _run_config(meta), _places(meta, path), True)
    manifest = path / RUN_FILE
    config, marked, folder = None, True, path
    if manifest.is_file():
        try:
            doc = json.loads(manifest.read_text(encoding="utf-8"))
            config, marked = dict(doc["samsim"]), bool(doc.get("complete"))
        except (OSError, ValueError, KeyError, TypeError):
            raise ResultsError(f"{manifest} is unreadable") from None
        folder = path / table
        if not _parts(folder) and table != "results" and table not in config.get("record", []):
            raise ResultsError(f"{path} holds no {table} records: simulate with --record {table}")
        candidates = [p for *_, p in _parts(folder)]
        if config.get("record"):  # a chunk is finished when every table holds it (results last)
            names = [{p.name for *_, p in _parts(path / t)} for t in ("results", *config["record"])]
            candidates = [p for p in candidates if all(p.name in n for n in names)]
    else:
        if path.name in schema.TABLES and path.name != table and (path.parent / table).is_dir():
            path = folder = path.parent / table  # a run's table folder: the other lies beside it
        candidates = [p for *_, p in _parts(path)] or sorted(path.glob("*.parquet"))
        if not candidates:
            raise ResultsError(_not_a_run(path))
    metas = {file: _chunk_meta(file) for file in candidates}
    _check_manifest(path, config, metas)
    placed = []
    for file, meta in metas.items():
        places = _places(meta, file)
        named = _PART.match(file.name)
        if named and [(int(named.group(1)), int(named.group(2)))] != places:
            raise ResultsError(f"{file} is named for games {int(named.group(1)):,}.."
                               f"{int(named.group(2)) - 1:,} but holds others (renamed or "
                               f"copied?): remove it from {folder}")
        if meta.get("table", "results") != table:
            raise ResultsError(f"{file} is a {meta.get('table')} chunk, not {table}: remove it "
                               f"from {folder}")
        if config is None:
            config = _run_config(meta)
        difference = _describe_difference(config, _run_config(meta))
        if difference:
            raise ResultsError(f"{file} is not a chunk of the run in {path} ({difference}): "
                               f"remove it from {folder}")
        placed += [(first, stop, file) for first, stop in places]
    placed.sort()
    for (a0, b0, f0), (a1, b1, f1) in zip(placed, placed[1:]):
        if a1 < b0:
            raise ResultsError(f"{f0.name} and {f1.name} in {folder} both hold games {a1:,}.."
                               f"{min(b0, b1) - 1:,} (a copied chunk, or two runs written into "
                               f"one folder): remove the stray file, or start again with "
                               f"--overwrite")
    games = int(config.get("games", placed[-1][1] if placed else 0))
    for first, stop, file in placed:
        if stop > games:
            raise ResultsError(f"{file} holds games up to {stop - 1:,}, beyond this run's "
                               f"{games:,}: remove it from {folder}")
    files = list(dict.fromkeys(f for *_, f in placed))  # a saved table may hold several ranges
    return Survey(path, table, files, [metas[f] for f in files], config,
                  [(a, b) for a, b, _ in placed], marked)


def _not_a_run(path: Path) -> str:
    runs = sorted(p.parent.name for p in path.glob(f"*/{RUN_FILE}"))
    if runs:
        return (f"{path} holds several runs, not one: give them ({', '.join(runs)}) as "
                f"{' '.join(str(path / r) for r in runs)}")
    if _parts(path / "results"):
        return (f"{path} has chunks in results/ but no {RUN_FILE} (deleted?): give {path / 'results'} "
                f"to read them as they are")
    return f"{path} holds no samsim results (no {RUN_FILE}, no .parquet files)"


def _check_manifest(path: Path, config: dict | None, metas: dict[Path, dict]) -> None:
    """When every chunk disagrees with run.json alike, run.json is the one that changed."""
    if config is None or len(metas) < 2:
        return
    found = {_describe_difference(config, _run_config(meta)) for meta in metas.values()}
    if len(found) == 1 and "" not in found:
        raise ResultsError(f"{path / RUN_FILE} disagrees with every chunk of the run "
                           f"({found.pop()}): was it edited? Restore it, or start the run again "
                           f"with --overwrite")


def iter_chunks(path: str | Path, table: str = "results") -> Iterator[pd.DataFrame]:
    """The frames of a results file or folder, one chunk file at a time (what a report of ten
    million games reads without holding them all); checked first (``survey``)."""
    return survey(path, table).frames()


def run_metadata(path: str | Path) -> dict:
    """The configuration of a results file or folder, with ``games_found`` (games in its files),
    ``missing`` (ranges of game ids no file holds, stop exclusive) and ``complete`` (True only
    for a finished run whose chunks hold every game once)."""
    return survey(path, "results").metadata()


def load(path: str | Path, table: str = "results") -> pd.DataFrame:
    """A results file or run folder as one frame (``samsim.runs.schema``: one row per game and seat,
    and per round for ``table="rounds"``), in game order, the run's configuration in
    ``df.attrs['samsim']``. An interrupted or damaged run loads what it holds, and says so:
    ``complete`` is False and ``missing`` lists the games it lacks."""
    checked = survey(path, table)
    parts = list(checked.frames())
    if not parts:
        columns = schema.TABLES[table]
        df = pd.DataFrame({c.name: pd.Series(dtype=c.dtype) for c in columns})
    else:
        df = parts[0] if len(parts) == 1 else pd.concat(parts, ignore_index=True)
    df.attrs["samsim"] = {**checked.metadata(), "table": table}
    return df


def _holder(fd: int) -> str:
    return os.pread(fd, 300, 0).decode(errors="replace").strip() or "another process"


def writer(out: str | Path) -> str | None:
    """Who is writing the run folder ``out`` now (as its lock says), or None."""
    try:
        import fcntl
    except ImportError:  # pragma: no cover  (Windows)
        return None
    try:
        fd = os.open(Path(out) / LOCK_FILE, os.O_RDONLY)
    except OSError:
        return None
    try:
        fcntl.flock(fd, fcntl.LOCK_SH | fcntl.LOCK_NB)
        return None
    except OSError:
        return _holder(fd)
    finally:
        os.close(fd)


@contextlib.contextmanager
def writer_lock(out: str | Path):
    """Hold ``out``'s lock while writing it, or raise ResultsError at once if another process
    holds it: two writers in one folder would interleave chunks of different runs.

    An flock, not a file whose existence is the lock: the kernel drops it when its process dies
    however it dies, so a crashed writer never leaves the folder locked (its lock file stays and
    is taken over). POSIX only: elsewhere no lock is taken."""
    try:
        import fcntl
    except ImportError:  # pragma: no cover  (Windows)
        yield
        return
    out = Path(out)
    if out.exists() and not out.is_dir():
        raise ResultsError(f"{out} is a file, not a folder: choose another --out")
    prepare_output_dir(out)
    fd = os.open(out / LOCK_FILE, os.O_RDWR | os.O_CREAT, 0o644)
    try:
        try:
            fcntl.flock(fd, fcntl.LOCK_EX | fcntl.LOCK_NB)
        except OSError:
            raise ResultsError(f"{out} is being written by {_holder(fd)}: wait for it to finish, "
                               f"or choose another --out") from None
        os.ftruncate(fd, 0)
        os.pwrite(fd, f"samsim pid {os.getpid()} on {socket.gethostname()} since "
                      f"{time.strftime('%Y-%m-%d %H:%M:%S')}\n".encode(), 0)
        yield
    finally:
        os.close(fd)  # releases the lock; the file stays (removing it would race a new writer)


# ------------------------------------------------------------------------------------ simulation


def run_config(games: int, players: int, seed: int, data: GameData, seats, record=()) -> dict:
    """The configuration a run records: everything that determines its rows. ``seatings`` lists
    each seating's specs (game id k plays seating k mod len(seatings)); a pool is recorded as
    ``pool`` and ``design`` instead (``samsim.engine.designs.pool_design`` rebuilds its seatings)."""
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
    """Simulate (seats playing ``strategies``: specs or a ``samsim.engine.registry`` line-up, e.g.
    ``samsim.engine.designs.pool_design(4, pool)``), writing chunk by chunk to the run folder ``out``
    if given; returns the run's ``samsim.stats.tally.Tally`` (finished chunks of a resumed run
    included).

    ``record``: extra tables to keep (``("rounds",)``). ``progress(n)`` is called with the games
    already finished (on resume) and then as games are played; ``before_play()`` once the output is
    ready and before the first game (where a caller loads the kernel, so that the time it takes
    is not counted as play).
    """
    from samsim import engine
    from samsim.stats.tally import Tally

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
    with writer_lock(out) if out is not None else contextlib.nullcontext():
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
                                           record="rounds" in record, progress=progress):
            frame = schema.results_frame(st, first, n, specs)
            rounds = schema.rounds_frame(st, first, n, specs) if "rounds" in record else None
            if out is not None:
                with interrupt.deferred():  # a chunk played is a chunk kept
                    if rounds is not None:  # records first: the results file marks it finished
                        write_chunk(out, "rounds", rounds, first, first + n, config)
                    write_chunk(out, "results", frame, first, first + n, config)
            tally.add(frame)
            if rounds is not None:
                tally.add_rounds(rounds)
        if out is not None:
            finish_run(out)
    tally.meta = {**config, "chunk_size": chunk_size}
    return tally


__all__ = ["provenance", "atomic_write", "write_text", "arrow_table", "write_parquet", "read_parquet",
           "read_metadata", "prepare_output_dir", "open_run", "finish_run", "write_chunk", "survey", "Survey", "writer", "writer_lock",
           "iter_chunks", "run_metadata", "load",
           "run_config", "run_simulation", "ResultsError", "META_KEY", "RUN_FILE", "TABLES"]
