"""Helpers every phase uses: recording a broken rule, the deal a game plays."""

from samsim.kernel.jit import rule
from samsim.kernel.state import ERROR_CODE, ERROR_ROUND, ERROR_SEAT


@rule
def fail_nb(st, g, code, rnd, seat):
    """Stop game g with an error (an illegal decision (a script's or a strategy's)); always returns False."""
    st.error[g, ERROR_CODE] = code
    st.error[g, ERROR_ROUND] = rnd
    st.error[g, ERROR_SEAT] = seat
    return False


@rule
def deal_of_nb(ctl, g):
    """The deal of game g: its game id, or with duplicate deals (``Control.per_deal`` games in a
    row share one deal, seated differently) its group's number. Every chance event draws from
    streams keyed on it, so the games of a group differ only by who sits where."""
    return (ctl.game0 + g) // ctl.per_deal


@rule
def price_tie_rank_nb(comp, n, t, p):
    """Seat p's place among equal room prices: counter-clockwise from the card (seat t-1 first) as
    printed, or clockwise like equal bids (seat t first) where the data's [seats] price_ties says
    so for n players."""
    if comp.price_clockwise[n]:
        return (p - t) % n
    return (t - 1 - p) % n
