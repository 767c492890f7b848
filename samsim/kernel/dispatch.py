"""Who decides: scripted decisions where a scenario gives them, else the seat's strategy.

Each ``decide_*_nb`` clears the fields of one decision stage in ``state.decision[g]`` and has them
filled; the rules then apply and check them. A seat whose script row for the round has a card
(CARD >= 0) follows the script for the whole round; otherwise its strategy decides, through the
entry point for the stage (``Control.entries``, called by address: ``samsim.kernel.abi``), seeing only
the seat's ``View`` and drawing from the seat's own stream.
"""

import numpy as np

from samsim.kernel.abi import call_nb
from samsim.kernel.contract import STAGES, seating_nb
from samsim.kernel.decisions import (
    BUILD,
    CARD,
    DECISION_LEN,
    GROUP,
    HOLIDAY,
    N_TAKE,
    SEND_HOME,
    SWITCH,
)
from samsim.kernel.jit import rule

#: Column of each decision in ``Control.entries`` (np.int64: see samsim.kernel.jit on literal ints).
CARD_AT, SWITCH_AT, BUILD_AT, SEND_HOME_AT, TAKE_AT, HOLIDAY_AT = (np.int64(k) for k in range(len(STAGES)))


@rule
def scripted_nb(ctl, g, r, p):
    return ctl.script.shape[0] > 0 and ctl.script[g, r, p, CARD] >= 0


@rule
def _follow_script_nb(st, ctl, g, r, p, first, end):
    """If the seat is scripted this round, copy the script's fields first..end-1 (one decision
    stage) into the decision record and say so."""
    if not scripted_nb(ctl, g, r, p):
        return False
    for k in range(first, end):
        st.decision[g, k] = ctl.script[g, r, p, k]
    return True


@rule
def _clear_nb(st, g, first, end):
    for k in range(first, end):
        st.decision[g, k] = -1


@rule
def _strategy_nb(comp, st, ctl, g, p, stage):
    """The seat's strategy makes the stage's decision (through its entry point: samsim.kernel.abi)."""
    call_nb(ctl.entries[ctl.seat_strategy[seating_nb(ctl, g), p], stage], ctl.batch, g, p)


@rule
def decide_card_nb(comp, st, ctl, g, p, r):
    """Price card, with RECALL first (it is used at the moment the card is chosen)."""
    _clear_nb(st, g, CARD, SWITCH)
    if not _follow_script_nb(st, ctl, g, r, p, CARD, SWITCH):
        _strategy_nb(comp, st, ctl, g, p, CARD_AT)


@rule
def decide_switch_nb(comp, st, ctl, g, p, r):
    _clear_nb(st, g, SWITCH, BUILD)
    if not _follow_script_nb(st, ctl, g, r, p, SWITCH, BUILD):
        _strategy_nb(comp, st, ctl, g, p, SWITCH_AT)


@rule
def decide_build_nb(comp, st, ctl, g, p, r):
    """Called when a tile is offered and affordable: which kind (and the suite's room), or pass."""
    _clear_nb(st, g, BUILD, SEND_HOME)
    if not _follow_script_nb(st, ctl, g, r, p, BUILD, SEND_HOME):
        _strategy_nb(comp, st, ctl, g, p, BUILD_AT)


@rule
def decide_send_home_nb(comp, st, ctl, g, p, r):
    """At the start of the seat's tourist turn: rooms to empty with the SEND_HOME tile, if any."""
    _clear_nb(st, g, SEND_HOME, GROUP)
    if not _follow_script_nb(st, ctl, g, r, p, SEND_HOME, GROUP):
        _strategy_nb(comp, st, ctl, g, p, SEND_HOME_AT)


@rule
def decide_take_nb(comp, st, ctl, g, p, r):
    """One group and which of its tourists go to which rooms (placed in the order listed)."""
    st.decision[g, GROUP] = -1
    st.decision[g, N_TAKE] = 0
    if not _follow_script_nb(st, ctl, g, r, p, GROUP, HOLIDAY):
        _strategy_nb(comp, st, ctl, g, p, TAKE_AT)


@rule
def decide_holiday_nb(comp, st, ctl, g, p, r):
    """Staff holiday: which tourists (rooms) to send home."""
    _clear_nb(st, g, HOLIDAY, DECISION_LEN)
    if not _follow_script_nb(st, ctl, g, r, p, HOLIDAY, DECISION_LEN):
        _strategy_nb(comp, st, ctl, g, p, HOLIDAY_AT)
