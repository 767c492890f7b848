"""samsim: a high-throughput Monte Carlo simulator of the board game Hotel Samoa."""

__version__ = "0.1.0"
