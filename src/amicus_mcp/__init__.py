"""amicus-mcp: convene a council of other LLMs to review an artifact."""

# The one place the version is written: pyproject.toml reads it (hatch `[tool.hatch.version]`),
# and the bundle manifest, the plugin, its marketplace entry and server.json are checked against
# it (tests/test_release.py).
__version__ = "0.1.0"
# The project's home; pyproject's [project.urls], the bundle manifest and server.json name the same.
HOMEPAGE = "https://github.com/amicus-mcp/amicus-mcp"
