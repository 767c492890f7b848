import time, sys
from samsim import engine
t = time.time(); engine.play_game(None, 4, 1); print(f"compile {time.time()-t:.1f}s")
for players in (3, 4, 5, 6):
    engine.simulate(1000, players, seed=1, threads=1)
    t = time.time(); engine.simulate(100000, players, seed=1, threads=1); dt = time.time() - t
    print(players, f"{100000/dt:,.0f} games/s")
