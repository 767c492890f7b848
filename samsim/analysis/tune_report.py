"""Tuning reports (``samsim tune``): the tuned spec and its confirmation first, then the learning
curve and every generation, in the terminal, in Markdown and as a plot.

The curve is the centre's win rate (the optimiser's recommendation, measured on deals it had not
seen): the best candidate of a generation is chosen on the same games that measure it, so its
rate is shown beside, marked optimistic.
"""

from __future__ import annotations

from pathlib import Path

from rich.console import Console

import samsim
from samsim.analysis.tune import TRUSTED_F, Tuning

FILES = ("tune.md", "learning_curve.png", "generations.csv")


def _field(t: Tuning) -> str:
    s = t.setup
    if s.self_play:
        return "copies of its own current centre (self-play)"
    labels = t.config["labels"][1:]
    if len(labels) == 1:
        return f"`{labels[0]}` in every other seat"
    return (f"the pool {', '.join(f'`{f}`' for f in labels)}, seated by its balanced design "
            f"around the tuned seat")


def description(t: Tuning) -> list[str]:
    s, first = t.setup, t.generations[0] if t.generations else None
    grown = [g.deals for g in t.generations]
    return [
        f"{s.players} players; tuned against {_field(t)}",
        f"{len(t.generations)} generations, {t.games:,} games of a budget of {s.budget:,}, seed "
        f"{s.seed}; stopped by {t.stopped}",
        f"CMA-ES (cma {t.config['cma_version']}): {s.candidates()} candidates a generation, "
        f"starting step {s.sigma:g} of each parameter's range, parameters "
        f"{', '.join(s.params or ())}",
        f"common deals: each generation's candidates and centre played the same deals in the "
        f"same seats; games per candidate doubled after a generation whose candidates' spread "
        f"was not clearly above the noise (F < {TRUSTED_F:g}): "
        + (f"{grown[0]:,} at first, {grown[-1]:,} at the end" if first else "none played"),
    ]


def generations_frame(t: Tuning):
    import pandas as pd

    return pd.DataFrame([{
        "generation": g.index, "games_per_candidate": g.deals, "games": g.games,
        "sigma": g.sigma, "centre": g.centre, "centre_win_rate": g.centre_rate,
        "centre_low": g.centre_low, "centre_high": g.centre_high,
        "best_candidate": g.specs[g.best], "best_win_rate": g.win_rate[g.best],
        "f": g.f, "p_value": g.p_value, "common_deals_gain": g.gain} for g in t.generations])


def _rows(t: Tuning) -> list[list[str]]:
    rows, played = [], 0
    for g in t.generations:
        played += g.games
        rows.append([str(g.index), f"{played:,}", f"{g.deals:,}", f"{g.sigma:.3f}",
                     f"{g.centre_rate:.1%} ({g.centre_low:.1%}–{g.centre_high:.1%})",
                     f"{g.win_rate[g.best]:.1%}", f"{g.f:.1f}", f"{g.gain:.2f}"])
    return rows


HEADERS = ("gen", "games so far", "games/cand.", "sigma", "centre win rate (95% CI)",
           "best cand. (optimistic)", "F", "CRN gain")


def _parameters(t: Tuning) -> list[list[str]]:
    from samsim.engine.registry import _fmt, parse_spec

    info = parse_spec(t.setup.start).info
    start = parse_spec(t.setup.start).params
    return [[name, _fmt(start[name]), _fmt(t.best_params[name]),
             f"{_fmt(info.limits[name][0])}..{_fmt(info.limits[name][1])}",
             "tuned" if name in (t.setup.params or ()) else "held"] for name in start]


def _verdicts(confirmation, best: str) -> list[str]:
    """The tuned strategy against its start and the reference (the first three compared, as
    ``tune.confirmation`` orders them), the tuned spec written ``tuned``; the other pairs are in
    the comparison's own report."""
    pairs = confirmation.pairs_frame()
    others = confirmation.contestants[1:3]
    mine = pairs[(pairs["a"] == best) & pairs["b"].isin(others)]
    return [v.replace(best, "tuned") for v in mine["verdict"]]


def print_tuning(t: Tuning, confirmations, console: Console, data_line: str = "") -> None:
    from samsim.analysis.report import numbers_table

    console.print(f"[bold]tuned: {t.best}[/bold]", highlight=False)
    for line in description(t):
        console.print(line, markup=False)
    console.print()
    console.print(numbers_table(list(HEADERS), _rows(t), "the learning curve: the centre on "
                                "each generation's deals"))
    for c in confirmations:
        console.print()
        console.print(f"confirmation at {c.players} players on fresh deals (seed {c.seed}), "
                      f"{c.games:,} games:", markup=False)
        for line in _verdicts(c, t.best):
            console.print(f"[bold]{line}[/bold]")
    for line in (data_line, f"samsim {samsim.__version__}"):
        if line:
            console.print(line, markup=False)


def markdown(t: Tuning, confirmations, data_line: str, plot: str | None) -> str:
    name = t.config["labels"][0].split("(")[0]
    parts = [f"# Tuning `{name}` at {t.setup.players} players", "",
             f"**Tuned:** `{t.best}`", "", "(every command takes this spec; `samsim strategies` "
             "lists the parameters)", ""]
    parts += [f"- {line}" for line in description(t)] + [""]
    from samsim.analysis.compare_report import _rank_cells

    for c in confirmations:
        parts += [f"## Confirmation at {c.players} players on fresh deals ({c.games:,} games, "
                  f"seed {c.seed})", "",
                  f"`samsim compare` of the tuned strategy (`tuned` below), its start and the "
                  f"reference (every pair: [confirm/{c.players}p/compare.md](confirm/"
                  f"{c.players}p/compare.md)); {c.description()[0]}:", ""]
        parts += [f"- {v}" for v in _verdicts(c, t.best)] + [""]
        parts += ["| strategy | win rate | 95% CI | P-L strength | 95% CI |",
                  "| --- | ---: | ---: | ---: | ---: |"]
        parts += ["| " + " | ".join(_rank_cells(r)).replace(t.best, "tuned") + " |"
                  for _, r in c.ranking_frame().iterrows()] + [""]
    parts += ["## Learning curve", "",
              "The centre is the optimiser's mean, measured on each generation's deals before "
              "it learnt from them: an unbiased estimate. The best candidate is chosen on the "
              "games that measure it, so its rate is optimistic. F: the candidates' spread over "
              "what noise alone gives (1 if they were alike); CRN gain: how many times more "
              "precise a difference between two candidates is on common deals than on "
              "independent games.", ""]
    if plot:
        parts += [f"![learning curve]({Path(plot).name})", ""]
    parts += ["| " + " | ".join(HEADERS) + " |", "| " + " | ".join("---:" for _ in HEADERS) + " |"]
    parts += ["| " + " | ".join(row) + " |" for row in _rows(t)] + [""]
    parts += ["## Parameters", "", "| parameter | start | tuned | range | |",
              "| --- | ---: | ---: | ---: | --- |"]
    parts += ["| " + " | ".join(row) + " |" for row in _parameters(t)] + [""]
    parts += ["## Notes", ""]
    parts += [f"- {line}" for line in (
        "conditional on the field: a multiplayer strategy's strength depends on who else sits "
        "at the table", data_line, f"samsim {samsim.__version__}") if line]
    return "\n".join(parts) + "\n"


def plot_learning(t: Tuning, path: Path) -> Path:
    """The centre's win rate with its interval against games played, the best candidate's
    (optimistic) beside it, and the step size below."""
    from samsim.analysis.plots import _pyplot, _save

    plt = _pyplot()
    fig, (top, bottom) = plt.subplots(2, 1, figsize=(7.5, 5.5), sharex=True,
                                      gridspec_kw={"height_ratios": [3, 1]})
    played, x = 0, []
    for g in t.generations:
        played += g.games
        x.append(played)
    gens = t.generations
    rate = [g.centre_rate for g in gens]
    top.errorbar(x, rate, yerr=[[g.centre_rate - g.centre_low for g in gens],
                                [g.centre_high - g.centre_rate for g in gens]],
                 fmt="o-", ms=3, capsize=2, label="centre (95% CI)")
    top.plot(x, [g.win_rate[g.best] for g in gens], "x", color="grey",
             label="best candidate (optimistic)")
    if not t.setup.self_play:
        top.axhline(1 / t.setup.players, color="grey", ls="--", lw=1, label="1/N")
    top.set_ylabel("win rate")
    top.yaxis.set_major_formatter(plt.FuncFormatter(lambda v, _: f"{v:.0%}"))
    top.legend(fontsize=8)
    top.set_title(f"{t.config['labels'][0]} at {t.setup.players} players")
    bottom.plot(x, [g.sigma for g in gens], "o-", ms=3)
    bottom.set_ylabel("step size")
    bottom.set_xlabel("games played")
    return _save(plt, fig, path)


def write_tuning(t: Tuning, confirmations, out, data_line: str) -> list[Path]:
    """``tune.md``, ``learning_curve.png``, ``generations.csv`` and each confirmation's
    comparison report (``confirm/<N>p/``) in folder ``out``."""
    from samsim.analysis.compare_report import write_comparison
    from samsim.runs.results import prepare_output_dir, write_text

    out = prepare_output_dir(out)
    plot = plot_learning(t, out / "learning_curve.png") if t.generations else None
    write_text(out / "generations.csv", generations_frame(t).to_csv(index=False))
    written = [out / "tune.md", *([plot] if plot else []), out / "generations.csv"]
    for c in confirmations:
        written += write_comparison(c, out / "confirm" / f"{c.players}p", data_line)
    write_text(out / "tune.md", markdown(t, confirmations, data_line, str(plot) if plot else None))
    return written


__all__ = ["print_tuning", "markdown", "plot_learning", "write_tuning", "generations_frame",
           "description"]
