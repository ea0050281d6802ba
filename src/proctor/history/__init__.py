"""Replay of the user's own recorded agent sessions as measurements (``proctor history``):
where each CLI keeps its sessions (:mod:`.sources`), replay in parallel (:mod:`.replay`), the
summary per project, day, week, month or agent (:mod:`.summary`), and before/after a marked change
(:mod:`.changes`). Nothing here writes into a history folder."""
