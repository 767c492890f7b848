"""Run files: what games leave on disk and how it is read back.

    schema      the columns of every table, their dtypes and meaning
    simulate    games played into a results table in memory
    results     runs written chunk by chunk (resumable, locked, checked whole on reading)
    trace       every event of some games, as a table, and replays of it
    narrate     one game told move by move (``samsim play``)
    experiment  experiment files (TOML) read and checked
    interrupt   Ctrl-C: finish the chunk being written, then stop
"""
