"""`ragstream mcp`: the Model Context Protocol server over the controller the CLI and the
workbench call. `schemas` declares what tools take and give, `paging` cuts results to a
client's token budget behind a "more" cursor, `service` runs each tool through the controller
under the server's fixed filters, `server` registers tools and resources with the MCP SDK and
runs a transport (stdio, streamable HTTP)."""
