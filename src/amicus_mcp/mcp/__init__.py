"""The MCP front: `amicus-mcp`, a stdio server whose tools are thin adapters over the engine.

Importing this package imports nothing else: the server module pulls in the MCP SDK, and
every tool handler imports the engine only when it is called, so `initialize` is answered
as soon as the SDK is loaded.
"""
