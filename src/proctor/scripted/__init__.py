"""proctor's scripted agent (:mod:`.agent`, a program run in a terminal), its plans
(:mod:`.plan`) and the turns they play (:mod:`.turns`), and the scripted model server real
CLIs talk to (:mod:`.server`)."""

AGENT_VERSION = "0.1.0"
"""The scripted agent's version, as its transcript and ``proctor agents`` report it."""
