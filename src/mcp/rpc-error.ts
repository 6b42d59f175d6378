/**
 * A JSON-RPC error a handler throws: the SDK sends its code, message and data as they are. (The SDK's own McpError
 * prefixes its message with "MCP error <code>: ", and the client's McpError prefixes it again on arrival, so callers
 * read the prefix twice.)
 */
export class RpcError extends Error {
  constructor(
    readonly code: number,
    message: string,
    readonly data?: unknown,
  ) {
    super(message);
    this.name = 'RpcError';
  }
}
