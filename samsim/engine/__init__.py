"""Playing games from Python: strategies found and seated, batches sized, positions set up.

Nothing here is compiled; it drives ``samsim.kernel``. The names below are this layer's API.

    registry   strategies found, checked, named and parametrised
    lineup     who sits where: one seating, or several
    designs    balanced designs: a pool's seatings, a comparison's groups
    play       batches of games (run_batch, batches, play_game), their arguments checked
    cluster    the same batches played on a Dask cluster (Cluster; batches plays on the active one)
    position   a scripted position played (what scenarios are made of)
    populations  ways of filling the seats (mirrors, pools), for balance across them
    bench      speed of both engines, measured
"""

from samsim.engine.cluster import Cluster, ClusterError, batches, warm_up
from samsim.engine.play import (DEFAULT_CHUNK, MAX_GAMES, UNIT_SECONDS, GameRecord, checked,
                                compiled, play_game, run_batch, snapshot)
from samsim.engine.position import play_position
from samsim.illegal import IllegalDecision

__all__ = ["DEFAULT_CHUNK", "MAX_GAMES", "UNIT_SECONDS", "Cluster", "ClusterError", "GameRecord",
           "IllegalDecision", "batches", "checked", "warm_up", "compiled", "play_game", "play_position", "run_batch", "snapshot"]
