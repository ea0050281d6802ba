"""Any agent that speaks the Agent Client Protocol (:mod:`.adapter`); the session itself is
driven by :mod:`proctor.drive.acp_driver`."""

from proctor.agents.acp.adapter import (
    LOG_NAME,
    AcpAgent,
    AcpSession,
    acp_mcp_server,
    command_of,
    package_version,
)

__all__ = [
    "LOG_NAME",
    "AcpAgent",
    "AcpSession",
    "acp_mcp_server",
    "command_of",
    "package_version",
]
