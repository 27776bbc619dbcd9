"""`python -m amicus_mcp.mcp` runs the stdio server (the same as the `amicus-mcp` script)."""

from .server import main

main()
