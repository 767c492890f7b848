"""The sensitivity experiment: what a variant changes, and which conclusions it keeps."""

from pathlib import Path

from samsim import components
from samsim.analysis import sensitivity

ROOT = Path(__file__).resolve().parent.parent
VARIANTS = ROOT / "experiments" / "sensitivity"


def test_changes_name_the_assumed_values_a_variant_alters():
    base = components.default_data_path()
    assert sensitivity.changes(base, VARIANTS / "prices_flat.toml") == [
        "price_cards.prices: [3, 4, 5, 6, 7, 9, 8, 10, 11, 12] -> [4, 4, 5, 5, 6, 6, 7, 7, 8, 8]"]
    assert sensitivity.changes(base, VARIANTS / "tiles_more_specials.toml") == [
        "tiles.recall: 1 -> 2", "tiles.send_home: 1 -> 2", "tiles.switch: 1 -> 2"]
    fewer = sensitivity.changes(base, VARIANTS / "tourists_fewer.toml")
    assert len(fewer) == 1 and fewer[0].startswith("tourist_cards: cards 0, 1, 2")
    assert sensitivity.changes(base, base) == []


def test_every_committed_variant_is_valid_data_and_changes_only_assumed_values():
    base = components.load()
    for path in sorted(VARIANTS.glob("*.toml")):
        data = components.load(path)
        changed = {line.split(".")[0].split(":")[0] for line in
                   sensitivity.changes(components.default_data_path(), path)}
        assert changed and changed <= set(base.assumed), (path.name, changed)
        assert data.assumed == base.assumed


def test_conclusions_hold_or_move_across_data_files():
    files = [("base", None), ("flat", VARIANTS / "prices_flat.toml")]
    variants = sensitivity.run(files, ["undercut", "saver"], 4, "greedy", 2400, 600, seed=5)
    table = sensitivity.table(variants)
    assert table["variant"].tolist() == ["base", "flat"]
    assert "undercut − saver" in table.columns
    found = sensitivity.conclusions(variants)
    texts = [text for _, text in found]
    assert any(t.startswith("undercut − saver: ") for t in texts)
    assert any(t.startswith("seat ") for t in texts)
    robust = [ok for ok, _ in found]
    assert robust == sorted(robust, reverse=True)  # robust ones first
    md = sensitivity.markdown(variants, ["header line"], None)
    assert "## Conclusions" in md and "price_cards.prices" in md
