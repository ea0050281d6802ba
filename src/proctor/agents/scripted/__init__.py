"""The built-in scripted agent's adapter (the program itself is :mod:`proctor.scripted.agent`)."""

from proctor.agents.scripted.adapter import ScriptedAgent, ScriptedSession

__all__ = ["ScriptedAgent", "ScriptedSession"]
