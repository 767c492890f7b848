"""Statistics as plain functions of arrays and tables: nothing here knows about games or files,
so every layer may use them (and a reader may check them against the literature alone).

    tally       win credit counted chunk by chunk (Tally), Wilson intervals, clustered rates
    inference   tests and intervals: paired and sequential comparisons, chunk consistency
    ratings     Plackett-Luce strengths of strategies that met in multi-player games
"""
