"""Experiment files: a question, its games and its report, written down so that anyone can run it
again and get the same numbers.

An experiment is a TOML file in ``experiments/``; ``samsim run experiments/NAME.toml`` plays it
into ``results/NAME/`` (one run folder per player count, ``<N>p/``, where games are kept) and
writes the report to ``results/NAME/report/``. ``kind`` says which question (default
``simulate``); keys (``games`` always required)::

    # every kind
    description = "What question this answers"
    kind = "simulate"              # simulate | balance | compare | sensitivity
    players = [3, 4, 5, 6]         # or one count; default 4 (compare, sensitivity: one count)
    games = 100000                 # per player count (compare: the budget, the most if sequential)
    seed = 7
    rules = "variant.toml"         # a data file, relative to the experiment file

    # simulate: a win-rate report
    pool = ["greedy", "undercut"]  # seated by a balanced design (games rounded up to whole
                                   # passes, so every strategy meets every seat and rival
                                   # equally) ...
    strategies = ["greedy", "random", "random", "random"]  # ... or one per seat (one count only)
    record = ["rounds"]            # per-round records (money over rounds in the report)
    chunk_size = 16384

    # balance: samsim balance
    strategy = "greedy"            # in every seat (or pool = [...], a balanced design) ...
    populations = ["random", "greedy", "pool", "mine.toml"]  # ... or several populations
    margin = 2.0                   # with populations: points of win rate a fair seat may be off
    fix = true                     # with populations: search fair seat rules (samsim balance --fix)
    fix_games = 5000               # games per candidate rule and population in that search

    # compare: samsim compare (and sensitivity)
    strategies = ["undercut", "greedy", "saver"]   # the strategies compared
    field = "greedy"               # the other seats
    sequential = true              # stop when the answer is clear (GSPRT), edge in points
    edge = 1.0
    batch_games = 20000
    deals = "independent"          # or "duplicate" (a group's games share one deal)
    margin = 0.5                   # equivalence margin, points

    # sensitivity: the comparison, and the seat balance with the field in every seat, redone on
    # each data file, to see which conclusions survive changes to the assumed component data
    variants = ["sensitivity/prices_flat.toml", "..."]
    balance_games = 20000

    # tune: samsim tune (games: the budget; one player count): results/NAME/<N>p/ is the tune
    strategy = "weighted(w_money=1)"   # the strategy and the parameters it starts from
    against = ["lookahead", "holiday"] # the field: one strategy or a pool ...
    self_play = true               # ... or copies of its own centre
    params = ["w_price", "w_bid"]  # the parameters tuned (default: all)
    generation_games = 2000        # games per candidate in the first generation
    max_games = 32000              # at most, per candidate and generation
    popsize = 10                   # candidates per generation
    sigma = 0.1                    # starting step, share of each parameter's range
    generations = 50               # at most
    confirm_games = 100000         # the confirmation (samsim compare on fresh deals), 0: none
    reference = "lookahead"        # confirmed against it and the start
    confirm_players = [3, 4, 5, 6] # player counts to confirm at (default: players)

Paths are relative to the experiment file, so an experiment and its variant data travel together.
"""

from __future__ import annotations

import tomllib
from dataclasses import dataclass, field
from pathlib import Path

COMMON = {"description", "kind", "players", "games", "seed", "rules"}
COMPARE = {"strategies", "field", "sequential", "edge", "batch_games", "deals", "margin"}
KEYS = {"simulate": COMMON | {"pool", "strategies", "record", "chunk_size"},
        "balance": COMMON | {"strategy", "pool", "populations", "margin", "fix", "fix_games"},
        "compare": COMMON | COMPARE,
        "sensitivity": COMMON | COMPARE | {"variants", "balance_games"},
        "tune": COMMON | {"strategy", "against", "self_play", "params", "generation_games",
                          "max_games", "popsize", "sigma", "generations", "confirm_games",
                          "reference", "confirm_players"}}


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
    kind: str = "simulate"
    strategy: str = "greedy"
    field_spec: str = "greedy"  # key "field"
    sequential: bool = False
    edge: float = 1.0
    batch_games: int = 20000
    deals: str = "independent"
    margin: float = 0.5
    variants: list[Path] = field(default_factory=list)
    balance_games: int = 20000
    populations: list | None = None  # samsim.engine.populations.Population, checked
    fix_games: int | None = None  # games per candidate of the fair-rules search; None: no search
    tune: dict = field(default_factory=dict)  # kind tune: samsim.analysis.tune.Setup's keywords
    confirm_games: int = 100000
    reference: str = "lookahead"
    confirm_players: list[int] | None = None

    def run_dir(self, root: Path, players: int) -> Path:
        return Path(root) / self.name / f"{players}p"

    def report_dir(self, root: Path) -> Path:
        return Path(root) / self.name / "report"


def _whole(doc, key, lo, hi, where):
    value = doc[key]
    if not isinstance(value, int) or isinstance(value, bool) or not lo <= value <= hi:
        raise ExperimentError(f"{where}: {key} must be a whole number {lo}..{hi}, got {value!r}")
    return value


def _text(doc, key, where, what="text") -> str:
    if not isinstance(doc[key], str):
        raise ExperimentError(f"{where}: {key} must be {what}")
    return doc[key]


def _names(doc, key, where, what="strategy specs, e.g. [\"greedy\", \"undercut(margin=2)\"]",
           unique: bool = True) -> list[str]:
    value = doc[key]
    if not isinstance(value, list) or not value or not all(isinstance(v, str) for v in value):
        raise ExperimentError(f"{where}: {key} must be a list of {what}")
    twice = next((v for v in value if value.count(v) > 1), None)
    if unique and twice is not None:
        raise ExperimentError(f"{where}: {key} names {twice} twice")
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
    kind = doc.get("kind", "simulate")
    if kind not in KEYS:
        raise ExperimentError(f"{where}: kind must be one of {', '.join(KEYS)}, got {kind!r}")
    unknown = sorted(set(doc) - KEYS[kind])
    if unknown:
        raise ExperimentError(f"{where}: unknown key {unknown[0]!r} for kind {kind} (keys: "
                              f"{', '.join(sorted(KEYS[kind]))})")
    if "games" not in doc:
        raise ExperimentError(f"{where}: say how many games to play per player count: games = 100000")
    exp = Experiment(name=path.stem, path=path, games=_whole(doc, "games", 1, 10**12, where),
                     kind=kind)
    if "players" in doc:
        players = doc["players"] if isinstance(doc["players"], list) else [doc["players"]]
        exp.players = [_whole({"players": p}, "players", 3, 6, where) for p in players]
        if not exp.players or len(set(exp.players)) != len(exp.players):
            raise ExperimentError(f"{where}: players must list distinct player counts 3..6")
    if "seed" in doc:
        exp.seed = _whole(doc, "seed", 0, 2**64 - 1, where)
    if "pool" in doc and "strategies" in doc:
        raise ExperimentError(f"{where}: give pool (seated by a balanced design) or strategies "
                              f"(one per seat), not both")
    if "pool" in doc:
        exp.pool = _names(doc, "pool", where)
    if "strategies" in doc:
        exp.strategies = _names(doc, "strategies", where, unique=False)  # seats may repeat one
        if len(exp.players) != 1:
            raise ExperimentError(f"{where}: strategies needs a single player count"
                                  f"{'; use pool for several' if kind == 'simulate' else ''}")
    if kind in ("compare", "sensitivity"):
        _compare_keys(doc, exp, where)
    if kind == "balance":
        _balance_keys(doc, exp, where)
    if "rules" in doc:
        if not isinstance(doc["rules"], str):
            raise ExperimentError(f"{where}: rules must be the path of a data file")
        exp.rules = (path.parent / doc["rules"]).resolve()
    if "record" in doc:
        exp.record = _names(doc, "record", where, "records, e.g. [\"rounds\"]")
    if "chunk_size" in doc:
        exp.chunk_size = _whole(doc, "chunk_size", 1, 10**9, where)
    if "description" in doc:
        exp.description = _text(doc, "description", where)
    if "strategy" in doc:
        exp.strategy = _text(doc, "strategy", where, "one strategy spec, e.g. \"greedy\"")
    if kind == "tune":
        _tune_keys(doc, exp, where)
    _label(exp, where)
    return exp


def _tune_keys(doc, exp: Experiment, where: str) -> None:
    """A tune's options (``samsim.analysis.tune.Setup``'s keywords; the command checks them
    as ``samsim tune`` does, before any game)."""
    if len(exp.players) != 1:
        raise ExperimentError(f"{where}: a tune is of one player count (confirm_players lists "
                              f"where to check it)")
    if "strategy" not in doc:
        raise ExperimentError(f"{where}: strategy = \"...\": the strategy to tune")
    against = doc.get("against")
    if isinstance(against, str):
        against = [against]
    if against is not None:
        against = _names({"against": against}, "against", where)
    if "self_play" in doc and not isinstance(doc["self_play"], bool):
        raise ExperimentError(f"{where}: self_play must be true or false")
    options = {"field": tuple(against or ()), "self_play": doc.get("self_play", False),
               "params": tuple(_names(doc, "params", where, "parameter names")) if "params" in doc
               else None}
    for key, name in (("generation_games", "games"), ("max_games", "max_games"),
                      ("popsize", "popsize"), ("generations", "generations")):
        if key in doc:
            options[name] = _whole(doc, key, 1, 10**12, where)
    if "sigma" in doc:
        if not isinstance(doc["sigma"], (int, float)) or isinstance(doc["sigma"], bool):
            raise ExperimentError(f"{where}: sigma is a share of each parameter's range, in (0, 1]")
        options["sigma"] = float(doc["sigma"])
    if "confirm_games" in doc:
        exp.confirm_games = _whole(doc, "confirm_games", 0, 10**12, where)
    if "reference" in doc:
        exp.reference = _text(doc, "reference", where, "one strategy spec")
    if "confirm_players" in doc:
        value = doc["confirm_players"]
        exp.confirm_players = [_whole({"confirm_players": p}, "confirm_players", 3, 6, where)
                               for p in (value if isinstance(value, list) else [value])]
    exp.tune = options


def _label(exp: Experiment, where: str) -> None:
    """Every spec checked now, before any game, and written as labels write it (a local file
    shadowing a built-in is ``greedy@1a2b3c4d``, not ``greedy``)."""
    from samsim.engine.registry import parse_spec

    if exp.kind == "tune":
        return  # checked by Setup.check, specs kept as written
    try:
        exp.strategy, exp.field_spec = (parse_spec(s).spec() for s in (exp.strategy, exp.field_spec))
        exp.strategies, exp.pool = ([parse_spec(s).spec() for s in names] if names else names
                                    for names in (exp.strategies, exp.pool))
    except ValueError as error:
        raise ExperimentError(f"{where}: {error}") from None


def _balance_keys(doc, exp: Experiment, where: str) -> None:
    """``populations`` (names as ``samsim balance --populations`` takes them; files relative to
    the experiment) and their ``margin`` (2 points unless given)."""
    from samsim.engine.populations import parse_populations

    exp.margin = 2.0
    if "populations" in doc:
        if "strategy" in doc or "pool" in doc:
            raise ExperimentError(f"{where}: give strategy, pool or populations, one of them")
        names = _names(doc, "populations", where, "populations, e.g. [\"greedy\", \"pool\"]")
        resolved = [str((exp.path.parent / n).resolve()) if n.endswith(".toml") else n
                    for n in names]
        try:
            exp.populations = parse_populations(",".join(resolved))
        except ValueError as error:
            raise ExperimentError(f"{where}: {error}") from None
    elif "margin" in doc or "fix" in doc:
        raise ExperimentError(f"{where}: {'margin' if 'margin' in doc else 'fix'} goes with "
                              f"populations (the seat verdicts)")
    if "fix" in doc and not isinstance(doc["fix"], bool):
        raise ExperimentError(f"{where}: fix must be true or false")
    if "fix_games" in doc and not doc.get("fix"):
        raise ExperimentError(f"{where}: fix_games goes with fix = true")
    if doc.get("fix"):
        exp.fix_games = _whole(doc, "fix_games", 1, 10**9, where) if "fix_games" in doc else 5000
    if "margin" in doc:
        value = doc["margin"]
        if not isinstance(value, (int, float)) or isinstance(value, bool) or not 0 < value < 100:
            raise ExperimentError(f"{where}: margin is in points of win rate, between 0 and 100")
        exp.margin = float(value)


def _compare_keys(doc, exp: Experiment, where: str) -> None:
    if exp.strategies is None or len(exp.strategies) < 2:
        raise ExperimentError(f"{where}: strategies must list at least two strategies to compare")
    for key, attr in (("field", "field_spec"), ("deals", "deals")):
        if key in doc:
            if not isinstance(doc[key], str):
                raise ExperimentError(f"{where}: {key} must be text")
            setattr(exp, attr, doc[key])
    if exp.deals not in ("duplicate", "independent"):
        raise ExperimentError(f"{where}: deals is \"duplicate\" or \"independent\"")
    if "sequential" in doc:
        if not isinstance(doc["sequential"], bool):
            raise ExperimentError(f"{where}: sequential must be true or false")
        exp.sequential = doc["sequential"]
    for key in ("edge", "margin"):
        if key in doc:
            value = doc[key]
            if not isinstance(value, (int, float)) or isinstance(value, bool) or not 0 < value < 100:
                raise ExperimentError(f"{where}: {key} is in points of win rate, between 0 and 100")
            setattr(exp, key, float(value))
    for key in ("batch_games", "balance_games"):
        if key in doc:
            setattr(exp, key, _whole(doc, key, 1, 10**12, where))
    if "variants" in doc:
        files = _names(doc, "variants", where, "data files, e.g. [\"sensitivity/steep.toml\"]")
        exp.variants = [(exp.path.parent / f).resolve() for f in files]
        missing = [str(f) for f in exp.variants if not f.is_file()]
        if missing:
            raise ExperimentError(f"{where}: variant data file {missing[0]} does not exist")


__all__ = ["Experiment", "ExperimentError", "load", "KEYS"]
