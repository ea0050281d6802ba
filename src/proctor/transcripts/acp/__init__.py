"""Agent Client Protocol session logs (the JSON-RPC messages proctor exchanged with an ACP
agent) → normalised trajectory."""

from proctor.transcripts.acp.calls import OpenCall
from proctor.transcripts.acp.parser import FORMAT, parse_acp_log, permission_question

__all__ = ["FORMAT", "OpenCall", "parse_acp_log", "permission_question"]
