"""Populations: ways of filling the seats, so that the game's seat effects can be told from the
players'.

With one strategy in every seat, identical players choose identical cards, so the tie-breaker
decides far more than it would among people; a seat effect measured so is the game's as those
players play it. ``samsim balance --populations`` measures several populations and calls an effect
robust only when all of them show it (``samsim.stats.seats``).

A population is named on the command line as
    a strategy spec     that strategy in every seat (a mirror): ``greedy``, ``undercut(margin=2)``
    ``pool``            the library's strategies seated by the balanced design (every strategy in
                        every seat, every two meeting, equally often)
    ``mix``             the library drawn at random per table, with replacement (two copies of one
                        strategy may meet), each table in every rotation over the seats
    a TOML file         its ``[[population]]`` tables, each ``name`` and ``strategy`` (a mirror),
                        ``pool`` (a list of specs seated by the balanced design) or ``mix`` (a
                        list drawn per table)
"""

from __future__ import annotations

import tomllib
from dataclasses import dataclass
from pathlib import Path

#: The library's strategies, strongest first (results/pricing: Plackett-Luce strengths), as the
#: committed balance report measured them: tuned (found later by samsim tune) is not among them.
LIBRARY = ("lookahead", "holiday", "undercut", "weighted", "fixed", "greedy", "builder", "saver")
#: Weak to strong mirrors, and the whole library mixed at the table: seated evenly, and drawn.
DEFAULT = "random,saver,greedy(temperature=4),lookahead,pool,mix"
#: Tables a mix draws (each played in every rotation over the seats).
MIX_TABLES = 64


@dataclass(frozen=True)
class Population:
    """One way of filling the seats: ``mirror`` in every seat, or ``pool`` seated by the balanced
    design, or drawn per table (``mix``)."""

    name: str
    mirror: str | None = None
    pool: tuple[str, ...] = ()
    mix: bool = False

    def lineup(self, players: int):
        from samsim.engine.designs import mix_design, pool_design
        from samsim.engine.lineup import lineup

        if self.mix:
            return mix_design(players, list(self.pool), MIX_TABLES)
        return pool_design(players, list(self.pool)) if self.pool else lineup(players, self.mirror)

    def describe(self) -> str:
        if self.mix:
            return (f"mix of {len(self.pool)} drawn per table with replacement ({MIX_TABLES} "
                    f"tables, each in every rotation over the seats): {', '.join(self.pool)}")
        if self.pool:
            return f"pool of {len(self.pool)} seated by the balanced design: {', '.join(self.pool)}"
        return f"{self.mirror} in every seat"

    @property
    def folder(self) -> str:
        """A folder name for its runs: the name with anything but letters, digits, ``-`` and
        ``_`` replaced."""
        return "".join(ch if ch.isalnum() or ch in "-_" else "_" for ch in self.name)


def parse_populations(text: str) -> list[Population]:
    """``"random,greedy,pool"`` or ``"mine.toml,greedy"`` -> populations, each checked (an unknown
    strategy, a malformed file or two of one name is a ValueError naming it)."""
    from samsim.engine.registry import parse_spec, split_specs

    out: list[Population] = []
    for item in split_specs(text):
        if not item:
            raise ValueError(f"--populations: empty item in {text!r}; separate them with commas")
        if item.endswith(".toml"):
            out += _from_file(Path(item))
        elif item == "pool":
            out.append(Population("pool", pool=LIBRARY))
        elif item == "mix":
            out.append(Population("mix", pool=LIBRARY, mix=True))
        else:
            spec = parse_spec(item).spec()
            out.append(Population(spec, mirror=spec))
    names = [p.name for p in out]
    twice = next((n for n in names if names.count(n) > 1), None)
    if twice:
        raise ValueError(f"--populations: {twice!r} is given twice")
    folders = [p.folder for p in out]
    clash = next((f for f in folders if folders.count(f) > 1), None)
    if clash:
        raise ValueError(f"--populations: two populations would share the folder {clash!r}; "
                         f"name them apart")
    return out


def _from_file(path: Path) -> list[Population]:
    from samsim.engine.registry import parse_spec

    try:
        doc = tomllib.loads(path.read_text())
    except OSError as error:
        raise ValueError(f"{path}: cannot be read ({error.strerror})") from None
    except tomllib.TOMLDecodeError as error:
        raise ValueError(f"{path}: not valid TOML ({error})") from None
    tables = doc.get("population")
    if set(doc) - {"population"} or not isinstance(tables, list) or not tables:
        raise ValueError(f"{path}: give one or more [[population]] tables, each with a name and "
                         f"strategy = \"greedy\", pool = [\"greedy\", \"undercut\", ...] or "
                         f"mix = [...]")
    out = []
    for i, table in enumerate(tables):
        where = f"{path}: population {i + 1}"
        kinds = [k for k in ("strategy", "pool", "mix") if k in table] \
            if isinstance(table, dict) else []
        if not isinstance(table, dict) or set(table) - {"name", "strategy", "pool", "mix"} \
                or not isinstance(table.get("name"), str) or not table["name"].strip() \
                or len(kinds) != 1:
            raise ValueError(f"{where}: give a name and one of strategy (one in every seat), "
                             f"pool (a list seated by the balanced design) or mix (a list drawn "
                             f"per table)")
        if "strategy" in table:
            out.append(Population(table["name"], mirror=parse_spec(table["strategy"]).spec()))
        else:
            pool = table[kinds[0]]
            if not isinstance(pool, list) or len(pool) < 2:
                raise ValueError(f"{where}: {kinds[0]} must list two strategies or more")
            out.append(Population(table["name"], pool=tuple(parse_spec(s).spec() for s in pool),
                                  mix=kinds[0] == "mix"))
    return out
