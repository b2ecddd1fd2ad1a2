"""The MCP endpoint: a tenant's memory as Model Context Protocol tools, served at /mcp."""
