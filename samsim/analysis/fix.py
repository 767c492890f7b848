"""What would make the game fair? A search over the data file's ``[seats]`` levers, per player
count, measured under every population of players.

The levers (docs/rules.md, section 2): where the tie-breaker card starts (``tiebreak_start``),
whether equal room prices go clockwise from it like equal bids (``price_ties``), and coins per seat
on top of the starting money (``money``). A fix is a change of the given data file; the search:

1. **tie rules**: every (start, price ties) pair, 2N candidates, each played under every population
   on the same deals (one seed: common random numbers, so candidates differ by their rule, not by
   their luck), ranked by imbalance: the equal-chances chi-square statistic, averaged over the
   populations (about N - 1 for a fair game). Moving the start alone moves every seat's effect
   with it (the seats are otherwise alike), so it changes the imbalance only by noise; the screen
   shows that rather than assuming it.
2. **money**: on the best tie rule, a probe (+P and -P coins on alternate seats) on the same deals
   gives the slope of win rate per coin; Newton steps then set each seat's coins to cancel its
   deviation (averaged over the populations), rounded to whole coins and shifted so that the
   median seat gets none (a +15 seat is answered by -15 there, not +5 everywhere else). The step
   with the least imbalance is kept.
3. **confirmation**: the chosen variant is played again on fresh deals (another seed), and judged
   as ``samsim balance --populations`` judges the game (``samsim.stats.seats``), with each
   population's equal-chances test and its power at that game count for an effect of the margin.
   It is proposed only if it is less imbalanced there than the given rules on the balance run's
   deals (also unseen by the search), by more than twice the noise of the difference; otherwise
   the proposal is the given rules.

The populations can disagree (a seat that mirrors of one bot favour, random play may not), and
then no single rule suits them all: the average chi-square weighs most the populations with the
largest effects, and the report says under which populations the proposal is fairer.

The chosen candidate is the least imbalanced of several noisy ones, so its own screen figures
flatter it (the winner's curse); only the confirmation's figures are reported as the variant's.
"""

from __future__ import annotations

import re
import tempfile
import tomllib
from dataclasses import dataclass, field
from pathlib import Path

import numpy as np

from samsim.components import PRICE_TIES, GameData
from samsim.stats import inference
from samsim.stats.seats import SeatVerdict, seat_verdicts, table_verdict

#: Coins the slope probe gives (and takes from) alternate seats.
PROBE = 5
#: Newton steps of the money stage at most (it stops early once the rounded coins repeat).
STEPS = 3
#: Seed offsets of the search's deals and of the confirmation's, from the balance seed (whose
#: deals measured the given game): three disjoint sets of deals.
SEARCH_SEED, CONFIRM_SEED = 1, 2


@dataclass(frozen=True)
class Rule:
    """One player count's seat rules: absolute values, as the data file's [seats] writes them."""

    start: int
    clockwise: bool
    money: tuple[int, ...]

    def describe(self, given: "Rule") -> str:
        """What changes from ``given``, in words."""
        parts = []
        if self.start != given.start:
            parts.append(f"tie-breaker starts before seat {self.start}")
        if self.clockwise != given.clockwise:
            parts.append(f"equal room prices {PRICE_TIES[self.clockwise]}")
        change = np.subtract(self.money, given.money)
        if change.any():
            parts.append("coins " + ", ".join(f"{c:+d}" for c in change))
        return "; ".join(parts) or "as given"


@dataclass
class Step:
    """A rule as measured: win credit per population and seat, in ``games`` per population (a
    pool's rounded up to whole passes of its design)."""

    rule: Rule
    wins: np.ndarray  # [population, seat]
    games: np.ndarray  # [population]

    @property
    def deviation(self) -> np.ndarray:
        """Points of win rate off the fair share, [population, seat]."""
        return 100 * (self.wins / self.games[:, None] - 1 / self.wins.shape[1])

    @property
    def chi_squares(self) -> np.ndarray:
        """The equal-chances chi-square statistic per population (its expectation is N - 1 when
        every seat's chance is equal)."""
        expected = self.games[:, None] / self.wins.shape[1]
        return (((self.wins - expected) ** 2) / expected).sum(axis=1)

    @property
    def imbalance(self) -> float:
        """``chi_squares`` averaged over the populations: what the search minimises."""
        return float(self.chi_squares.mean())

    @property
    def imbalance_sd(self) -> float:
        """The standard deviation of ``imbalance`` over fresh deals: each population's statistic
        is noncentral chi-square (variance 2 (df + 2 lambda), lambda estimated by its excess over
        df), the populations independent."""
        df = self.wins.shape[1] - 1
        lam = np.maximum(self.chi_squares - df, 0)
        return float(np.sqrt((2 * (df + 2 * lam)).sum()) / len(lam))


@dataclass
class Fix:
    """The search and its answer at one player count."""

    players: int
    given: Rule
    ties: list[Step]  # the tie-rule screen, in the order tried
    money: list[Step]  # the chosen tie rule without coins, the probe, then the Newton steps
    slope: float  # points of win rate per coin, from the probe
    best: Rule
    confirm: Step  # the best rule on fresh deals
    before: Step  # the given rule on the balance run's deals (fresh to the search too)
    margin: float
    seats: list[SeatVerdict] = field(default_factory=list)
    equal_p: list[float] = field(default_factory=list)  # per population
    power: list[float] = field(default_factory=list)  # per population, at the margin

    @property
    def verdict(self) -> str:
        return table_verdict(self.seats)

    @property
    def games_played(self) -> int:
        """Games the search and the confirmation played (the tie screen holds the unchanged
        rule, the money stage's first step repeats one of the screen's)."""
        steps = [*self.ties, *self.money[1:], self.confirm]
        return int(sum(st.games.sum() for st in steps))

    @property
    def fairer(self) -> np.ndarray:
        """Per population: whether the best rule's chi-square on fresh deals is below the given
        rule's on its own fresh deals (the balance run)."""
        return self.confirm.chi_squares < self.before.chi_squares

    @property
    def improves(self) -> bool:
        """Whether the best rule is less imbalanced than the given one by more than twice the
        noise of that difference, both measured on deals the search never saw: only then is it
        proposed (neither the winner's curse nor a handful of games can pass this)."""
        gap = self.before.imbalance - self.confirm.imbalance
        noise = np.hypot(self.before.imbalance_sd, self.confirm.imbalance_sd)
        return self.best != self.given and bool(gap > 2 * noise)

    @property
    def proposal(self) -> Rule:
        return self.best if self.improves else self.given

    @property
    def change(self) -> str:
        if self.best != self.given and not self.improves:
            return (f"as given (the best found, {self.best.describe(self.given)}, was not fairer "
                    f"beyond noise on fresh deals)")
        return self.best.describe(self.given)


def given_rule(data: GameData, players: int) -> Rule:
    c = data.components
    return Rule(int(c.tiebreak_start[players]), bool(c.price_clockwise[players]),
                tuple(int(m) for m in c.seat_money[players, :players]))


def variant_text(data: GameData, rules: dict[int, Rule]) -> str:
    """The given data file's text with its [seats] section replaced by the given rules of every
    player count, changed to ``rules`` where given."""
    text = Path(data.source).read_text(encoding="utf-8")
    kept = re.sub(r"^\[seats\]\n(?:(?!\[).*\n?)*", "", text, flags=re.M)
    if "seats" in tomllib.loads(kept):
        raise ValueError(f"{Path(data.source).name}: its [seats] section is not a plain [seats] "
                         f"table, so a variant cannot be written from it")
    every = {n: rules.get(n, given_rule(data, n))
             for n in range(data.min_players, data.max_players + 1)}
    money = {n: r.money for n, r in every.items() if any(r.money)}
    start = {n: r.start for n, r in every.items() if r.start}
    ties = {n: PRICE_TIES[r.clockwise] for n, r in every.items() if r.clockwise}
    lines = ["", "[seats]  # written by samsim balance --fix: the seat rules of each player count"]
    for key, table, show in (("money", money, lambda m: "[" + ", ".join(map(str, m)) + "]"),
                             ("tiebreak_start", start, str), ("price_ties", ties, lambda t: f'"{t}"')):
        if table:
            lines.append(f"{key} = {{{', '.join(f'{n} = {show(v)}' for n, v in table.items())}}}")
    return kept.rstrip("\n") + "\n" + ("\n".join(lines) + "\n" if len(lines) > 2 else "")


def write_variant(data: GameData, rules: dict[int, Rule], path: Path) -> GameData:
    """``variant_text`` written to ``path`` and loaded back, checked to hold exactly ``rules``."""
    from samsim import components

    path.parent.mkdir(parents=True, exist_ok=True)
    path.write_text(variant_text(data, rules), encoding="utf-8")
    loaded = components.load(path)
    for n, rule in rules.items():
        assert given_rule(loaded, n) == rule, (path, n)
    return loaded


def measure(data: GameData, populations, players: int, games: int, seed: int, folder: Path,
            threads=None, resume: bool = False, overwrite: bool = False, progress=None,
            status=lambda name: None) -> tuple[np.ndarray, np.ndarray]:
    """Win credit [population, seat] and games [population] of ``games`` games per population
    (a pool's rounded up to whole passes) under ``data``, each population's run kept in
    ``folder/<population>/`` (resumable)."""
    from samsim.engine.designs import whole_passes
    from samsim.runs import results

    wins = np.zeros((len(populations), players))
    played = np.zeros(len(populations))
    for i, population in enumerate(populations):
        status(population.name)
        seats = population.lineup(players)
        tally = results.run_simulation(whole_passes(games, seats), players, seed, data,
                                       threads=threads, out=folder / population.folder,
                                       strategies=seats, resume=resume, overwrite=overwrite,
                                       progress=progress)
        played[i] = tally.n_games
        by_seat = tally.seats.groupby(level="seat")["wins"].sum()
        wins[i] = by_seat.reindex(range(players), fill_value=0).to_numpy()
    return wins, played


def _normalised(money: np.ndarray, floor: np.ndarray) -> tuple[int, ...]:
    """Whole coins, shifted so the median seat gets none (the lower median for an even count),
    never below what a seat may lose (``floor``)."""
    coins = np.rint(money).astype(np.int64)
    coins -= np.sort(coins)[(len(coins) - 1) // 2]
    return tuple(int(c) for c in np.maximum(coins, floor))


def _tie_rule(ties: list[Step], populations: int) -> Step:
    """The least imbalanced tie rule, if it beats the given one (``ties[0]``) by more than twice
    the given one's standard deviation over the populations' average (the chi-square's, from its
    noncentral distribution: a bound, since common deals make the difference less noisy); else the
    given rule: a designer should not be told to change a rule for noise."""
    given, best = ties[0], min(ties, key=lambda st: st.imbalance)
    df = given.wins.shape[1] - 1
    sd = np.sqrt(2 * (df + 2 * max(given.imbalance - df, 0)) / populations)
    return best if best.imbalance < given.imbalance - 2 * sd else given


def _compensation(steps: list[Step], given: Rule) -> tuple[float, np.ndarray]:
    """From every money step so far (common deals), the least-squares fit of each seat's
    deviation (averaged over the populations) as a_s + slope * (its coins - the seats' mean
    coins), coins counted from the given rule; returns the slope (points per coin) and the coins
    that cancel every a_s (centred)."""
    coins = np.array([np.subtract(st.rule.money, given.money) for st in steps], dtype=float)
    centred = coins - coins.mean(axis=1, keepdims=True)
    dev = np.array([st.deviation.mean(axis=0) for st in steps])
    k, n = dev.shape
    x = np.zeros((k * n, n + 1))
    x[np.arange(k * n), np.tile(np.arange(n), k)] = 1
    x[:, n] = centred.ravel()
    beta = np.linalg.lstsq(x, dev.ravel(), rcond=None)[0]
    slope = float(beta[n])
    return slope, (-beta[:n] / slope if slope > 0 else np.zeros(n))


def search(data: GameData, populations, players: int, games: int, confirm_games: int,
           seed: int, margin: float, root: Path, threads=None, resume: bool = False,
           overwrite: bool = False, status=lambda text: None, progress=None,
           before: Step | None = None) -> Fix:
    """The search at one player count (module docstring); every run is kept under ``root``.
    ``before``: the given rule measured on the balance seed's deals (``confirm_games`` per
    population), played here when not given."""
    given = given_rule(data, players)
    search_seed = (seed + SEARCH_SEED) % 2**64
    games = max(games, 1)
    steps: dict[Rule, Step] = {}

    def play(rule: Rule, tag: str, n: int = games, at: int = search_seed) -> Step:
        if at == search_seed and rule in steps:
            return steps[rule]
        folder = root / tag
        variant = write_variant(data, {players: rule}, folder / "rules.toml")
        wins, played = measure(variant, populations, players, n, at, folder, threads, resume,
                               overwrite, progress,
                               status=lambda name: status(f"{players} players, {tag}, {name}"))
        step = Step(rule, wins, played)
        if at == search_seed:
            steps[rule] = step
        return step

    ties = [play(Rule(s, cw, given.money), f"ties-start{s}-{PRICE_TIES[cw]}")
            for cw in (given.clockwise, not given.clockwise) for s in range(players)]
    base = _tie_rule(ties, len(populations))
    rule = base.rule
    floor = -(data.components.starting_money + np.array(given.money))
    pattern = np.array([PROBE if s % 2 == 0 else -PROBE for s in range(players)])
    if players % 2:
        pattern[-1] = 0
    probe = play(Rule(rule.start, rule.clockwise, tuple(np.add(given.money, pattern).tolist())),
                 "money-probe")
    money_steps = [base, probe]
    slope = 0.0
    for k in range(STEPS):
        slope, target = _compensation(money_steps, given)
        if slope <= 0:
            break  # coins do not buy win rate here: no compensation to compute
        coins = np.add(given.money, _normalised(target, floor))
        nxt = Rule(rule.start, rule.clockwise, tuple(int(c) for c in coins))
        if nxt in steps:
            break
        money_steps.append(play(nxt, f"money-step{k + 1}"))
    best = min([base] + money_steps[2:], key=lambda st: st.imbalance).rule
    confirm = play(best, "confirm", confirm_games, (seed + CONFIRM_SEED) % 2**64)
    if before is None:
        before = play(given, "given", confirm_games, seed)
    fix = Fix(players, given, ties, money_steps, slope, best, confirm, before, margin)
    fix.seats = seat_verdicts(confirm.wins, confirm.games, margin)
    fix.equal_p = [inference.equal_chances(w) for w in confirm.wins]
    fix.power = [inference.equal_chances_power(players, int(g), margin) for g in confirm.games]
    return fix


def run(data: GameData, populations, players, games: int, confirm_games: int, seed: int,
        margin: float, out=None, threads=None, resume: bool = False, overwrite: bool = False,
        status=lambda text: None, progress=None, before=None) -> tuple[list[Fix], str]:
    """``search`` at each player count, runs under ``out/fix/<N>p/`` (or a temporary folder);
    returns the fixes and the text of the data file that holds every proposal. ``before``: per
    player count, the given rule's ``Step`` from the balance run, if it was played."""
    with tempfile.TemporaryDirectory(prefix="samsim-fix-") as tmp:
        root = Path(out) / "fix" if out is not None else Path(tmp)
        fixes = [search(data, populations, n, games, confirm_games, seed, margin,
                        root / f"{n}p", threads, resume, overwrite, status, progress, b)
                 for n, b in zip(players, before or [None] * len(players))]
    return fixes, variant_text(data, {f.players: f.proposal for f in fixes})


def games_planned(populations, players, games: int, confirm_games: int) -> int:
    """Games the search plays at most (the money stage may stop early): for a progress bar."""
    from samsim.engine.designs import whole_passes

    total = 0
    for n in players:
        for p in populations:
            seats = p.lineup(n)
            total += whole_passes(games, seats) * (2 * n + 1 + STEPS)
            total += whole_passes(confirm_games, seats)
    return total


__all__ = ["Fix", "Rule", "Step", "games_planned", "given_rule", "measure", "run", "search",
           "variant_text", "write_variant"]
