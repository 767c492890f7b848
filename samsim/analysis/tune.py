"""Tuning a strategy by simulation: CMA-ES (the ``cma`` package) over its numeric parameters, to
maximise its win rate against a field.

Each generation's candidates, and the optimiser's current centre beside them, meet exactly the
same deals in the same seats against the same field (common random numbers: duplicate deals,
``Control.per_deal``, one game per candidate on each deal), so their ranking is not blurred by
the deal's luck, only by what the candidates' own choices change. The trial seat goes round the
table and a pool field is seated by its balanced design around it (``designs.around``), so the
objective is the strategy's win rate in every seat alike.

Noise: a generation's ranking is trusted when its candidates differ by clearly more than the
game-to-game noise allows (``stats.inference.common_deals_spread``: the F of the candidates in a
deals x candidates analysis of variance, at least ``TRUSTED_F``); otherwise the next generation
plays twice the games per candidate, up to a cap. Candidates close together (a small step size
near the optimum) thus get more games, and the number only ever grows.

The centre (the CMA-ES mean, the optimiser's recommendation) is evaluated on the same deals as
the candidates but was chosen before they were played, so its win rate is an unbiased estimate,
unlike the best candidate's: it is the learning curve.

A tune folder keeps every evaluation (one Parquet file per generation) and ``tune.json`` (the
configuration, each generation's summary and the optimiser's mean and step size). Resuming
rebuilds the optimiser by telling it the saved evaluations again (its sampling is seeded per
generation), checks that it proposes the saved candidates, and goes on, so an interrupted tune
ends exactly where an uninterrupted one does; the generation in flight is played again.
"""

from __future__ import annotations

import contextlib
import hashlib
import json
import math
from collections.abc import Callable
from dataclasses import asdict, dataclass, field
from pathlib import Path

import numpy as np
import pandas as pd

from samsim.stats import inference

#: F of a generation's candidates (their spread over the noise's) below which its ranking is
#: mostly luck: the next generation plays twice the games per candidate. 3 means the real spread
#: of the candidates' win rates is at least sqrt(2) times the noise of each one's estimate.
TRUSTED_F = 3.0
#: Default cap on the growth of games per candidate, as a multiple of the first generation's.
GROWTH = 16
#: Equivalence margin of the confirmation, in win share: "as strong as" means within one point.
CONFIRM_MARGIN = 0.01
TUNE_FILE = "tune.json"
EVALUATIONS = "evaluations"
#: Steps of a tuned value: a thousandth of its range (0.01 for -10..10), whole numbers for
#: parameters that take them: the spec that played is exactly the spec reported.
RESOLUTION = 1000


class TuneError(ValueError):
    """A tune that cannot be set up, or a folder that cannot be resumed."""


# ---------------------------------------------------------------------------- the search space

@dataclass(frozen=True)
class Space:
    """The parameters tuned (within their LIMITS), the others held at the start spec's values."""

    info: object  # the strategy (samsim.engine.registry.StrategyInfo)
    start: dict  # every parameter's starting value
    names: tuple[str, ...]  # the tuned ones
    low: np.ndarray
    high: np.ndarray
    whole: tuple[bool, ...]

    @property
    def x0(self) -> np.ndarray:
        return np.array([self.start[n] for n in self.names], float)

    def values(self, x) -> dict:
        """The parameters a point stands for, rounded to their steps and kept in range."""
        out = dict(self.start)
        for k, name in enumerate(self.names):
            lo, hi = float(self.low[k]), float(self.high[k])
            v = min(max(float(x[k]), lo), hi)
            if self.whole[k]:
                v = float(min(max(round(v), math.ceil(lo)), math.floor(hi)))
            else:
                step = 10.0 ** math.floor(math.log10((hi - lo) / RESOLUTION))
                decimals = max(0, -int(round(math.log10(step))))
                v = min(max(round(round(v / step) * step, decimals), lo), hi)
            out[name] = v
        return out

    def strategy(self, x):
        """The Strategy a point stands for (what plays; its ``spec()`` is its label)."""
        from samsim.engine.registry import with_params

        return with_params(self.info, self.values(x))


def space(start: str, names=None) -> Space:
    """The space of strategy spec ``start``'s parameters ``names`` (all of them by default)."""
    from samsim.engine.registry import parse_spec

    s = parse_spec(start)
    info = s.info
    names = list(info.defaults) if names is None else list(names)
    if not info.defaults:
        raise TuneError(f"{info.name} has no parameters to tune")
    unknown = [n for n in names if n not in info.defaults]
    if unknown or not names or len(set(names)) != len(names):
        raise TuneError(f"--params: {info.name} has no parameter {unknown[0]!r} (its parameters: "
                        f"{', '.join(info.defaults)})" if unknown else
                        "--params: name each parameter once, e.g. --params w_money,w_future")
    flat = [n for n in names if info.limits[n][0] >= info.limits[n][1]]
    if flat:
        raise TuneError(f"{info.name}: parameter {flat[0]} has a range of one value: nothing "
                        f"to tune")
    return Space(info, dict(s.params), tuple(names),
                 np.array([info.limits[n][0] for n in names], float),
                 np.array([info.limits[n][1] for n in names], float),
                 tuple(n in info.whole for n in names))


# ---------------------------------------------------------------------------------- the setup

@dataclass(frozen=True)
class Setup:
    """Everything that decides a tune's games and steps (so its folder's configuration)."""

    start: str  # spec (a name or a file path): the strategy and the parameters it starts from
    players: int
    budget: int  # games in all, every candidate's and the centre's
    field: tuple[str, ...] = ()  # the other seats: one spec, or a pool (balanced design)
    self_play: bool = False  # the other seats: copies of the current centre
    params: tuple[str, ...] | None = None  # tuned parameters; None: all
    games: int = 2000  # games per candidate in the first generation (whole groups)
    max_games: int | None = None  # cap on games per candidate (default GROWTH x games)
    popsize: int | None = None  # candidates per generation (default CMA-ES's, 4 + 3 ln d)
    sigma: float = 0.1  # starting step size, as a share of each parameter's range
    seed: int = 0
    generations: int | None = None  # most generations (default: until the budget is spent)

    def space(self) -> Space:
        return space(self.start, self.params)

    def candidates(self) -> int:
        d = len(self.space().names)
        return self.popsize or 4 + int(3 * math.log(d))

    def group(self) -> int:
        """Deals in one balanced group (the trial seat round the table, the field's design)."""
        from samsim.engine.designs import around

        return len(around(self.players, max(1, len(self.field))))

    def deals(self) -> tuple[int, int]:
        """Deals per candidate in the first generation and at most, in whole groups."""
        g = self.group()
        first = max(1, -(-self.games // g)) * g
        most = self.max_games if self.max_games is not None else GROWTH * first
        return first, max(first, most // g * g)

    def check(self, data) -> "Setup":
        """This setup with its tuned parameters named, or TuneError naming what is wrong."""
        from samsim.engine.designs import MAX_SEATINGS
        from samsim.engine.play import check_players, check_seed
        from samsim.engine.registry import parse_spec

        try:
            check_players(data, self.players)
            check_seed(self.seed)
            parse_spec(self.start)
            field = tuple(parse_spec(s) for s in self.field)
        except ValueError as error:
            raise TuneError(str(error)) from None
        if self.self_play == bool(field):
            raise TuneError("tune against a field (--against a strategy or a pool) or against "
                            "itself (--self-play), one of them")
        for name, value, lo in (("budget", self.budget, 1), ("games", self.games, 1),
                                ("popsize", self.popsize, 2), ("max_games", self.max_games, 1),
                                ("generations", self.generations, 1)):
            if value is not None and (not isinstance(value, (int, np.integer))
                                      or isinstance(value, bool) or value < lo):
                raise TuneError(f"{name} must be a whole number of at least {lo}, got {value!r}")
        if not (isinstance(self.sigma, (int, float)) and 0 < self.sigma <= 1):
            raise TuneError(f"sigma is a share of each parameter's range, in (0, 1]; got "
                            f"{self.sigma!r}")
        checked = Setup(**{**asdict(self), "field": tuple(self.field),
                           "params": tuple(self.space().names)})
        seatings = checked.group() * (checked.candidates() + 1)
        if seatings > MAX_SEATINGS:
            raise TuneError(f"a field of {len(field)} strategies at {self.players} players with "
                            f"{checked.candidates()} candidates needs {seatings:,} seatings a "
                            f"generation (at most {MAX_SEATINGS:,}): a smaller pool or popsize")
        first, _ = checked.deals()
        need = first * (checked.candidates() + 1)
        if need > self.budget:
            raise TuneError(f"a budget of {self.budget:,} games does not cover one generation: "
                            f"{checked.candidates()} candidates and the centre x {first:,} games "
                            f"(whole groups of {checked.group():,}) = {need:,}")
        return checked

    def config(self, data) -> dict:
        """What a tune folder records: this setup, the code and data that play it."""
        from samsim.engine.registry import parse_spec
        from samsim.runs.results import provenance
        import cma

        played = [parse_spec(s) for s in [self.start, *self.field]]
        return {"kind": "tune", **asdict(self), "field": list(self.field),
                "params": list(self.params or ()), "labels": [s.spec() for s in played],
                "strategy_sources": {s.name: s.info.source_hash for s in played},
                "cma_version": cma.__version__, **provenance(data)}


# ---------------------------------------------------------------------------- one generation

@dataclass
class Generation:
    """One generation: its candidates and centre on common deals, and what they gave."""

    index: int
    first_deal: int
    deals: int  # games per candidate (one per deal)
    specs: list[str]  # the candidates (the optimiser's order)
    centre: str
    field: list[str]  # the candidates' other seats this generation
    win_rate: list[float]  # each candidate's mean win share (draws shared)
    centre_rate: float
    centre_low: float
    centre_high: float
    f: float  # common_deals_spread: candidates' spread over noise
    p_value: float
    gain: float  # precision of a difference on common deals over independent games
    sigma: float  # step size the candidates were drawn with
    mean: list[float] = field(default_factory=list)  # the optimiser's mean (the centre, unrounded)

    @property
    def games(self) -> int:
        return self.deals * (len(self.specs) + 1)

    @property
    def best(self) -> int:
        return int(np.argmax(self.win_rate))


def _lineup(players: int, columns: list[tuple[str, list[str]]]):
    """Seating s*K + i: column i's strategy in the trial seat of base seating s, its field
    around it; deal d plays base seating d mod S, so with K games per deal every column meets
    the same deals in the same seats."""
    from samsim.engine.designs import around
    from samsim.engine.lineup import Lineup
    from samsim.engine.registry import parse_spec

    rows = around(players, len(columns[0][1]))
    parsed = [(parse_spec(trial), [parse_spec(s) for s in others]) for trial, others in columns]
    seatings = [[trial if k < 0 else others[k] for k in row] for row in rows.tolist()
                for trial, others in parsed]
    return Lineup(seatings), rows


def play(columns: list[tuple[str, list[str]]], players: int, seed: int, first_deal: int,
         deals: int, data, threads=None, progress=None) -> tuple[np.ndarray, np.ndarray]:
    """Each column (a strategy on trial and its field) plays deals ``first_deal ..`` once each:
    (win share, score) of the trial seat, float[deals, columns]."""
    from samsim import engine

    seats, rows = _lineup(players, columns)
    k, s = len(columns), len(rows)
    trial_seat = np.argmax(rows < 0, axis=1)  # [S]
    share, score = np.full((deals, k), np.nan), np.full((deals, k), np.nan)
    chunk = k * max(1, engine.DEFAULT_CHUNK // k)
    for start, n, st in engine.batches([(first_deal * k, (first_deal + deals) * k)], players,
                                       seed, data, seats, chunk, threads, per_deal=k,
                                       progress=progress):
        ids = start + np.arange(n)
        deal, column = ids // k, ids % k
        seat = trial_seat[deal % s]
        share[deal - first_deal, column] = st.win_credit[np.arange(n), seat]
        score[deal - first_deal, column] = st.score[np.arange(n), seat]
    return share, score


def _centre_interval(share: np.ndarray) -> tuple[float, float, float]:
    from samsim.stats.tally import clustered_rate

    n = len(share)
    rate, low, high = clustered_rate(n, share.sum(), n, (share ** 2).sum(), n, share.sum())
    return float(rate), float(low), float(high)


# ------------------------------------------------------------------------------- the optimiser

@contextlib.contextmanager
def _seeded(seed: int, generation: int, step: str):
    """numpy's global generator (cma draws from it) seeded for this step alone, then given
    back: a generation's candidates depend on the seed and its number, not on what ran before."""
    key = hashlib.sha256(f"{seed}/{generation}/{step}".encode()).digest()
    saved = np.random.get_state()
    np.random.seed(int.from_bytes(key[:4], "little"))
    try:
        yield
    finally:
        np.random.set_state(saved)


def _optimizer(setup: Setup, sp: Space):
    import cma

    width = sp.high - sp.low
    options = {"bounds": [list(sp.low), list(sp.high)], "CMA_stds": list(width),
               "popsize": setup.candidates(), "seed": np.nan, "verbose": -9, "verb_log": 0,
               "verb_disp": 0, "integer_variables": [k for k, w in enumerate(sp.whole) if w]}
    with _seeded(setup.seed, -1, "init"):
        return cma.CMAEvolutionStrategy(list(sp.x0), setup.sigma, options)


def _centre(es, sp: Space) -> np.ndarray:
    x = es.result.xfavorite if es.countiter else sp.x0
    return np.clip(np.asarray(x, float), sp.low, sp.high)


def _ask(es, setup: Setup, generation: int) -> list[np.ndarray]:
    with _seeded(setup.seed, generation, "ask"):
        return [np.asarray(x, float) for x in es.ask()]


def _tell(es, setup: Setup, generation: int, xs, win_rate) -> None:
    with _seeded(setup.seed, generation, "tell"):
        es.tell(xs, [-float(w) for w in win_rate])  # cma minimises


def _stop_reason(es) -> str | None:
    stop = {k: v for k, v in es.stop().items() if k not in ("callback",)}
    return f"CMA-ES stopped: {', '.join(stop)}" if stop else None


# ------------------------------------------------------------------------------------ the tune

@dataclass
class Tuning:
    setup: Setup
    generations: list[Generation]
    best: str  # the optimiser's final centre, as a spec (its label)
    best_params: dict  # every parameter's value in it
    stopped: str  # why it stopped
    games: int  # played in all (this session and before)
    config: dict

    def strategy(self):
        """The tuned strategy, to play (a strategy file's label does not find the file)."""
        from samsim.engine.registry import parse_spec, with_params

        return with_params(parse_spec(self.setup.start).info, self.best_params)


def _next_deals(setup: Setup, history: list[Generation]) -> int:
    first, most = setup.deals()
    if not history:
        return first
    last = history[-1]
    grow = not (last.f >= TRUSTED_F)  # NaN (no game differed) grows too
    return min(most, last.deals * 2) if grow else last.deals


def tune(setup: Setup, data=None, out: str | Path | None = None, resume: bool = False,
         overwrite: bool = False, threads=None, progress: Callable[[int], None] | None = None,
         on_generation: Callable[[Generation], None] | None = None,
         found: Callable[[list[Generation]], None] | None = None) -> Tuning:
    """Tune ``setup.start`` (module docstring: how). With ``out``, every generation is saved
    there as it ends, and ``resume`` goes on from what the folder holds (``found(history)`` is
    told what was found). ``progress(n)`` as games are played; ``on_generation(g)`` after each."""
    from samsim import components
    from samsim.engine.registry import parse_spec
    from samsim.runs import interrupt
    from samsim.runs.results import writer_lock

    data = data or components.load()
    setup = setup.check(data)
    sp = setup.space()
    config = setup.config(data)
    es = _optimizer(setup, sp)
    with writer_lock(out) if out is not None else contextlib.nullcontext():
        history = _opened(Path(out), config, resume, overwrite) if out is not None else []
        for g in history:  # the optimiser rebuilt from the saved evaluations
            xs = _ask(es, setup, g.index)
            if [sp.strategy(x).spec() for x in xs] != g.specs:
                raise TuneError(f"{out}: generation {g.index}'s saved candidates are not the ones "
                                f"this optimiser proposes (another cma version, or edited "
                                f"files): --overwrite to start again")
            _tell(es, setup, g.index, xs, g.win_rate)
        if found is not None:
            found(list(history))
        played = sum(g.games for g in history)
        k = setup.candidates()
        while True:
            deals = _next_deals(setup, history)
            stopped = ("the generations asked for" if setup.generations is not None
                       and len(history) >= setup.generations else
                       "the budget" if played + deals * (k + 1) > setup.budget else
                       _stop_reason(es) if history else None)
            if stopped:
                break
            index = len(history)
            xs = _ask(es, setup, index)
            trials = [sp.strategy(x) for x in xs]
            mean = _centre(es, sp)
            centre = sp.strategy(mean)
            field = [centre] if setup.self_play else [parse_spec(f) for f in setup.field]
            # self-play: the centre is measured against the start, a fixed yardstick
            centre_field = [parse_spec(setup.start)] if setup.self_play else field
            first = sum(g.deals for g in history)
            share, score = play([*((t, field) for t in trials), (centre, centre_field)],
                                setup.players, setup.seed, first, deals, data, threads,
                                progress)
            spread = inference.common_deals_spread(share[:, :k])
            rate, low, high = _centre_interval(share[:, k])
            g = Generation(index, first, deals, [t.spec() for t in trials], centre.spec(),
                           [f.spec() for f in field],
                           [float(w) for w in share[:, :k].mean(axis=0)], rate, low, high,
                           spread.f, spread.p_value, spread.gain, float(es.sigma),
                           [float(v) for v in mean])
            if out is not None:
                with interrupt.deferred():
                    _save(Path(out), config, history + [g], share, score, None)
            _tell(es, setup, index, xs, g.win_rate)
            history.append(g)
            played += g.games
            if on_generation is not None:
                on_generation(g)
        best = sp.strategy(_centre(es, sp))
        if out is not None:
            _save(Path(out), config, history, None, None,
                  {"best": best.spec(), "best_params": best.params, "stopped": stopped})
    return Tuning(setup, history, best.spec(), best.params, stopped, played, config)


# ----------------------------------------------------------------------------- the tune folder

def _evaluations(folder: Path, index: int) -> Path:
    return folder / EVALUATIONS / f"gen-{index:04d}.parquet"


def _save(folder: Path, config: dict, history: list[Generation], share, score,
          finished: dict | None) -> None:
    """The last generation's evaluations, then ``tune.json``: the file that says a generation
    is done is written after the games that back it."""
    from samsim.runs.results import write_parquet, write_text

    if share is not None:
        g = history[-1]
        deals, k = share.shape
        names = [*g.specs, g.centre]
        frame = pd.DataFrame({
            "generation": np.full(deals * k, g.index, np.int32),
            "deal": np.repeat(np.arange(g.first_deal, g.first_deal + deals), k),
            "candidate": np.tile(np.arange(k, dtype=np.int16), deals),
            "role": pd.Categorical(np.tile(["candidate"] * (k - 1) + ["centre"], deals)),
            "spec": pd.Categorical(np.tile(names, deals)),
            "win_credit": share.reshape(-1), "score": score.reshape(-1).astype(np.int32)})
        (folder / EVALUATIONS).mkdir(exist_ok=True)
        write_parquet(frame, _evaluations(folder, g.index), {"config": config, "generation": g.index})
    doc = {"config": config, "generations": [asdict(g) for g in history],
           "complete": finished is not None, **(finished or {})}
    write_text(folder / TUNE_FILE, json.dumps(doc, indent=2, sort_keys=True, default=_json) + "\n")


def _json(value):
    if isinstance(value, (np.floating, np.integer)):
        return value.item()
    raise TypeError(f"not JSON: {value!r}")


def read(folder: str | Path) -> dict:
    """A tune folder's ``tune.json`` (TuneError if there is none or it is not one)."""
    path = Path(folder) / TUNE_FILE
    try:
        doc = json.loads(path.read_text(encoding="utf-8"))
    except FileNotFoundError:
        raise TuneError(f"{folder} holds no tune ({TUNE_FILE} missing)") from None
    except (OSError, ValueError) as error:
        raise TuneError(f"{path} cannot be read: {error}") from None
    if not isinstance(doc, dict) or doc.get("config", {}).get("kind") != "tune":
        raise TuneError(f"{path} is not a samsim tune")
    return doc


def _opened(folder: Path, config: dict, resume: bool, overwrite: bool) -> list[Generation]:
    """The generations a folder holds to go on from ([] for a new tune), checked against its
    saved evaluations; refuses another configuration's folder and a folder that is not a tune."""
    from samsim.runs.results import prepare_output_dir

    prepare_output_dir(folder)
    here = [p for p in folder.iterdir() if not p.name.startswith(".")]
    if not here:
        return []
    if not (folder / TUNE_FILE).is_file():
        raise TuneError(f"{folder} is not empty and holds no tune: choose another --out")
    if overwrite:
        for p in (folder / EVALUATIONS).glob("*.parquet"):
            p.unlink()
        (folder / TUNE_FILE).unlink()
        return []
    if not resume:
        raise TuneError(f"{folder} already holds a tune: add --resume to go on with it, or "
                        f"--overwrite to start again")
    doc = read(folder)
    if doc["config"] != json.loads(json.dumps(config, default=_json)):
        old, new = doc["config"], config
        key = next((k for k in sorted(set(old) | set(new)) if old.get(k) != new.get(k)), "?")
        raise TuneError(f"{folder} holds a tune of another configuration ({key}: "
                        f"{old.get(key)!r} there, {new.get(key)!r} now): --overwrite to start "
                        f"again, or another --out")
    history = [Generation(**g) for g in doc["generations"]]
    for g in history:
        _check_evaluations(folder, g)
    return history


def _check_evaluations(folder: Path, g: Generation) -> None:
    """A generation's summary must be what its saved games give, to the last bit."""
    path = _evaluations(folder, g.index)
    try:
        frame = pd.read_parquet(path)
        share = frame["win_credit"].to_numpy().reshape(g.deals, len(g.specs) + 1)
    except (OSError, ValueError, KeyError) as error:
        raise TuneError(f"{path}: the evaluations of generation {g.index} are missing or damaged "
                        f"({' '.join(str(error).split())[:120]}): --overwrite to start again") from None
    if [float(w) for w in share[:, :-1].mean(axis=0)] != g.win_rate:
        raise TuneError(f"{path} does not hold the games {TUNE_FILE} summarises for generation "
                        f"{g.index} (edited?): --overwrite to start again")


def load(folder: str | Path) -> Tuning:
    """A finished (or stopped) tune read back from its folder, for a report."""
    doc = read(folder)
    config = doc["config"]
    names = {f for f in Setup.__dataclass_fields__}
    setup = Setup(**{k: (tuple(v) if isinstance(v, list) else v) for k, v in config.items()
                     if k in names})
    history = [Generation(**g) for g in doc["generations"]]
    if not doc.get("complete"):
        raise TuneError(f"{folder} holds an unfinished tune ({len(history)} generations): "
                        f"finish it with the same command and --resume")
    return Tuning(setup, history, doc["best"], doc["best_params"], doc["stopped"],
                  sum(g.games for g in history),
                  config)


# ---------------------------------------------------------------------------- the confirmation

def confirmation(tuning: Tuning, reference: str = "lookahead", field=None):
    """Who the confirmation compares, and the field of their free seats: the tuned strategy,
    its start and ``reference``; the field is the tune's own where it was one strategy, a pool
    joins the compared strategies (their pool design), self-play uses ``field`` (default
    greedy)."""
    from samsim.engine.registry import parse_spec

    s = tuning.setup
    named = {}
    for one in [tuning.strategy(), s.start, reference, *(s.field if len(s.field) > 1 else ())]:
        one = parse_spec(one)
        named.setdefault(one.spec(), one)
    if len(named) < 2:
        raise TuneError("the tuned strategy, its start and the reference are one strategy: "
                        "nothing to compare")
    return list(named.values()), parse_spec(field or (s.field[0] if len(s.field) == 1
                                                      else "greedy"))


def confirm(tuning: Tuning, games: int, reference: str = "lookahead", field=None, data=None,
            threads=None, progress=None, players: int | None = None):
    """``samsim compare`` of ``confirmation``'s strategies on fresh deals (seed + 1: the tune
    never saw them), with a margin of one point for "no difference"; at the tune's player count,
    or at ``players`` (is what was best at 4 players good at 6?)."""
    from samsim.analysis.compare import compare

    contestants, field_spec = confirmation(tuning, reference, field)
    return compare(contestants, players or tuning.setup.players, games, tuning.setup.seed + 1,
                   field_spec, data, threads, margin=CONFIRM_MARGIN, progress=progress)


__all__ = ["Setup", "Space", "space", "Generation", "Tuning", "TuneError", "tune", "play",
           "load", "read", "confirmation", "confirm", "TRUSTED_F", "CONFIRM_MARGIN"]
