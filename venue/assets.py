"""The pages' static files (``venue/static/``, the package's data): the table's page (``table.html``,
``table.js``) and the hub's scoreboard (``hub.html``, ``hub.js``) serve them at ``/static``, with what
both use (``common.js``, ``cards.js``, ``style.css``)."""

from __future__ import annotations

from importlib import resources
from pathlib import Path

STATIC = Path(str(resources.files("venue") / "static"))
