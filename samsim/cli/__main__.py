"""``python -m samsim.cli``: the ``samsim`` command without its installed script."""

from samsim.cli import app

app()
