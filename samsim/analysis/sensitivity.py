"""Which conclusions survive when the *assumed* component data changes?

Several component values are assumed, not read from a physical copy (the data file's
``meta.assumed``). A sensitivity experiment redoes one comparison of strategies, and the seat
balance with the field strategy in every seat, on each variant data file, then says which
conclusions hold on every file (robust to our guesses) and which move.
"""

from __future__ import annotations

import tomllib
from dataclasses import dataclass
from pathlib import Path

import pandas as pd

from samsim.analysis.balance import PlayerCount, worst_seat
from samsim.analysis.compare import MIN_GROUPS, Comparison


@dataclass
class Variant:
    name: str  # the data file's stem ("base" for the packaged file)
    changes: list[str]  # what differs from the base file, "section.key: old -> new"
    comparison: Comparison
    balance: PlayerCount


def changes(base: Path, variant: Path) -> list[str]:
    """The values of ``variant`` that differ from ``base`` (tourist cards: which cards)."""
    a = tomllib.loads(Path(base).read_text(encoding="utf-8"))
    b = tomllib.loads(Path(variant).read_text(encoding="utf-8"))
    out = []
    for section in sorted(set(a) | set(b)):
        x, y = a.get(section), b.get(section)
        if x == y:
            continue
        if isinstance(x, dict) and isinstance(y, dict):
            out += [f"{section}.{k}: {x.get(k)} -> {y.get(k)}" for k in sorted(set(x) | set(y))
                    if x.get(k) != y.get(k)]
        elif isinstance(x, list) and isinstance(y, list) and len(x) == len(y):
            cards = [str(i) for i, (p, q) in enumerate(zip(x, y)) if p != q]
            out.append(f"{section}: cards {', '.join(cards)} changed")
        else:
            out.append(f"{section} changed")
    return out


def run(files: list[tuple[str, Path | None]], contestants, players: int, field_spec: str,
        games: int, balance_games: int, seed: int, duplicate=False, threads=None,
        status=lambda name: None) -> list[Variant]:
    """``files``: (name, data file or None for the packaged one), the base first."""
    from samsim import components
    from samsim.analysis import balance, compare

    balance.check_games(balance_games, "balance_games")  # before any comparison is played
    base = components.default_data_path()
    out = []
    for name, path in files:
        status(name)
        data = components.load(path)
        c = compare.compare(contestants, players, games, seed, field_spec, data, threads,
                            duplicate=duplicate)
        b = balance.run([players], balance_games, seed, field_spec, data=data, threads=threads)[0]
        out.append(Variant(name, changes(base, path) if path else [], c, b))
    return out


ROBUST, MOVES, UNDECIDED = "robust", "moves", "undecided"


def _side(row) -> int | None:
    """+1: the pair's first is ahead, -1: the second, 0: no clear difference (its simultaneous
    interval holds zero), None: too few groups for a verdict (``compare.MIN_GROUPS``)."""
    if row["groups"] < MIN_GROUPS:
        return None
    return 1 if row["win_low"] > 0 else -1 if row["win_high"] < 0 else 0


def _sign(row) -> str | None:
    """The pair's verdict in words; None below compare's least number of groups."""
    side = _side(row)
    return (None if side is None else f"{row['a']} ahead" if side > 0 else f"{row['b']} ahead"
            if side < 0 else "no clear difference")


def _order(pairs: pd.DataFrame) -> tuple[str | None, str | None]:
    """The strategy ahead of every other, and the whole order, as the pairs' verdicts decide
    them (None where they do not: an undecided pair, or a cycle), not the point estimates."""
    names = list(dict.fromkeys([*pairs["a"], *pairs["b"]]))
    ahead = dict.fromkeys(names, 0)
    decided = True
    for _, p in pairs.iterrows():
        side = _side(p)
        if side:
            ahead[p["a"] if side > 0 else p["b"]] += 1
        decided &= bool(side)
    order = sorted(names, key=lambda n: -ahead[n])
    top = order[0] if ahead[order[0]] == len(names) - 1 else None
    whole = decided and sorted(ahead.values()) == list(range(len(names)))
    return top, " > ".join(order) if whole else None


def table(variants: list[Variant]) -> pd.DataFrame:
    """One row per variant: the ranking, each pair's difference, the largest seat deviation."""
    rows = []
    for v in variants:
        pairs = v.comparison.pairs_frame()
        top, order = _order(pairs)
        row = {"variant": v.name, "ranking": " > ".join(v.comparison.ranking_frame()["strategy"]),
               "first": top, "order": order}
        for _, p in pairs.iterrows():
            row[f"{p['a']} − {p['b']}"] = (p["win_diff"], p["win_low"], p["win_high"], _sign(p))
        worst = worst_seat(v.balance.seats)
        row["largest seat deviation"] = (int(worst["seat"]), float(worst["dev"]),
                                         bool(worst["beyond_chance"]))
        rows.append(row)
    return pd.DataFrame(rows)


def conclusions(variants: list[Variant]) -> list[tuple[str, str]]:
    """(status, sentence) for each conclusion of the base data: robust (it holds on every
    variant), moves (not on some), or undecided (the base's own games do not decide it). The
    ranking is read from the pairs' verdicts, not from the point estimates."""
    t = table(variants)
    out = []

    def held(values, text, undecided, otherwise):
        if values.iloc[0] is None:
            out.append((UNDECIDED, undecided))
            return
        same = values == values.iloc[0]
        out.append((ROBUST if same.all() else MOVES, text + ("" if same.all() else otherwise(
            [(n, x) for n, x, s in zip(t["variant"], values, same) if not s]))))

    held(t["first"], f"{t['first'].iloc[0]} ranks first (ahead of every other)",
         "no strategy is ahead of every other on the packaged data",
         lambda off: "; not on: " + ", ".join(n for n, _ in off))
    held(t["order"], f"the whole ranking {t['order'].iloc[0]}",
         "the whole ranking: not every pair is decided on the packaged data",
         lambda off: "; differs on: " + ", ".join(
             n + ("" if x else " (not every pair decided)") for n, x in off))
    for col in [c for c in t.columns if " − " in c]:
        signs = pd.Series([cell[3] for cell in t[col]], dtype=object)
        held(signs, f"{col}: {signs.iloc[0]}",
             f"{col}: no verdict: too few groups (a verdict needs {MIN_GROUPS})",
             lambda off: "; otherwise on: " + ", ".join(f"{n} ({x})" for n, x in off))
    seat = t["largest seat deviation"]
    worst, beyond = seat.map(lambda cell: cell[0]), seat.map(lambda cell: cell[2])
    same = (worst == worst.iloc[0]) & (beyond == beyond.iloc[0])
    out.append((ROBUST if same.all() else MOVES,
                f"seat {worst.iloc[0]} deviates most from the fair share "
                f"({seat.iloc[0][1]:+.1f} points, {'beyond' if beyond.iloc[0] else 'within'} "
                f"chance)" + ("" if same.all() else "; not on: " + ", ".join(t["variant"][~same]))))
    return sorted(out, key=lambda c: (ROBUST, MOVES, UNDECIDED).index(c[0]))


def markdown(variants: list[Variant], header: list[str], plot: Path | None) -> str:
    import samsim

    t = table(variants)
    pairs = [c for c in t.columns if " − " in c]
    parts = ["# Sensitivity to the assumed component data", ""] + [f"- {h}" for h in header]
    parts += ["", "## Conclusions", "", "Robust: the same on the packaged data and on every "
              "variant. Moves: changes on at least one variant. Undecided: the packaged data's "
              "own games do not decide it. The ranking is the pairs' verdicts (a strategy "
              "ahead of another where their simultaneous interval excludes zero), not the "
              "point estimates.", ""]
    parts += [f"- **{status}**: {text}" for status, text in conclusions(variants)]
    parts += ["", "## Per data file", "", "Win-rate differences in points (first minus second, "
              "interval simultaneous over the pairs with 95%); ranking: Plackett-Luce strength; "
              "seat: the seat farthest from the fair share.", "",
              "| data | ranking | " + " | ".join(pairs) + " | seat |",
              "| --- | --- | " + " | ".join("---:" for _ in pairs) + " | ---: |"]
    for _, row in t.iterrows():
        cells = [f"{row[c][0]:+.1f} ({row[c][1]:+.1f}, {row[c][2]:+.1f})" for c in pairs]
        seat, dev, beyond = row["largest seat deviation"]
        parts.append(f"| {row['variant']} | {row['ranking']} | " + " | ".join(cells) +
                     f" | {seat}: {dev:+.1f}{'' if beyond else ' (n.s.)'} |")
    parts += ["", "## What each variant changes", ""]
    parts += [f"- **{v.name}**: " + ("; ".join(v.changes) or "the packaged data file")
              for v in variants]
    if plot:
        parts += ["", f"![differences by data file]({plot.name})"]
    parts += ["", f"samsim {samsim.__version__}", ""]
    return "\n".join(parts)


def plot(variants: list[Variant], path: Path) -> Path:
    """Each pair's difference with its interval, one row per data file."""
    from samsim.analysis.plots import _pyplot, _save

    plt = _pyplot()
    t = table(variants)
    pairs = [c for c in t.columns if " − " in c]
    fig, axes = plt.subplots(1, len(pairs), figsize=(3.2 * len(pairs) + 1.5, 0.4 * len(t) + 1.6),
                             sharey=True, squeeze=False)
    y = list(range(len(t)))[::-1]
    for ax, col in zip(axes[0], pairs):
        mid = [c[0] for c in t[col]]
        ax.errorbar(mid, y, xerr=[[m - c[1] for m, c in zip(mid, t[col])],
                                  [c[2] - m for m, c in zip(mid, t[col])]], fmt="o", capsize=2)
        ax.axvline(0, color="grey", lw=0.8)
        ax.set_title(col, fontsize=8)
        ax.set_xlabel("points")
    axes[0][0].set_yticks(y, list(t["variant"]))
    fig.suptitle("Win-rate differences by data file (simultaneous 95% intervals)")
    return _save(plt, fig, path)


def write(variants: list[Variant], header: list[str], out) -> list[Path]:
    from samsim.runs.results import prepare_output_dir, write_text

    out = prepare_output_dir(out)
    drawn = plot(variants, out / "sensitivity.png")
    path = write_text(out / "sensitivity.md", markdown(variants, header, drawn))
    return [path, drawn]


__all__ = ["Variant", "changes", "run", "table", "conclusions", "markdown", "plot", "write"]
