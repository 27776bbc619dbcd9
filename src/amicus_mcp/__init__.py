"""amicus-mcp: convene a council of other LLMs to review an artifact."""

__version__ = "0.1.0"
