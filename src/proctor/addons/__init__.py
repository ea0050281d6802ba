"""Suites for add-on authors: installer checks in an empty home, an audit of installed
components, hook tests on planted inputs, memory and retrieval evaluation over MCP, and a
grounding check for advice. Each suite plants its own ground truth; no model grades a model."""
