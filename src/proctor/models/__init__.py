"""Typed models of everything proctor reads from users or writes to disk.

``base`` (record base classes, the schema version), ``config`` (what users write), ``case`` and
``plan`` (what discovery and planning produce), ``trial``, ``suite``, ``run``, ``ab``,
``process``, ``trajectory`` and ``logs`` (the results layout's records), ``pricing``, and ``io``
(atomic writes, version-checked reads that upgrade older records).
"""
