"""What runs mean: comparisons of strategies, balance across seats, reports.

    compare, compare_report     is strategy A better than B, by how much
    balance, balance_report     is a seat favoured, at which player count
    sensitivity                 how balance moves when a component value changes
    report, plots               tables in the terminal, Markdown and figures on disk

The statistics they use are plain functions of arrays, in ``samsim.stats``.
"""
