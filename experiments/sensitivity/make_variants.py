"""Write the sensitivity experiment's variant data files: the packaged data file with one group
of *assumed* values changed (docs/rules.md, section 2). Run from the repository
root; the files it writes are committed, so the experiment does not depend on running it.

    python experiments/sensitivity/make_variants.py
"""

import re
from pathlib import Path

HERE = Path(__file__).resolve().parent
BASE = (HERE.parent.parent / "samsim" / "data" / "hotel_samoa.toml").read_text(encoding="utf-8")


def replace(text: str, old: str, new: str) -> str:
    assert text.count(old) == 1, old
    return text.replace(old, new)


def groups(text: str, change) -> str:
    """Apply ``change(sizes) -> sizes`` to the groups of every tourist card and player count."""
    head, cards = text.split("[[tourist_cards]]", 1)

    def one(m):
        sizes = change([int(x) for x in m.group(2).split(",")])
        return f"{m.group(1)} = [{', '.join(map(str, sizes))}]"

    return head + re.sub(r"^(\d) = \[([\d, ]+)\]$", one, "[[tourist_cards]]" + cards, flags=re.M)


def one_more(sizes: list[int]) -> list[int]:
    """One more tourist in the largest group, unless a double round would then ask for more
    chips than a nation has (18)."""
    if 2 * (sum(sizes) + 1) > 18:
        return sizes
    return [sizes[0] + 1, *sizes[1:]]


PRICES = "prices = [3, 4, 5, 6, 7, 9, 8, 10, 11, 12]"
VARIANTS = {
    "prices_flat": lambda t: replace(t, PRICES, "prices = [4, 4, 5, 5, 6, 6, 7, 7, 8, 8]"),
    "prices_steep": lambda t: replace(t, PRICES, "prices = [2, 3, 4, 5, 6, 8, 9, 11, 13, 15]"),
    "tiles_more_pools": lambda t: replace(replace(replace(
        t, "extra_room = 6", "extra_room = 5"), "suite = 5", "suite = 4"), "pool = 5", "pool = 7"),
    "tiles_more_specials": lambda t: replace(replace(replace(
        t, "switch = 1", "switch = 2"), "send_home = 1", "send_home = 2"), "recall = 1", "recall = 2"),
    "chips_richer": lambda t: replace(replace(replace(
        t, "plain = 8", "plain = 6"), "rich = 2", "rich = 3"), "celebrity = 2", "celebrity = 3"),
    "chips_more_lovers": lambda t: replace(replace(t, "plain = 8", "plain = 6"), "lover = 3",
                                           "lover = 5"),
    "tourists_fewer": lambda t: groups(t, lambda sizes: [max(1, n - 1) for n in sizes]),
    "tourists_more": lambda t: groups(t, one_more),
}

if __name__ == "__main__":
    for name, change in VARIANTS.items():
        text = change(BASE).replace(
            "# Hotel Samoa component data: the ONLY place component values live.",
            f"# Sensitivity variant {name!r} of the packaged data file "
            f"(experiments/sensitivity/make_variants.py).", 1)
        (HERE / f"{name}.toml").write_text(text, encoding="utf-8")
        print(HERE / f"{name}.toml")
