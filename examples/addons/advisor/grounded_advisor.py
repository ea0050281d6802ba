#!/usr/bin/env python3
"""A grounded advisor: every figure it cites is copied from the signals it reads on stdin.

It formats them in several ways (thousands separators, a k suffix, dollars, a ratio as a
percentage) to show that formatting is not penalised; it computes nothing new.
"""

import json
import sys

signals = json.load(sys.stdin)
advice = []
tokens = signals.get("tokensSoFar")
if isinstance(tokens, int):
    advice.append(f"You have used {tokens:,} tokens so far (about {tokens / 1000:.1f}k).")
cost = signals.get("costUsd")
if isinstance(cost, int | float):
    advice.append(f"That has cost ${cost:.2f}.")
context = signals.get("contextUsed")
if isinstance(context, float):
    advice.append(f"The context window is {context:.0%} full.")
reads = signals.get("redundantReads", 0)
if reads >= 3:
    advice.append(
        f"You re-read files {reads} times: keep notes of what a file holds instead of opening "
        "it again."
    )
failures = signals.get("repeatedFailures", 0)
if failures >= 2:
    command = signals.get("lastFailingCommand", "the same command")
    advice.append(
        f"`{command}` failed {failures} times in a row: read the error before running it again."
    )
if not advice:
    advice.append("Nothing to report yet: read the task and make a plan.")
print(" ".join(advice))
