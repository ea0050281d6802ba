"""The tiny MCP server, started three seconds late (or as many as its argument says): an add-on
whose server is slow to start."""

import runpy
import sys
import time
from pathlib import Path

time.sleep(float(sys.argv[1]) if len(sys.argv) > 1 else 3)
runpy.run_path(str(Path(__file__).with_name("tiny_mcp.py")), run_name="__main__")
