"""An illegal decision gets the same reason from both engines (``samsim.illegal``).

The kernel records a code and the reference engine raises the reason itself; if either drifted, a
scenario would pass on one engine with a message the other never gives.
"""

from pathlib import Path

import pytest

from samsim import illegal
from samsim.illegal import IllegalDecision
from samsim.kernel import decisions
from samsim.scenario import load_scenario, run_scenario

REJECTS = sorted((Path(__file__).parent / "scenarios").glob("reject_*.json"))


def test_every_reason_has_its_kernel_code():
    codes = {name[2:]: int(value) for name, value in vars(decisions).items()
             if name.startswith("E_")}
    assert codes == {name: illegal.code(name) for name in illegal.NAMES}


def test_every_reason_is_one_line_and_distinct():
    texts = list(illegal.REASONS.values())
    assert len(set(texts)) == len(texts)
    assert all("\n" not in t and t == t.strip() for t in texts)


def _rejection(path: Path, engine: str) -> IllegalDecision:
    with pytest.raises(IllegalDecision) as error:
        run_scenario(load_scenario(path), engine)
    return error.value


@pytest.mark.parametrize("path", REJECTS, ids=lambda p: p.stem)
def test_both_engines_give_the_same_reason(path):
    kernel, reference = (str(_rejection(path, engine)) for engine in ("kernel", "reference"))
    assert kernel == reference
    assert kernel.split(": ", 1)[1] in illegal.REASONS.values()


def test_every_reason_a_script_can_meet_has_a_reject_scenario():
    """Three reasons only a strategy can meet: a script's tourists come from the piles by
    construction, its placements are bounded when a position is read, and a room named for a tile
    that is not a suite is refused when a scenario is read."""
    met = {str(_rejection(path, "reference")).split(": ", 1)[1] for path in REJECTS}
    unmet = {name for name, text in illegal.REASONS.items() if text not in met}
    assert unmet == {"PILE", "TAKE_MANY", "ROOM_NOT_SUITE"}
