"""A small project-scoped memory MCP server, correct by default and broken on request.

    python memory_server.py [--mode MODE] [--http PORT]

Tools: ``remember(project, id, text)`` and ``recall(project, query, limit)``. ``recall`` ranks
the project's notes by how many of the query's words (less a few stop words) they contain, the
most recently remembered first among equals (so a newer note beats the one it replaces), and
returns
``{"results": [{"id", "project", "text", "score"}]}``.

``--mode`` plants one defect, each of which ``proctor memory-eval`` must catch:

- ``correct``     the behaviour above;
- ``empty``       recall returns nothing;
- ``duplicates``  every result appears twice;
- ``unknown``     a record that was never remembered heads every result list;
- ``reversed``    the ranking is reversed (worst match and oldest note first);
- ``leak``        recall ignores the project and searches every project's notes.

Stdio by default; ``--http PORT`` serves streamable HTTP on 127.0.0.1:PORT/mcp instead. With
``MEMORY_SERVER_TOKEN`` set, every HTTP request must carry ``Authorization: Bearer <token>``
(a 401 otherwise): ``proctor memory-eval --header 'Authorization: Bearer ${MEMORY_SERVER_TOKEN}'``.
Notes live in memory only: one server process is one fresh store.
"""

from __future__ import annotations

import argparse
import hmac
import os
import re
from typing import Any

from mcp.server.mcpserver import MCPServer
from pydantic import BaseModel

MODES = ("correct", "empty", "duplicates", "unknown", "reversed", "leak")
_WORD = re.compile(r"[a-z0-9]+")
_STOP = frozenset(
    {"a", "an", "and", "after", "at", "every", "for", "from", "in", "is", "of", "on", "the", "to"}
)


class Hit(BaseModel):
    id: str
    project: str
    text: str
    score: int


class Recalled(BaseModel):
    results: list[Hit]


class Remembered(BaseModel):
    id: str
    project: str


def words(text: str) -> set[str]:
    return set(_WORD.findall(text.lower())) - _STOP


def build(mode: str) -> MCPServer:
    server = MCPServer("proctor-example-memory")
    notes: list[Hit] = []  # in the order remembered

    @server.tool()
    def remember(project: str, id: str, text: str) -> Remembered:
        """Store a note in a project (a note with the same id in that project is replaced)."""
        notes[:] = [n for n in notes if not (n.project == project and n.id == id)]
        notes.append(Hit(id=id, project=project, text=text, score=0))
        return Remembered(id=id, project=project)

    @server.tool()
    def recall(project: str, query: str, limit: int = 10) -> Recalled:
        """The project's notes that share words with the query, best match first."""
        wanted = words(query)
        hits: list[Hit] = []
        for age, note in enumerate(notes):
            if mode != "leak" and note.project != project:
                continue
            score = len(wanted & words(note.text))
            if score:
                hits.append(note.model_copy(update={"score": score * 10_000 + age}))
        hits.sort(key=lambda h: h.score, reverse=True)
        hits = [h.model_copy(update={"score": h.score // 10_000}) for h in hits[:limit]]
        return Recalled(results=planted(mode, hits, project))

    return server


def planted(mode: str, hits: list[Hit], project: str) -> list[Hit]:
    if mode == "empty":
        return []
    if mode == "duplicates":
        return [h for hit in hits for h in (hit, hit)]
    if mode == "unknown":
        return [Hit(id="never-remembered", project=project, text="a ghost", score=99), *hits]
    if mode == "reversed":
        return hits[::-1]
    return hits


def bearer_only(app: Any, token: str) -> Any:
    """``app`` (ASGI) answering 401 to an HTTP request without ``Authorization: Bearer token``."""
    expected = f"Bearer {token}".encode()

    async def guarded(scope: Any, receive: Any, send: Any) -> None:
        if scope["type"] == "http":
            given = dict(scope["headers"]).get(b"authorization", b"")
            if not hmac.compare_digest(given, expected):
                await send(
                    {
                        "type": "http.response.start",
                        "status": 401,
                        "headers": [(b"www-authenticate", b"Bearer"), (b"content-length", b"0")],
                    }
                )
                await send({"type": "http.response.body", "body": b""})
                return
        await app(scope, receive, send)

    return guarded


def serve_http(server: MCPServer, port: int, token: str) -> None:
    import uvicorn

    app = bearer_only(server.streamable_http_app(host="127.0.0.1"), token)
    uvicorn.run(app, host="127.0.0.1", port=port, log_level="info")


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--mode", choices=MODES, default="correct")
    parser.add_argument("--http", type=int, metavar="PORT")
    args = parser.parse_args()
    server = build(args.mode)
    token = os.environ.get("MEMORY_SERVER_TOKEN")
    if args.http is None:
        server.run()
    elif token:
        serve_http(server, args.http, token)
    else:
        server.run("streamable-http", host="127.0.0.1", port=args.http)


if __name__ == "__main__":
    main()
