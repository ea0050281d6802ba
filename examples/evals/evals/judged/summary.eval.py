"""A judge grades the reply (soft by default; gated here with a bar). The judge is the
scripted model in this example, so it costs nothing; a real provider works the same way."""

from proctor.evals import define_eval

PLAN = {
    "turns": [
        {"read": "NOTES.md"},
        {"say": "The service stores notes in SQLite and serves them over HTTP."},
    ],
    "roles": {
        "judge": [{"json": {"score": 90, "confidenceLevel": 80, "rationale": "Same facts as expected."}}]
    },
}


async def test(t):
    await t.send(
        "Summarise NOTES.md in one sentence.",
        workspace_files={"NOTES.md": "# Notes service\nNotes live in SQLite; an HTTP API serves them.\n"},
    )
    grade = await t.judge.factuality("Notes are kept in SQLite and served over HTTP.")
    grade.gate(0.7)


eval = define_eval(description="a one-sentence summary a judge checks", tags=["judge"], plan=PLAN, test=test)
