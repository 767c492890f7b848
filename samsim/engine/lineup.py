"""Line-ups: which strategy sits in which seat, as the engine receives them."""

from __future__ import annotations

from pathlib import Path

import numpy as np

from samsim.engine import registry
from samsim.engine.registry import Strategy, StrategyError, StrategyInfo, parse_spec, with_params
from samsim.kernel.contract import MAX_PARAMS, STAGES


class Lineup:
    """Who plays which seat: one or more seatings (rows of strategies, one per seat). With several
    seatings (a pool seated by ``samsim.engine.designs.pool_design``), game id k plays seating k mod
    len(seatings), whatever chunk or batch it falls in.

    The engine sees each distinct strategy spec once (its entry points and parameters) and a small
    table of which spec sits where, so that a balanced design of a hundred thousand seatings costs
    a few megabytes, not one parameter vector per seat."""

    def __init__(self, seats, pool=(), design: str | None = None):
        seatings = [list(row) for row in seats] if seats and isinstance(seats[0], (list, tuple)) \
            else [list(seats)]
        if not seatings[0] or len({len(row) for row in seatings}) != 1:
            raise StrategyError("every seating of a line-up must seat the same number of players")
        everyone = [s for row in seatings for s in row]
        distinct = sorted({_ident(s.info): s.info for s in [*everyone, *pool]}.items())
        self.infos = [info for _, info in distinct]
        self.seatings = seatings
        self.pool_members = list(pool)
        self.pool = [s.spec() for s in pool]
        self.design = design
        #: every distinct (strategy, parameters) seated: a row of Control.entries and .params
        self.members = list({(_ident(s.info), s.spec()): s for s in everyone}.values())
        index = {(_ident(s.info), s.spec()): k for k, s in enumerate(self.members)}
        self.seat_strategy = np.array([[index[_ident(s.info), s.spec()] for s in row]
                                       for row in seatings], np.int64)
        self.params = np.array([s.vector() for s in self.members]).reshape(-1, MAX_PARAMS)

    @property
    def players(self) -> int:
        return len(self.seatings[0])

    def specs(self) -> list[list[str]]:
        """The spec of every seat, per seating."""
        names = [s.spec() for s in self.members]
        return [[names[k] for k in row] for row in self.seat_strategy.tolist()]

    def seating(self, game: int) -> list[str]:
        """The specs of game id ``game``'s seats."""
        return [s.spec() for s in self.seatings[game % len(self.seatings)]]

    def config(self) -> dict:
        """How a run records its line-up: the pool and its design where there is one (its
        seatings follow from them), else the seating itself."""
        if self.design is not None:
            return {"pool": self.pool, "design": self.design}
        return {"seatings": self.specs()}

    def entries(self) -> np.ndarray:
        """int64[members, stages]: the address of each seated strategy's entry point for each
        decision (``Control.entries``); compiles those not yet compiled."""
        addresses = {_ident(info): info.addresses() for info in self.infos}
        return np.array([addresses[_ident(s.info)] for s in self.members], np.int64
                        ).reshape(-1, len(STAGES))

    def shipped(self) -> tuple:
        """This line-up as plain data, strategies included (``registry.shipped``), that another
        process rebuilds with ``unshipped``: how a line-up reaches a cluster's workers."""
        at = {_ident(info): k for k, info in enumerate(self.infos)}

        def one(s: Strategy) -> tuple:
            return at[_ident(s.info)], tuple(s.params.items())

        return (tuple(registry.shipped(info) for info in self.infos),
                tuple(one(s) for s in self.members), self.seat_strategy,
                tuple(one(s) for s in self.pool_members), self.design)

    def uncompiled(self) -> list[str]:
        """The strategies (as ``load_strategy`` names them) whose entry points are not cached."""
        return [info.where for info in self.infos if not info.cached()]


def unshipped(shipped: tuple, folder: Path) -> Lineup:
    """The line-up ``Lineup.shipped`` described, rebuilt in this process (strategies that came
    by their sources are written under ``folder``)."""
    refs, members, seat_strategy, pool, design = shipped
    infos = [registry.unshipped(ref, folder) for ref in refs]

    def one(k: int, params: tuple) -> Strategy:
        return Strategy(infos[k], dict(params))

    seated = [one(*m) for m in members]
    return Lineup([[seated[k] for k in row] for row in seat_strategy.tolist()],
                  [one(*m) for m in pool], design)


def _ident(info: StrategyInfo) -> tuple[str, str, str]:
    return info.name, info.module.__name__, info.source_hash


def lineup(players: int, strategies=None, params=None) -> Lineup:
    """The line-up of ``players`` seats: one strategy for all (a name or spec) or one per seat;
    ``params`` (a dict, or one per seat) overrides parameters on top of the specs. A ``Lineup`` is
    returned as it is."""
    if isinstance(strategies, Lineup):
        if strategies.players != players:
            raise StrategyError(f"the line-up seats {strategies.players} players, not {players}")
        if params:
            raise StrategyError("params: give them in the line-up's specs, e.g. undercut(margin=2)")
        return strategies
    specs = strategies if isinstance(strategies, (list, tuple)) else [strategies or "random"] * players
    if len(specs) != players:
        raise StrategyError(f"give one strategy per seat ({players}), got {len(specs)}: "
                            f"{', '.join(map(str, specs))}")
    per_seat = params if isinstance(params, list) else [params] * players
    if len(per_seat) != players:
        raise StrategyError(f"params: give one dict per seat ({players}), got {len(per_seat)}")
    seats = []
    for spec, given in zip(specs, per_seat):
        s = parse_spec(spec)
        if given:
            s = with_params(s.info, {**s.params, **given}, s.spec())
        seats.append(s)
    return Lineup(seats)
