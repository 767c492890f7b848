"""Experiment files: a run (or one per player count) and its report, written down so that anyone
can run it again and get the same numbers.

An experiment is a TOML file in ``experiments/``; ``samsim run experiments/NAME.toml`` plays it
into ``results/NAME/`` (one run folder per player count, ``<N>p/``) and writes the report to
``results/NAME/report/``. Keys (all but ``games`` optional)::

    description = "What question this answers"
    players = [3, 4, 5, 6]         # or one count; default 4
    games = 100000                 # per player count
    seed = 7
    pool = ["greedy", "undercut"]  # rotated through the seats (the games are rounded up to a
                                   # multiple of the pool so every strategy plays every seat
                                   # equally often) ...
    strategies = ["greedy", "random", "random", "random"]  # ... or one per seat (one count only)
    rules = "variant.toml"         # a data file, relative to the experiment file
    record = ["rounds"]            # per-round records (money over rounds in the report)
    chunk_size = 16384

Paths are relative to the experiment file, so an experiment and its variant data travel together.
"""

from __future__ import annotations

import tomllib
from dataclasses import dataclass, field
from pathlib import Path

KEYS = {"description", "players", "games", "seed", "pool", "strategies", "rules", "record",
        "chunk_size"}


class ExperimentError(ValueError):
    """An experiment file samsim cannot run (says which key is wrong and how)."""


@dataclass
class Experiment:
    name: str
    path: Path
    games: int
    players: list[int] = field(default_factory=lambda: [4])
    seed: int = 0
    pool: list[str] | None = None
    strategies: list[str] | None = None
    rules: Path | None = None
    record: list[str] = field(default_factory=list)
    chunk_size: int | None = None
    description: str = ""

    def run_dir(self, root: Path, players: int) -> Path:
        return Path(root) / self.name / f"{players}p"

    def report_dir(self, root: Path) -> Path:
        return Path(root) / self.name / "report"


def _whole(doc, key, lo, hi, where):
    value = doc[key]
    if not isinstance(value, int) or isinstance(value, bool) or not lo <= value <= hi:
        raise ExperimentError(f"{where}: {key} must be a whole number {lo}..{hi}, got {value!r}")
    return value


def _names(doc, key, where) -> list[str]:
    value = doc[key]
    if not isinstance(value, list) or not value or not all(isinstance(v, str) for v in value):
        raise ExperimentError(f"{where}: {key} must be a list of strategy specs, e.g. "
                              f"[\"greedy\", \"undercut(margin=2)\"]")
    return value


def load(path: str | Path) -> Experiment:
    """Read and check an experiment file; every mistake is one ``ExperimentError`` line."""
    path = Path(path)
    where = str(path)
    if path.suffix != ".toml":
        raise ExperimentError(f"{where}: an experiment is a .toml file")
    try:
        doc = tomllib.loads(path.read_text(encoding="utf-8"))
    except FileNotFoundError:
        raise ExperimentError(f"{where} does not exist") from None
    except (OSError, UnicodeDecodeError) as error:
        raise ExperimentError(f"{where} cannot be read: {error}") from None
    except tomllib.TOMLDecodeError as error:
        raise ExperimentError(f"{where} is not valid TOML: {error}") from None
    unknown = sorted(set(doc) - KEYS)
    if unknown:
        raise ExperimentError(f"{where}: unknown key {unknown[0]!r} (keys: {', '.join(sorted(KEYS))})")
    if "games" not in doc:
        raise ExperimentError(f"{where}: say how many games to play per player count: games = 100000")
    exp = Experiment(name=path.stem, path=path, games=_whole(doc, "games", 1, 10**12, where))
    if "players" in doc:
        players = doc["players"] if isinstance(doc["players"], list) else [doc["players"]]
        exp.players = [_whole({"players": p}, "players", 3, 6, where) for p in players]
        if not exp.players or len(set(exp.players)) != len(exp.players):
            raise ExperimentError(f"{where}: players must list distinct player counts 3..6")
    if "seed" in doc:
        exp.seed = _whole(doc, "seed", 0, 2**64 - 1, where)
    if "pool" in doc and "strategies" in doc:
        raise ExperimentError(f"{where}: give pool (rotated through the seats) or strategies "
                              f"(one per seat), not both")
    if "pool" in doc:
        exp.pool = _names(doc, "pool", where)
    if "strategies" in doc:
        exp.strategies = _names(doc, "strategies", where)
        if len(exp.players) != 1:
            raise ExperimentError(f"{where}: strategies (one per seat) needs a single player "
                                  f"count; use pool for several")
    if "rules" in doc:
        if not isinstance(doc["rules"], str):
            raise ExperimentError(f"{where}: rules must be the path of a data file")
        exp.rules = (path.parent / doc["rules"]).resolve()
    if "record" in doc:
        exp.record = _names(doc, "record", where)
    if "chunk_size" in doc:
        exp.chunk_size = _whole(doc, "chunk_size", 1, 10**9, where)
    if "description" in doc:
        if not isinstance(doc["description"], str):
            raise ExperimentError(f"{where}: description must be text")
        exp.description = doc["description"]
    return exp


__all__ = ["Experiment", "ExperimentError", "load", "KEYS"]
