"""The bottom layer: utilities that know nothing of the rest of proctor.

Nothing here imports another proctor package, and every module but one uses the standard library
alone (``processes`` uses psutil for process trees). Modules are imported one by one, never
through this package, so that each stays as cheap to import as what it needs.

``processes``     process groups and trees, marked processes, commands with a deadline
``masking``       secrets held in memory and masked in everything written
``terminal_masking`` the same in a terminal's byte stream (escapes between a key's characters)
``globbing``      workspace-relative globs that never leave the workspace
``native_paths``  where each agent CLI keeps its sessions on disk, and how it names them
``jsonl``         reading JSON-lines files that grow or hold half-written lines
"""
