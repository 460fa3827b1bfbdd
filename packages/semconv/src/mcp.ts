/**
 * `@guardtrace/semconv/mcp`: the attribute keys of OpenTelemetry's Model Context Protocol
 * conventions (gen-ai/mcp, semconv 1.37+, status Development) that the MCP guard proxy
 * (`@guardtrace/mcp`) writes beside the `gen_ai.*` and `guardtrace.*` keys. A subpath of its
 * own: the main entry's names are re-exported one by one by the SDK, and these belong to the
 * proxy. No Node imports.
 */

/** JSON-RPC method of an MCP request or notification. @example 'tools/call' */
export const ATTR_MCP_METHOD_NAME = 'mcp.method.name' as const;
/** MCP session id (the Streamable HTTP `Mcp-Session-Id`); unset on stdio, which has none. @example '191c4850af6c49e08843a3f6c80e5046' */
export const ATTR_MCP_SESSION_ID = 'mcp.session.id' as const;
/** MCP protocol version negotiated at `initialize`. @example '2025-06-18' */
export const ATTR_MCP_PROTOCOL_VERSION = 'mcp.protocol.version' as const;
/** JSON-RPC request id, as a string. @example '42' */
export const ATTR_JSONRPC_REQUEST_ID = 'jsonrpc.request.id' as const;
/** JSON-RPC error code of a request that failed with a JSON-RPC error, as a string. @example '-32602' */
export const ATTR_RPC_RESPONSE_STATUS_CODE = 'rpc.response.status_code' as const;
/** Transport between the MCP client and the proxy: `pipe` (stdio) or `tcp` (Streamable HTTP). @example 'pipe' */
export const ATTR_NETWORK_TRANSPORT = 'network.transport' as const;

/** `network.transport` values the proxy writes. */
export const NETWORK_TRANSPORTS = ['pipe', 'tcp'] as const;
export type NetworkTransport = (typeof NETWORK_TRANSPORTS)[number];
