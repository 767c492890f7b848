"""The kernel and the reference engine play the identical game from the same seed.

Identical means the whole event log (every chance event, decision and payment) and the final state,
over 2,000 seeded games across all player counts and several random-policy settings. And the
kernel run as plain Python plays the games it plays compiled.
"""

import pytest

from samsim import components, engine, reference

DATA = components.load()
SETTINGS = [None, {"take_pct": 100, "recall_pct": 100, "switch_pct": 100, "send_home_pct": 100},
            {"take_pct": 20, "recall_pct": 0, "switch_pct": 60, "send_home_pct": 50}]


@pytest.mark.parametrize("players", [3, 4, 5, 6])
@pytest.mark.parametrize("setting", range(len(SETTINGS)))
def test_same_game_from_same_seed(players, setting):
    games = 500 if setting == 0 else 100  # 2,000 games with the defaults, 800 more with the others
    params = SETTINGS[setting]
    for game in range(games):
        fast = engine.play_game(DATA, players, seed=20261130, game=game, params=params, log=True)
        slow = reference.play_game(DATA, players, seed=20261130, game=game, params=params, log=True)
        if fast.events != slow.events:
            first = next(i for i, (a, b) in enumerate(zip(fast.events, slow.events)) if a != b)
            pytest.fail(f"game {game}, {players} players: event {first} differs: kernel "
                        f"{fast.events[first]} vs reference {slow.events[first]}")
        assert fast.snapshot == slow.snapshot, f"game {game}, {players} players"


_PLAIN = """
from samsim.engine import play
from test_cuda import LIBRARY, rotation

result = play.run_batch(2 * len(LIBRARY), 4, 11, strategies=rotation(4, LIBRARY), log=True,
                        record=True)
"""


def test_the_kernel_as_plain_python_plays_its_compiled_games(tmp_path):
    """NUMBA_DISABLE_JIT=1 runs the kernel's rules and the strategies as plain Python (to debug
    them, and how CI plays the whole library on the GPU path: tests/test_cuda.py): the games
    compiled code plays, every field, event and record, each library strategy in every seat."""
    from test_cuda import LIBRARY, _differ, plain_python, rotation

    plain = plain_python(_PLAIN, tmp_path)
    compiled = engine.run_batch(2 * len(LIBRARY), 4, 11, 0, DATA, strategies=rotation(4, LIBRARY),
                                log=True, record=True)
    assert _differ(compiled, plain) == [] and compiled.n_events.min() > 0
