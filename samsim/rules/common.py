"""Helpers every phase uses: recording a broken rule."""

from samsim.jit import rule

from samsim.state import ERROR_CODE, ERROR_ROUND, ERROR_SEAT


@rule
def fail_nb(st, g, code, rnd, seat):
    """Stop game g with an error (an illegal scripted decision); always returns False."""
    st.error[g, ERROR_CODE] = code
    st.error[g, ERROR_ROUND] = rnd
    st.error[g, ERROR_SEAT] = seat
    return False
