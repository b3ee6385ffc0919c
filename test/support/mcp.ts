/**
 * MCP test helpers: the official SDK client over its Streamable HTTP transport, and raw JSON-RPC
 * posts for the transport rules the client never breaks on purpose. Runs on Node and in workerd
 * (pass `fetch` to route requests through the Worker entry).
 */
import { Client } from "@modelcontextprotocol/sdk/client/index.js";
import { StreamableHTTPClientTransport } from "@modelcontextprotocol/sdk/client/streamableHttp.js";
import type { CallToolResult } from "@modelcontextprotocol/sdk/types.js";
import { CfWorkerJsonSchemaValidator } from "@modelcontextprotocol/sdk/validation/cfworker";

/** Protocol version the raw requests announce. */
export const MCP_VERSION = "2025-11-25";

/** Connects an SDK client to `<base>/mcp` with a bearer token. */
export async function connectMcp(
  base: string,
  token: string,
  opts: { fetch?: typeof fetch; name?: string } = {},
): Promise<Client> {
  const client = new Client(
    { name: opts.name ?? "skillgate-test", version: "1.0.0" },
    { jsonSchemaValidator: new CfWorkerJsonSchemaValidator() },
  );
  const transport = new StreamableHTTPClientTransport(new URL(`${base}/mcp`), {
    requestInit: { headers: { authorization: `Bearer ${token}` } },
    ...(opts.fetch ? { fetch: opts.fetch } : {}),
  });
  await client.connect(transport);
  return client;
}

/** Calls a tool and returns its result with `structuredContent` typed loosely for assertions. */
export async function callTool(
  client: Client,
  name: string,
  args: Record<string, unknown> = {},
): Promise<CallToolResult & { structuredContent?: any }> {
  return (await client.callTool({ name, arguments: args })) as CallToolResult & {
    structuredContent?: any;
  };
}

/** Every tool of the client's `tools/list`, following cursors. */
export async function listAllTools(client: Client) {
  const tools = [];
  let cursor: string | undefined;
  do {
    const page = await client.listTools(cursor === undefined ? {} : { cursor });
    tools.push(...page.tools);
    cursor = page.nextCursor;
  } while (cursor !== undefined);
  return tools;
}

/** Headers of a raw MCP POST. */
export function mcpHeaders(token: string | null, extra: Record<string, string> = {}) {
  const headers: Record<string, string> = {
    "content-type": "application/json",
    accept: "application/json, text/event-stream",
    ...extra,
  };
  if (token) headers.authorization = `Bearer ${token}`;
  return headers;
}

/** An `initialize` request body. */
export function initializeMessage(id: number | string = 1) {
  return {
    jsonrpc: "2.0",
    id,
    method: "initialize",
    params: {
      protocolVersion: MCP_VERSION,
      capabilities: {},
      clientInfo: { name: "raw-test", version: "1.0.0" },
    },
  };
}
