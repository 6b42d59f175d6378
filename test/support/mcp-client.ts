// An MCP client of a started kasir: the official SDK Client over Streamable HTTP to its /mcp (or `path`), optionally
// with a key.
import { Client } from '@modelcontextprotocol/sdk/client/index.js';
import { StreamableHTTPClientTransport } from '@modelcontextprotocol/sdk/client/streamableHttp.js';
import type { Tool } from '@modelcontextprotocol/sdk/types.js';

export async function mcpClient(baseUrl: string, key?: string, path = '/mcp'): Promise<Client> {
  const client = new Client({ name: 'kasir-test', version: '1.0.0' });
  const transport = new StreamableHTTPClientTransport(new URL(path, baseUrl), {
    requestInit: key ? { headers: { authorization: `Bearer ${key}` } } : undefined,
  });
  await client.connect(transport);
  return client;
}

/** Every tool, page after page. */
export async function listAllTools(client: Client): Promise<{ tools: Tool[]; pages: number }> {
  const tools: Tool[] = [];
  let cursor: string | undefined;
  let pages = 0;
  do {
    const page = await client.listTools(cursor ? { cursor } : {});
    tools.push(...page.tools);
    cursor = page.nextCursor;
    pages++;
  } while (cursor);
  return { tools, pages };
}
