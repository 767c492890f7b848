"""The reference engine: Hotel Samoa in plain, readable Python.

It exists to be obviously right, not fast. The compiled kernel (``samsim.kernel``) is checked against
it game by game: both follow docs/protocol.md, both read only the component data, and from the same
seed and decisions they must write the same event log and end in the same snapshot.

    play_game(data, players, seed, game=0, params=None, log=False) -> GameRecord
    play_position(data, position, log=True) -> GameRecord
"""

from samsim.illegal import IllegalDecision

from .game import GameRecord, play_game
from .position import play_position

__all__ = ["play_game", "play_position", "GameRecord", "IllegalDecision"]
