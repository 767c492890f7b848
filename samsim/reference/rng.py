"""SplitMix64 random streams, written out plainly from docs/protocol.md.

The reference engine keeps its own copy of the generator (it must not share code with the kernel),
so that a mistake in either copy shows up as two different games instead of two identical wrong ones.
Python integers are unbounded, hence the explicit ``& MASK64`` after every addition and product.
"""

from __future__ import annotations

MASK64 = (1 << 64) - 1
GOLDEN_GAMMA = 0x9E3779B97F4A7C15

# Stream ids (protocol.md, "Random numbers").
FLAG_STREAM = 0
TILE_STREAM = 1
TOURIST_CARD_STREAM = 2
CHIP_STREAM_BASE = 16      # + 0-based round
POLICY_STREAM_BASE = 64    # + seat


def mix64(z: int) -> int:
    """The SplitMix64 finaliser."""
    z &= MASK64
    z = ((z ^ (z >> 30)) * 0xBF58476D1CE4E5B9) & MASK64
    z = ((z ^ (z >> 27)) * 0x94D049BB133111EB) & MASK64
    return z ^ (z >> 31)


def stream_key(seed: int, game: int, stream: int) -> int:
    """The starting state of one stream; every (seed, game, stream) gets an unrelated state."""
    z = mix64((seed + GOLDEN_GAMMA) & MASK64)
    z = mix64((z + game + GOLDEN_GAMMA) & MASK64)
    return mix64((z + stream + GOLDEN_GAMMA) & MASK64)


class Stream:
    """One SplitMix64 sequence. Each chance event owns a stream, so that no draw depends on play."""

    def __init__(self, state: int):
        self.state = state & MASK64

    @classmethod
    def for_game(cls, seed: int, game: int, stream: int) -> "Stream":
        return cls(stream_key(seed & MASK64, game & MASK64, stream))

    def next(self) -> int:
        self.state = (self.state + GOLDEN_GAMMA) & MASK64
        return mix64(self.state)

    def below(self, n: int) -> int:
        """Uniform in 0..n-1 by multiply-shift of the top 32 bits; one draw even when n == 1."""
        if not 1 <= n < (1 << 32):
            raise ValueError(f"below(n) needs 1 <= n < 2**32, got {n}")
        return ((self.next() >> 32) * n) >> 32

    def shuffle(self, items: list) -> list:
        """Forward Fisher-Yates, in place (and returned for convenience)."""
        return self.partial_draw(items, len(items))

    def partial_draw(self, items: list, k: int) -> list:
        """The first k steps of the shuffle; ``items[:k]`` are then the k items drawn, in order."""
        n = len(items)
        for i in range(min(k, n - 1)):
            j = i + self.below(n - i)
            items[i], items[j] = items[j], items[i]
        return items
