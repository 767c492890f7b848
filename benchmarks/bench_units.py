"""What playing a chunk in units of a quarter second costs (samsim.engine.batches; Ctrl-C is
answered between units): games/s with units against one kernel call per chunk, in one process,
alternating, so that the machine's drift falls on both alike.

    python benchmarks/bench_units.py [games] [pairs]
"""

import sys
import time

from samsim import components, engine
from samsim.engine.lineup import lineup


def rate(unit_seconds: float, games: int, seats, data) -> float:
    engine.UNIT_SECONDS = unit_seconds
    start = time.perf_counter()
    played = sum(n for _, n, _ in engine.batches([(0, games)], 4, 7, data, seats))
    return played / (time.perf_counter() - start)


def main(games: int = 400_000, pairs: int = 5) -> None:
    seats, data = lineup(4, "random"), components.load()
    rate(0.25, 20_000, seats, data)  # compiled and warm
    ratios = []
    for _ in range(pairs):
        units, whole = rate(0.25, games, seats, data), rate(1e9, games, seats, data)
        ratios.append(units / whole)
        print(f"units {units:,.0f} games/s, one call per chunk {whole:,.0f} games/s, "
              f"ratio {units / whole:.3f}")
    print(f"median ratio {sorted(ratios)[len(ratios) // 2]:.3f}")


if __name__ == "__main__":
    main(*map(int, sys.argv[1:]))
