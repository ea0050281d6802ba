"""proctor: evaluate coding agents and the add-ons built for them.

The public surface is deliberately small; everything else lives in the stage packages
(`discover`, `plan`, `execute`, `evaluators`, `stats`, `report`, ...).
"""

from proctor._version import __version__

__all__ = ["__version__"]
