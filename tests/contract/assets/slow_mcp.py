"""The tiny MCP server, started three seconds late: an add-on whose server is slow to start."""

import runpy
import time
from pathlib import Path

time.sleep(3)
runpy.run_path(str(Path(__file__).with_name("tiny_mcp.py")), run_name="__main__")
