// Generated from mcp.json by scripts/embed-mcp-config.mjs: do not edit.
export const MCP_JSON = "{\n  \"servers\": {\n    \"filesystem\": {\n      \"type\": \"stdio\",\n      \"command\": \"node\",\n      \"args\": [\"node_modules/@modelcontextprotocol/server-filesystem/dist/index.js\", \"./workspace\"]\n    }\n  }\n}\n";
