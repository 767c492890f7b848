"""Balance reports (``samsim balance``): ranked findings first, seat effects and associations in
separate sections (a seat effect is caused by the seat; an association only describes who won, so
the two sizes do not compare), then the tables behind them per player count, in the terminal
(rich), Markdown, and PNG plots (seat win rates with simultaneous intervals, the market per round,
final money)."""

from __future__ import annotations

from pathlib import Path

import numpy as np
from rich.console import Console

import samsim
from samsim.analysis.balance import ALPHA, PlayerCount
from samsim.analysis.report import number, numbers_table
from samsim.components import PRICE_TIES
from samsim.stats.inference import format_p

FILES = ("balance.md", "seats.png", "market.png", "money.png", "final_money.png")
CONDITIONAL = ("Every number is conditional on the strategies played: a seat advantage among "
               "these players may differ among others.")


SECTIONS = {"effects": "Seat effects (simultaneous 95% intervals, Goodman)",
            "associations": "Associations (not effects; Bonferroni-simultaneous per player count, "
                            "Holm p)",
            "facts": "Other facts (descriptive, no interval)"}


def ranked(counts: list[PlayerCount], kind: str = "effects") -> list[str]:
    """Every player count's findings of one kind ("effects", "associations" or "facts"), largest
    (points of win rate) first. Kinds are never ranked together: a seat effect and an association
    of the same size do not mean the same thing."""
    return [text for _, text in sorted((f for c in counts for f in getattr(c.findings, kind)),
                                       key=lambda f: -f[0])]


def adjustment(counts: list[PlayerCount]) -> str:
    """Which adjustment the association intervals and p-values carry, and over how many."""
    each = "; ".join(f"{c.players} players: {c.associations} intervals, each at "
                     f"{100 * c.association_confidence:.2f}%" for c in counts)
    return (f"Within each player count, the association intervals (ties: coins and points; tiles) "
            f"hold together with {100 * (1 - ALPHA):.0f}% confidence (Bonferroni) and their "
            f"p-values are Holm-adjusted over the same family ({each}).")


def _sections(counts: list[PlayerCount]) -> list[tuple[str, list[str], str]]:
    """(title, ranked texts, note under the title) per kind of finding."""
    first = "Largest (points of win rate) first."
    return [(SECTIONS["effects"], ranked(counts, "effects"), first),
            (SECTIONS["associations"], ranked(counts, "associations"),
             f"{first} {adjustment(counts)}"),
            (SECTIONS["facts"], ranked(counts, "facts"), "")]


def _seat_rows(c: PlayerCount) -> list[list[str]]:
    return [[str(int(r["seat"])), f"{r['wins']:,.1f}", f"{100 * r['win_rate']:.2f}%",
             f"{100 * r['low']:.2f}–{100 * r['high']:.2f}%",
             f"{100 * (r['win_rate'] - r['fair']):+.2f}"]
            for _, r in c.seats.iterrows()]


SEAT_HEADERS = ("seat", "wins", "win rate", "95% simultaneous", "vs 1/N, points")
MARKET_HEADERS = ("round", "arrived", "free rooms", "turned away", "hosted per seat",
                  "earned per seat")


def _market_rows(c: PlayerCount) -> list[list[str]]:
    return [[str(int(r["round"])), f"{r['arrived']:.2f}", f"{r['free_rooms']:.2f}",
             f"{r['turned_away']:.2f}", f"{r['hosted']:.2f}", f"{r['earned']:.1f}"]
            for _, r in c.market.iterrows()]


def _money_line(c: PlayerCount) -> str:
    m = c.money
    return (f"final money mean {m['mean']:.1f} (sd {m['sd']:.1f}); quantiles 10/25/50/75/90%: "
            f"{' / '.join(number(m[q]) for q in ('q10', 'q25', 'q50', 'q75', 'q90'))}; "
            f"winner-to-last spread mean {m['spread_mean']:.1f}, median {number(m['spread_median'])}; "
            f"draws {100 * m['draws']:.2f}%; top score shared in {100 * m['top_tied']:.2f}% of "
            f"games, decided by free rooms in {100 * m['free_rooms_decides']:.2f}%")


def print_balance(counts: list[PlayerCount], header: list[str], console: Console) -> None:
    for line in header:
        console.print(line, markup=False)
    console.print()
    for title, texts, note in _sections(counts):
        console.print(title, style="bold", markup=False)
        if note:
            console.print(note, markup=False)
        for k, text in enumerate(texts, 1):
            console.print(f"{k:2d}. {text}", markup=False)
        console.print()
    for c in counts:
        console.print(numbers_table(SEAT_HEADERS, _seat_rows(c),
                                    f"{c.players} players, {c.games:,} games: win rate by seat "
                                    f"(equal chances {format_p(c.equal_p, 'p')})"))
        console.print(f"{c.design}; {_money_line(c)}", markup=False)
        console.print()
    console.print(CONDITIONAL, markup=False)


def markdown(counts: list[PlayerCount], header: list[str], plots: list[Path]) -> str:
    parts = ["# Balance report", ""] + [f"- {line}" for line in header] + ["", CONDITIONAL, ""]
    for title, texts, note in _sections(counts):
        parts += [f"## {title}", ""] + ([note, ""] if note else [])
        parts += [f"{k}. {text}" for k, text in enumerate(texts, 1)] + [""]
    for c in counts:
        level = f"{100 * c.association_confidence:.2f}%"
        parts += [f"## {c.players} players", "", f"{c.games:,} games. Win rate by seat (seat 0 "
                  f"starts first in the tie-breaker's order); intervals hold simultaneously "
                  f"(Goodman); chi-square test of equal chances {format_p(c.equal_p, 'p')}.", "",
                  "| " + " | ".join(SEAT_HEADERS) + " |", "|" + " ---: |" * len(SEAT_HEADERS)]
        parts += ["| " + " | ".join(row) + " |" for row in _seat_rows(c)]
        parts += ["", f"Players: {c.design}.", "", _money_line(c) + ".", "",
                  "Ties the tie-breaker card settles: how seats that won one more and lost one "
                  "fewer (as many ties in all) differ, an association, not what a tie is worth "
                  "(the ties a seat meets and wins follow from its bids and position); OLS with seat dummies, errors clustered by game, "
                  f"{level} intervals (simultaneous over this player count's {c.associations} "
                  "association intervals, Bonferroni), Holm p:", "",
                  "| tie | won per seat and game | win rate, points (simultaneous CI) | Holm p | "
                  "final money, coins (simultaneous CI) | Holm p |",
                  "| --- | ---: | ---: | ---: | ---: | ---: |"]
        parts += [f"| {t['kind']} | {t['per_game']:.2f} | {t['points']:+.2f} "
                  f"({t['points_low']:+.2f}, {t['points_high']:+.2f}) | "
                  f"{format_p(t['points_holm'])} | {t['coins']:+.2f} "
                  f"({t['coins_low']:+.2f}, {t['coins_high']:+.2f}) | {format_p(t['coins_holm'])} |"
                  for _, t in c.ties.iterrows()]
        parts += ["", "Market per round (game totals; hosted and earned per seat):", "",
                  "| " + " | ".join(MARKET_HEADERS) + " |", "|" + " ---: |" * len(MARKET_HEADERS)]
        parts += ["| " + " | ".join(row) + " |" for row in _market_rows(c)]
        parts += ["", "Tiles: price paid (the buyer's bid) and the buyers' win rate against the "
                  "other seats' (an association, not an effect: who buys is not random); errors "
                  f"clustered by game, {level} intervals (Bonferroni, with the ties above), "
                  "Holm p:", "",
                  "| tile | bought | mean price | buyers' win rate | others' | difference, "
                  "points (simultaneous CI) | Holm p |",
                  "| --- | ---: | ---: | ---: | ---: | ---: | ---: |"]
        parts += [f"| {t['tile']} | {t['bought']:,} | {t['price']:.2f} | "
                  f"{100 * t['buyer_win_rate']:.1f}% | {100 * t['others_win_rate']:.1f}% | "
                  f"{t['diff']:+.1f} ({t['diff_low']:+.1f}, {t['diff_high']:+.1f}) | "
                  f"{format_p(t['holm'])} |" for _, t in c.tiles.iterrows()]
        parts += [""]
    parts += ["## Plots", ""] + [f"![{p.stem}]({p.name})" for p in plots] + [""]
    parts += [f"samsim {samsim.__version__}", ""]
    return "\n".join(parts)


def plots(counts: list[PlayerCount], out: Path) -> list[Path]:
    from samsim.analysis.plots import _panels, _pyplot, _save

    plt = _pyplot()
    fig, axes = _panels(plt, len(counts), "Win rate by seat (95% simultaneous intervals)")
    for ax, c in zip(axes, counts):
        rate = 100 * c.seats["win_rate"]
        ax.errorbar(c.seats["seat"], rate, yerr=[rate - 100 * c.seats["low"],
                                                 100 * c.seats["high"] - rate], fmt="o", capsize=3)
        ax.axhline(100 / c.players, color="grey", lw=0.8, ls="--", label="1/N")
        ax.set_title(f"{c.players} players")
        ax.set_xlabel("seat")
        ax.set_xticks(range(c.players))
    axes[0].set_ylabel("win rate (%)")
    seats = _save(plt, fig, out / "seats.png")

    fig, axes = _panels(plt, len(counts), "Market per round")
    for ax, c in zip(axes, counts):
        ax.plot(c.market["round"], c.market["arrived"], "o-", label="tourists arrived")
        ax.plot(c.market["round"], c.market["free_rooms"], "s-", label="free rooms")
        ax.plot(c.market["round"], c.market["turned_away"], "^-", label="turned away")
        ax.set_title(f"{c.players} players")
        ax.set_xlabel("round")
    axes[0].set_ylabel("per game")
    axes[-1].legend(fontsize=7, loc="center left", bbox_to_anchor=(1, 0.5))
    market = _save(plt, fig, out / "market.png")

    fig, axes = _panels(plt, len(counts), "Money earned per seat and round")
    for ax, c in zip(axes, counts):
        ax.bar(c.market["round"], c.market["earned"])
        ax.set_title(f"{c.players} players")
        ax.set_xlabel("round")
    axes[0].set_ylabel("coins")
    money = _save(plt, fig, out / "money.png")

    fig, axes = _panels(plt, len(counts), "Final money (share of seats)")
    for ax, c in zip(axes, counts):
        share = c.final_money / c.final_money.sum()
        ax.bar(share.index, 100 * share.to_numpy(), width=1.0)
        ax.axvline(c.money["mean"], color="grey", lw=0.8, ls="--", label="mean")
        ax.set_title(f"{c.players} players")
        ax.set_xlabel("final money (coins)")
    axes[0].set_ylabel("% of seats")
    final = _save(plt, fig, out / "final_money.png")
    return [seats, market, money, final]


def write_balance(counts: list[PlayerCount], header: list[str], out) -> list[Path]:
    from samsim.runs.results import prepare_output_dir, write_text

    out = prepare_output_dir(out)
    drawn = plots(counts, out)
    path = write_text(out / "balance.md", markdown(counts, header, drawn))
    return [path, *drawn]


# ------------------------------------------------------------------------------ populations

ROBUST_NOTE = ("A seat effect is robust when every population shows it on the same side of 1/N, "
               "none found when every population keeps the seat within the margin; it depends on "
               "the players when some populations show it and others do not, and is undecided "
               "when none shows it and the games cannot place the seat within the margin. Each population's seat intervals are Goodman's, at "
               "{level} (Bonferroni over the {n} populations), so that all of them hold together "
               "with 95% confidence; neither call is made falsely more often than 5% "
               "(samsim.stats.seats).")


def _effect(r) -> str:
    """The robust seats and their sizes over the populations, e.g. "seat 4 +6.1 to +17.5"."""
    parts = [f"seat {v.seat} {v.size[0]:+.1f} to {v.size[1]:+.1f}" for v in r.seats
             if v.verdict == "robust"]
    return "; ".join(parts) or "–"


def headline_rows(robust, fixes=None) -> list[list[str]]:
    rows = [[str(r.players), r.verdict, _effect(r),
             ", ".join(str(v.seat) for v in r.seats if v.verdict == "depends on the players")
             or "–", f"±{r.margin:g}"] for r in robust]
    for row, r, f in zip(rows, robust, fixes or []):
        row += [f.change, _fix_outcome(f, r.populations)]
    return rows


def _fix_outcome(f, populations: list[str]) -> str:
    """The best rule on fresh deals against the given one on its own: imbalance, under which
    populations it is fairer, its verdict and its worst seat."""
    worst = max(abs(d) for v in f.seats for d in v.deviation)
    names = [p for p, better in zip(populations, f.fairer) if not better]
    fairer = (f"fairer under {int(f.fairer.sum())} of {len(f.fairer)} populations"
              + (f" (not {', '.join(names)})" if names else ""))
    return (f"imbalance {f.before.imbalance:,.0f} → {f.confirm.imbalance:,.0f}; {fairer}; "
            f"{f.verdict}; largest {worst:.1f} points; equal chances "
            f"{format_p(min(f.equal_p), 'p')} at power {min(f.power):.0%}")


HEADLINE = ("players", "verdict", "robust seat effects, points (over the populations)",
            "seats that depend on the players", "margin")
FIX_HEADLINE = ("fix (seat rules)", "the fix against the given rules, fresh deals")
#: The columns of HEADLINE + FIX_HEADLINE that hold sentences: a narrow terminal folds them.
HEADLINE_PROSE = (1, 2, 3, 5, 6)


def fix_note(fixes) -> str:
    return (f"The fix is the least imbalanced of the seat rules tried on common deals (every "
            f"tie-breaker start and price-tie order, then coins per seat by Newton steps on the "
            f"slope of win rate per coin), played again on fresh deals ({int(fixes[0].confirm.games[0]):,} "
            f"games per population) and judged as above. Imbalance: the equal-chances chi-square "
            f"averaged over the populations ({fixes[0].players - 1} at {fixes[0].players} players "
            f"when fair; N - 1 at N), of the given rules on the balance run's deals and of the fix "
            f"on its own: the fix is proposed only if it is lower by more than twice the noise "
            f"of the difference, and it is fairer under a population when that population's own chi-square is lower. Populations that "
            f"disagree cannot all be pleased by one rule: the average weighs most those with the "
            f"largest effects. Equal chances: the lowest p over the "
            f"populations, and the test's power there to see one seat off by the margin "
            f"(±{fixes[0].margin:g} points); without power, no rejection is no evidence. The "
            f"proposals are fair.toml: pass it with --rules.")


def fix_sections(f, populations) -> list[str]:
    """One player count's search, in Markdown: the tie rules tried, the money steps, the
    confirmation per seat and population."""
    names = [p.name for p in populations]
    parts = [f"### The fix at {f.players} players: {f.change}", "",
             f"Tie rules tried ({int(f.ties[0].games[0]):,} games per population, common deals; "
             f"imbalance: the equal-chances chi-square averaged over the populations, "
             f"{f.players - 1} when fair):", "", "| tie-breaker starts before seat | equal room "
             "prices | imbalance |", "| ---: | --- | ---: |"]
    parts += [f"| {st.rule.start} | {PRICE_TIES[st.rule.clockwise]} | {st.imbalance:,.1f} |"
              for st in f.ties]
    parts += ["", f"Coins per seat (on top of the given rules; the second row is the probe that "
                  f"measures the slope: {f.slope:.2f} points of win rate per coin):", "",
              "| coins | imbalance | seat deviations, points (mean over populations) |",
              "| --- | ---: | --- |"]
    parts += [f"| {', '.join(f'{c:+d}' for c in (np.subtract(st.rule.money, f.given.money)))} | "
              f"{st.imbalance:,.1f} | {', '.join(f'{d:+.1f}' for d in st.deviation.mean(axis=0))} |"
              for st in f.money]
    parts += ["", f"Confirmation on fresh deals of the best rule found ({f.best.describe(f.given)}), "
                  f"seat win rate − 1/N, points (simultaneous interval): {f.verdict}; imbalance "
                  f"{f.confirm.imbalance:,.1f} against {f.before.imbalance:,.1f} for the given "
                  f"rules{'' if f.improves else ': not proposed'}.", "",
              "| seat | " + " | ".join(names) + " | verdict |",
              "| ---: |" + " ---: |" * len(names) + " --- |"]
    parts += ["| " + " | ".join(row) + " |" for row in seat_rows(f)]
    parts += ["", "| population | games | equal chances | power at the margin | chi-square, "
                  "given rules | chi-square, this rule |", "| --- | ---: | ---: | ---: | ---: | ---: |"]
    parts += [f"| {n} | {int(g):,} | {format_p(p, 'p')} | {w:.0%} | {b:,.1f} | {c:,.1f} |"
              for n, g, p, w, b, c in zip(names, f.confirm.games, f.equal_p, f.power,
                                          f.before.chi_squares, f.confirm.chi_squares)]
    return parts + [""]


def seat_rows(r) -> list[list[str]]:
    """Per seat: its deviation from 1/N under each population (simultaneous interval), and the
    verdict."""
    return [[str(v.seat), *[f"{d:+.1f} ({lo:+.1f}, {hi:+.1f})" for d, lo, hi in
                            zip(v.deviation, v.low, v.high)], v.verdict] for v in r.seats]


def print_populations(robust, populations, header: list[str], console: Console,
                      fixes=None) -> None:
    for line in header:
        console.print(line, markup=False)
    console.print()
    console.print(numbers_table(HEADLINE + (FIX_HEADLINE if fixes else ()),
                                headline_rows(robust, fixes), "Is the game fair?",
                                prose=HEADLINE_PROSE))
    for r in robust:
        console.print(numbers_table(("seat", *r.populations, "verdict"), seat_rows(r),
                                    f"{r.players} players: seat win rate − 1/N, points "
                                    f"(simultaneous interval)"))
    console.print(_robust_note(populations), markup=False)
    if fixes:
        console.print(fix_note(fixes), markup=False)
    for population in populations:
        console.print(f"{population.name}: {population.describe()}", markup=False)


def _robust_note(populations) -> str:
    return ROBUST_NOTE.format(level=f"{100 * (1 - ALPHA / len(populations)):.2f}%",
                              n=len(populations))


def explained_seats(r) -> list[tuple[int, int]]:
    """(seat, population index) pairs worth explaining at one player count: every robust seat
    under every population, and under each population the seat farthest from 1/N among those its
    simultaneous interval places off it (where effects depend on the players, these are the ones
    a designer asks about)."""
    pairs = {(v.seat, i) for v in r.seats if v.verdict == "robust"
             for i in range(len(r.populations))}
    for i in range(len(r.populations)):
        off = [v for v in r.seats if v.low[i] > 0 or v.high[i] < 0]
        if off:
            pairs.add((max(off, key=lambda v: abs(v.deviation[i])).seat, i))
    return sorted(pairs)


def _at(counts, players: int):
    """A population's measurement at one player count."""
    return next(c for c in counts if c.players == players)


def why_sections(r, measured, populations, data) -> list[str]:
    """Where one player count's robust effects come from (per population), the tie-breaker's
    schedule, and skill against luck where several strategies played."""
    from samsim.analysis.balance import explain, schedule

    c = data.components
    doubles = [int(x) + 1 for x in np.flatnonzero(c.round_factor > 1)]
    sched = schedule(r.players, int(c.tiebreak_start[r.players]),
                     bool(c.price_clockwise[r.players]), c.rounds, set(doubles))
    parts = ["", f"Tie-breaker schedule (double rounds {', '.join(map(str, doubles))} in bold): "
                 f"the first seat among equal bids (tiles) and among equal prices (tourists).", "",
             "| round | " + " | ".join(f"**{x}**" if d else str(x) for x, d in
                                      zip(sched["round"], sched["double"])) + " |",
             "| --- |" + " ---: |" * len(sched),
             "| tiles first | " + " | ".join(map(str, sched["tiles_first"])) + " |",
             "| tourists first | " + " | ".join(map(str, sched["tourists_first"])) + " |"]
    shown = explained_seats(r)
    if shown:
        parts += ["", "Why (each robust seat under each population, and each population's largest "
                      "seat effect beyond chance; coins earned in a round against the other "
                      "seats' mean, and ties: descriptions of the games, not causes on their "
                      "own):", ""]
        for seat, i in shown:
            p = populations[i]
            count = _at(measured[p.name], r.players)
            parts.append(f"- seat {seat}, {p.name}: {explain(r.players, seat, count, data)}")
    skilled = [(p, _at(measured[p.name], r.players).skill) for p in populations]
    skilled = [(p, s) for p, s in skilled if s]
    if skilled:
        parts += ["", "Skill and luck:", ""]
        parts += [f"- {p.name}: {s['strongest']} wins {s['spread']:.1f} points more often than "
                  f"{s['weakest']}; the strategies seated explain {100 * s['skill_share']:.0f}% "
                  f"of the spread of final money within a game (the rest: the deal, the seat, "
                  f"the tie-breaks); {100 * s['deal_share']:.0f}% of all the variance of final "
                  f"money lies between games" for p, s in skilled]
    return parts


def populations_markdown(robust, populations, header: list[str], plots: list[Path],
                         fixes=None, measured=None, data=None) -> str:
    columns = HEADLINE + (FIX_HEADLINE if fixes else ())
    parts = ["# Balance report", ""] + [f"- {line}" for line in header] + [
        "", "## Is the game fair?", "", "| " + " | ".join(columns) + " |",
        "| ---: | --- | --- | --- | ---: |" + " --- |" * (len(columns) - len(HEADLINE))]
    parts += ["| " + " | ".join(row) + " |" for row in headline_rows(robust, fixes)]
    parts += ["", _robust_note(populations)] + (["", fix_note(fixes)] if fixes else [])
    parts += ["", "Populations:", ""]
    parts += [f"- **{p.name}**: {p.describe()}; its own report: [{p.folder}/balance.md]"
              f"({p.folder}/balance.md)" for p in populations]
    for r in robust:
        parts += ["", f"## {r.players} players", "",
                  f"Seat win rate − 1/N, points, with the simultaneous interval; games per "
                  f"population: {', '.join(f'{g:,}' for g in r.games)}.", "",
                  "| seat | " + " | ".join(r.populations) + " | verdict |",
                  "| ---: |" + " ---: |" * len(r.populations) + " --- |"]
        parts += ["| " + " | ".join(row) + " |" for row in seat_rows(r)]
        if measured is not None:
            parts += why_sections(r, measured, populations, data)
        fix = next((f for f in fixes or [] if f.players == r.players), None)
        if fix is not None:
            parts += [""] + fix_sections(fix, populations)
    parts += ["", "## Plots", ""] + [f"![{p.stem}]({p.name})" for p in plots] + [""]
    parts += [f"samsim {samsim.__version__}", ""]
    return "\n".join(parts)


def populations_plot(robust, out: Path) -> Path:
    from samsim.analysis.plots import _panels, _pyplot, _save

    plt = _pyplot()
    fig, axes = _panels(plt, len(robust), "Seat win rate − 1/N by population "
                                          "(simultaneous intervals)")
    for ax, r in zip(axes, robust):
        width = 0.8 / len(r.populations)
        for k, name in enumerate(r.populations):
            x = [v.seat - 0.4 + width * (k + 0.5) for v in r.seats]
            dev = [v.deviation[k] for v in r.seats]
            ax.errorbar(x, dev, yerr=[[d - v.low[k] for d, v in zip(dev, r.seats)],
                                      [v.high[k] - d for d, v in zip(dev, r.seats)]],
                        fmt="o", ms=3, capsize=2, label=name)
        ax.axhline(0, color="grey", lw=0.8, ls="--")
        ax.axhspan(-r.margin, r.margin, color="grey", alpha=0.12, lw=0)
        ax.set_title(f"{r.players} players: {r.verdict}")
        ax.set_xlabel("seat")
        ax.set_xticks(range(len(r.seats)))
    axes[0].set_ylabel("points of win rate")
    axes[-1].legend(fontsize=7, loc="center left", bbox_to_anchor=(1, 0.5))
    return _save(plt, fig, out / "seats_by_population.png")


def write_populations(measured, robust, populations, header: list[str], out, fixes=None,
                      fair: str | None = None, data=None) -> list[Path]:
    """The report across populations (balance.md, seats_by_population.png), each population's
    own report in a folder of its name, and with a fix the data file that holds it (fair.toml)."""
    from samsim.runs.results import prepare_output_dir, write_text

    out = prepare_output_dir(out)
    written = []
    for population in populations:
        own = [f"population {population.name}: {population.describe()}", *header]
        written += write_balance(measured[population.name], own, out / population.folder)
    plot = populations_plot(robust, out)
    path = write_text(out / "balance.md", populations_markdown(
        robust, populations, header, [plot], fixes, measured if data is not None else None, data))
    if fair is not None:
        written.insert(0, write_text(out / "fair.toml", fair))
    return [path, plot, *written]


__all__ = ["SECTIONS", "ranked", "adjustment", "print_balance", "markdown", "plots",
           "write_balance", "FILES", "print_populations", "populations_markdown",
           "populations_plot", "write_populations"]
