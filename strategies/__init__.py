"""The built-in strategy library: one module per strategy (contract: ``samsim.engine.registry``)."""
