import traceback, anyio, sys
sys.path.insert(0, "/tmp/rv95/src")
from proctor.addons.memory.client import open_session, ServerTarget
from pathlib import Path
async def main(url):
    async with open_session(ServerTarget(url=url), env={}, cwd=Path("."), log=Path("/tmp/rv95-w/l.log"), timeout=5) as s:
        pass
for url in ["http://127.0.0.1:47222/mcp", "http://127.0.0.1:9/mcp"]:
    try: anyio.run(main, url)
    except BaseException as e:
        def leaves(e):
            if isinstance(e, BaseExceptionGroup):
                for i in e.exceptions: yield from leaves(i)
            else: yield e
        for l in leaves(e): print(url, type(l).__mro__[:3], repr(l)[:300], getattr(l, "error", None))
