"""The end: score = money + value of unused special tiles; free rooms break ties; a draw shares the
win (k tied winners are credited 1/k each)."""

from samsim.kernel.bits import popcount_nb
from samsim.kernel.events import FINAL, log_nb
from samsim.kernel.jit import rule
from samsim.kernel.rules.hotel import free_rooms_nb


@rule
def final_scores_nb(comp, st, g):
    n = st.money.shape[1]
    for p in range(n):
        unused = st.specials[g, p, 0] + st.specials[g, p, 1] + st.specials[g, p, 2]
        st.score[g, p] = st.money[g, p] + comp.special_tile_value * unused
        st.free_rooms[g, p] = popcount_nb(free_rooms_nb(st, g, p))
    winners = 0
    for p in range(n):
        better = 0
        for q in range(n):
            if st.score[g, q] > st.score[g, p] or (
                    st.score[g, q] == st.score[g, p] and st.free_rooms[g, q] > st.free_rooms[g, p]):
                better += 1
        st.rank[g, p] = better + 1
        if better == 0:
            winners += 1
    for p in range(n):
        st.win_credit[g, p] = 1.0 / winners if st.rank[g, p] == 1 else 0.0
        log_nb(st.events, st.n_events, g, comp.rounds, FINAL, p, st.money[g, p], st.score[g, p],
               st.free_rooms[g, p], st.rank[g, p])
