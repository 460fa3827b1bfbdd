/** Version of @guardtrace/mcp, written on spans and told to MCP clients (kept equal to package.json by test/cli.test.ts). */
export const VERSION = '0.1.0';
