"""Agent adapters: one subpackage per agent (independent of each other), and what they share.

``protocol``      the terminal, questions, agent state, launch context and launch (no drive/)
``base``          the adapter base class (every optional hook declared) and the registry
``spec``          one spec per adapter, from which every table of agent ids is derived
``terminal``      the terminal toolkit every terminal UI driver uses
``cli_base``      finding, versioning and checking the npm-installed CLIs
``provisioning``  plugins, skills, MCP servers and hooks in a scratch home
``install``       installing the pinned CLIs from the npm registry
"""
