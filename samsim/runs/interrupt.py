"""Ctrl-C and SIGTERM: the first stops soon, with what is finished kept; the second at once.

Python runs a signal handler only between two bytecodes, so while a compiled kernel plays it
waits; the engine therefore plays in units of a fraction of a second (``samsim.engine.batches``)
and the first signal raises KeyboardInterrupt right after the unit in play, which the run folder
turns into a last, shorter chunk. A strategy stuck in an endless loop never lets the kernel
return: the kernel releases the GIL (``nogil``), so a watchdog thread, woken by the signal through
``signal.set_wakeup_fd``, ends the process when the handler has not run ``GRACE`` seconds later.
A raise that lands where Python runs a callback (a gc callback, a ``__del__``) is dropped by
Python, so the handler also sets ``samsim.engine.play.STOP``, at which the engine stops
between units all the same; Python's report of the dropped KeyboardInterrupt (a traceback,
"Exception ignored in", which Dask's gc callback made a user see now and then) is not printed.
A second signal ends the process at once. Chunk files are written whole or not at all
(``samsim.runs.results``), so ending the process never leaves a torn file; ``deferred`` holds the
first signal back while a chunk is being written, so that a finished chunk is not thrown away.
"""

from __future__ import annotations

import contextlib
import os
import signal
import socket
import sys
import threading
import time

from samsim.engine import play

#: Seconds the first signal waits for the kernel to come back before the process is ended.
GRACE = 3.0
#: Exit status of a run stopped by a signal (128 + SIGINT, as shells report Ctrl-C).
EXIT_CODE = 130

_lock = threading.Lock()
_state = {"received": 0, "handled": 0, "deferring": 0, "pending": False}


def _exit_now(why: str) -> None:
    with _lock:  # the watchdog and the handler may both get here: one line, one exit
        if sys.stderr.isatty():
            sys.stderr.write("\x1b[?25h")  # a progress bar hides the cursor
        sys.stderr.write(f"\nsamsim: {why}; what was already written is kept\n")
        sys.stderr.flush()
        os._exit(EXIT_CODE)


def _handler(signum, frame) -> None:
    _state["handled"] += 1
    if _state["handled"] >= 2:
        _exit_now("stopped at once (second interrupt)")
    if _state["deferring"]:
        _state["pending"] = True
        return
    play.STOP.set()  # if this raise lands in a callback, Python drops it: the engine stops too
    raise KeyboardInterrupt


def _watch(reader: socket.socket) -> None:
    while True:
        try:
            data = reader.recv(64)
        except OSError:
            return
        if not data:
            return
        _state["received"] += len(data)
        if _state["received"] >= 2:
            _exit_now("stopped at once (second interrupt)")
        deadline = time.monotonic() + GRACE
        while time.monotonic() < deadline and _state["handled"] < _state["received"]:
            time.sleep(0.05)
        if _state["handled"] < _state["received"]:
            _exit_now(f"stopped: the engine did not come back within {GRACE:g} s of the "
                      f"interrupt (a strategy stuck in a loop?)")


@contextlib.contextmanager
def handlers():
    """Within: SIGINT and SIGTERM stop the work as described above. Main thread only (Python's
    rule for signal handlers); elsewhere a no-op."""
    if threading.current_thread() is not threading.main_thread():
        yield
        return
    reader, writer = socket.socketpair()
    reader.setblocking(True)
    writer.setblocking(False)
    _state.update(received=0, handled=0, deferring=0, pending=False)
    play.STOP.clear()
    previous = {sig: signal.signal(sig, _handler) for sig in (signal.SIGINT, signal.SIGTERM)}
    old_fd = signal.set_wakeup_fd(writer.fileno(), warn_on_full_buffer=False)
    unraisable = sys.unraisablehook

    def quiet(report):  # our own raise, lost in a callback: STOP carries it (module docstring)
        if report.exc_type is not KeyboardInterrupt:
            unraisable(report)

    sys.unraisablehook = quiet
    threading.Thread(target=_watch, args=(reader,), name="samsim-interrupt", daemon=True).start()
    try:
        yield
    finally:
        sys.unraisablehook = unraisable
        signal.set_wakeup_fd(old_fd)
        for sig, handler in previous.items():
            signal.signal(sig, handler)
        play.STOP.clear()
        writer.close()  # ends the watchdog
        reader.close()


@contextlib.contextmanager
def deferred():
    """Within (under ``handlers``): a first signal waits until the block is done, then raises.
    For writing a chunk: interrupting it would throw away games already played."""
    _state["deferring"] += 1
    try:
        yield
    finally:
        _state["deferring"] -= 1
        if not _state["deferring"] and _state["pending"]:
            _state["pending"] = False
            raise KeyboardInterrupt
