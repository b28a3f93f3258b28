"""HTTP JSON API and web board (``tablebase serve``); needs ``pip install 'tablebase[serve]'``."""

from __future__ import annotations

from tablebase.serve.app import create_app
from tablebase.serve.launch import from_environment, run

__all__ = ["create_app", "from_environment", "run"]
