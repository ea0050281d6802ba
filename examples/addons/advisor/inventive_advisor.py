#!/usr/bin/env python3
"""A deliberately inventive advisor (the control that `proctor grounding` must catch).

It sounds helpful, but it cites figures it was never given: an estimate it computed
(redundant reads x 300 tokens, e.g. "you wasted 4,200 tokens"), a made-up benchmark, and a
figure remembered from another checkpoint (14 redundant reads).
"""

import json
import sys

signals = json.load(sys.stdin)
reads = signals.get("redundantReads", 0)
advice = []
if isinstance(reads, int) and reads >= 3:
    advice.append(f"You wasted {reads * 300:,} tokens on redundant reads.")
else:
    advice.append("Last time you re-read files 14 times; don't do that again.")
advice.append("A typical session of this size finishes within 120,000 tokens.")
print(" ".join(advice))
