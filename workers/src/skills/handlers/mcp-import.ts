/**
 * MCP tools imported as skills (docs/custom-skills.md#mcp-servers): the official
 * `@modelcontextprotocol/sdk` client over Streamable HTTP lists a remote server's tools and calls
 * them. Each tool becomes a skill `<server>__<tool>` whose handler spec names the server and the
 * tool; a call returns the tool's `structuredContent` when present and its content is text only,
 * else `{ content, structuredContent? }` with the content blocks as the server sent them (images,
 * audio, resources), which each wire format carries in its own tool-result shape
 * (formats/tool-content.ts). A session the server opened for a connection is ended with `DELETE`
 * when the connection closes (MCP 2025-11-25, "Transports" → "Session Management"), so calls never
 * leave sessions behind on a stateful server.
 */
import { Client } from "@modelcontextprotocol/sdk/client/index.js";
import { StreamableHTTPClientTransport } from "@modelcontextprotocol/sdk/client/streamableHttp.js";
import { ExecutionFailure } from "../../errors.js";
import type { HandlerContext, JsonSchema, SkillHandler } from "../types.js";

/** Name under which the executor runs every imported MCP tool. */
export const MCP_HANDLER_NAME = "mcp-tool";

/** Separator between the server name and the tool name in a skill name. */
export const MCP_NAME_SEPARATOR = "__";

/** Longest wait for a session's `DELETE` when a connection closes, in ms. */
export const SESSION_CLOSE_TIMEOUT_MS = 5_000;

/** Server names: 1–32 of `[A-Za-z0-9_-]`. */
export const MCP_SERVER_NAME_PATTERN = /^[A-Za-z0-9_-]{1,32}$/;

/** How to reach one MCP server. */
export interface McpConnection {
  url: string;
  /** Headers sent on every request (e.g. `authorization`). */
  headers: Record<string, string>;
  /**
   * fetch for this server, when it must differ from the client's: pinned to the addresses the
   * outbound guard approved (docs/outbound.md#pinned-connections). Default: the client's fetch.
   */
  fetch?: typeof fetch;
}

/** A tool as the server lists it. */
export interface RemoteTool {
  name: string;
  description: string;
  inputSchema: JsonSchema;
}

/** Options of the MCP client functions. */
export interface McpClientOptions {
  /** fetch used for the Streamable HTTP transport. */
  fetch: typeof fetch;
  signal?: AbortSignal;
  /** Request timeout in ms (default 30 000). */
  timeoutMs?: number;
}

/**
 * The skill name of `tool` on server `server`: `<server>__<tool>`, with characters outside
 * `[A-Za-z0-9_-]` replaced by `_`, at most 64 characters.
 */
export function toolSkillName(server: string, tool: string): string {
  return `${server}${MCP_NAME_SEPARATOR}${tool.replace(/[^A-Za-z0-9_-]/g, "_")}`.slice(0, 64);
}

async function withClient<T>(
  conn: McpConnection,
  opts: McpClientOptions,
  fn: (client: Client) => Promise<T>,
): Promise<T> {
  const transport = new StreamableHTTPClientTransport(new URL(conn.url), {
    requestInit: { headers: conn.headers, redirect: "manual" },
    fetch: conn.fetch ?? opts.fetch,
  });
  const client = new Client({ name: "skillgate", version: "1.0.0" });
  try {
    await client.connect(transport, { signal: opts.signal, timeout: opts.timeoutMs });
    return await fn(client);
  } finally {
    // A stateful server gave this connection a session: end it (a 405 means the server keeps
    // none; the SDK treats that as done). Bounded, so a server that never answers cannot hold
    // the call: the session then simply expires on the server's side.
    if (transport.sessionId !== undefined) {
      let timer: ReturnType<typeof setTimeout> | undefined;
      await Promise.race([
        transport.terminateSession().catch(() => {}),
        new Promise((resolve) => {
          timer = setTimeout(resolve, SESSION_CLOSE_TIMEOUT_MS);
        }),
      ]);
      clearTimeout(timer);
    }
    await client.close().catch(() => {});
  }
}

/** Bounds of one listing of a server's tools (docs/limits.md). */
export interface McpListBounds {
  /** Largest answer of one `tools/list` page, bytes as read (`SKILLS_MCP_MAX_LIST_BYTES`). */
  maxPageBytes: number;
  /** Most tools one server may list (`SKILLS_MCP_MAX_TOOLS`). */
  maxTools: number;
}

/** Most `tools/list` pages followed in one listing; a server paging past it is refused. */
export const MCP_MAX_LIST_PAGES = 100;

/** Why a listing was refused by its bounds ({@link listRemoteTools}). */
export class McpListTooLarge extends Error {}

/**
 * Lists every tool of a server (following pagination), within `bounds`: each page's answer is
 * read at most `maxPageBytes` bytes (the body is cancelled past it), at most
 * {@link MCP_MAX_LIST_PAGES} pages are followed and at most `maxTools` tools are kept.
 * @throws McpListTooLarge when the server goes past a bound; the SDK's errors when it cannot be
 *   reached or answers badly.
 */
export async function listRemoteTools(
  conn: McpConnection,
  opts: McpClientOptions,
  bounds: McpListBounds,
): Promise<RemoteTool[]> {
  let over = false;
  const stop = new AbortController();
  const signal = opts.signal ? AbortSignal.any([opts.signal, stop.signal]) : stop.signal;
  const capped = cappedFetch(conn.fetch ?? opts.fetch, bounds.maxPageBytes, () => {
    over = true;
    stop.abort();
  });
  try {
    return await withClient(
      { ...conn, fetch: capped },
      { ...opts, fetch: capped, signal },
      async (client) => {
        const tools: RemoteTool[] = [];
        let cursor: string | undefined;
        let pages = 0;
        do {
          if (++pages > MCP_MAX_LIST_PAGES) {
            throw new McpListTooLarge(
              `the server listed more than ${MCP_MAX_LIST_PAGES} pages of tools`,
            );
          }
          const page = await client.listTools(cursor ? { cursor } : undefined, {
            signal,
            timeout: opts.timeoutMs,
          });
          if (tools.length + page.tools.length > bounds.maxTools) {
            throw new McpListTooLarge(
              `the server lists more than ${bounds.maxTools} tools (SKILLS_MCP_MAX_TOOLS)`,
            );
          }
          for (const t of page.tools) {
            tools.push({
              name: t.name,
              description: t.description ?? t.title ?? "",
              inputSchema: t.inputSchema as JsonSchema,
            });
          }
          cursor = page.nextCursor;
        } while (cursor);
        return tools;
      },
    );
  } catch (err) {
    if (over) {
      throw new McpListTooLarge(
        `an answer of the server was longer than ${bounds.maxPageBytes} bytes (SKILLS_MCP_MAX_LIST_BYTES)`,
      );
    }
    throw err;
  }
}

/** Resolves how to reach the server of an imported tool; throws when it is gone or refused. */
export type McpConnectionResolver = (
  serverId: string,
  signal: AbortSignal,
) => Promise<McpConnection>;

function specOf(ctx: HandlerContext): { serverId: string; tool: string } {
  const spec = ctx.skill.handler;
  if (spec?.type !== "mcp") {
    throw new ExecutionFailure(`Skill ${ctx.skill.name} is not an imported MCP tool`, {
      code: "handler_misconfigured",
    });
  }
  return spec;
}

/** What {@link cappedFetch} reports when an answer went past its cap. */
interface CapReport {
  /** The first `maxBytes` bytes of the answer, the rest never read. */
  prefix: Uint8Array;
}

/**
 * `base` with every answer body read at most `maxBytes` bytes: past that the body is cancelled
 * (nothing more is read from the server), the stream fails, and `onOver` gets the bytes kept.
 * Memory: at most `maxBytes` kept per answer, besides what the reader holds.
 */
export function cappedFetch(
  base: typeof fetch,
  maxBytes: number,
  onOver: (report: CapReport) => void,
): typeof fetch {
  return async (input, init) => {
    const res = await base(input, init);
    if (!res.body) return res;
    const reader = res.body.getReader();
    const kept: Uint8Array[] = [];
    let seen = 0;
    const body = new ReadableStream<Uint8Array>({
      async pull(controller) {
        const { done, value } = await reader.read();
        if (done) return controller.close();
        if (seen + value.byteLength > maxBytes) {
          kept.push(value.subarray(0, maxBytes - seen));
          await reader.cancel().catch(() => {});
          const prefix = new Uint8Array(maxBytes);
          let at = 0;
          for (const c of kept) {
            prefix.set(c, at);
            at += c.byteLength;
          }
          onOver({ prefix });
          controller.error(new Error(`answer longer than ${maxBytes} bytes`));
          return;
        }
        seen += value.byteLength;
        kept.push(value);
        controller.enqueue(value);
      },
      cancel(reason) {
        return reader.cancel(reason);
      },
    });
    return new Response(body, {
      status: res.status,
      statusText: res.statusText,
      headers: res.headers,
    });
  };
}

/** Options of {@link createMcpToolHandler}. */
export interface McpToolHandlerOptions {
  /** Largest answer of a tool call, bytes (`SKILLS_MCP_MAX_RESULT_BYTES`). */
  maxResultBytes: number;
}

/**
 * Builds the handler of every imported MCP tool. Output: `structuredContent` when the result has
 * it and its content is text only, else `{ content, structuredContent? }` (blocks unchanged).
 * Errors (ExecutionFailure): `mcp_tool_error` when the tool reports `isError` (its content as
 * output); `mcp_result_too_large` when an answer of the server is longer than `maxResultBytes`
 * (reading stops there; output `{ truncated: true, maxBytes, content: [{ type: "text", text }] }`
 * with the bytes read, decoded); `mcp_unreachable` (retryable) when the call fails.
 */
export function createMcpToolHandler(
  resolve: McpConnectionResolver,
  fetchFn: typeof fetch,
  opts: McpToolHandlerOptions,
): SkillHandler {
  return async (input, ctx) => {
    const { serverId, tool } = specOf(ctx);
    const conn = await resolve(serverId, ctx.signal);
    let over: CapReport | undefined;
    const stop = new AbortController();
    const signal = AbortSignal.any([ctx.signal, stop.signal]);
    const capped = cappedFetch(conn.fetch ?? fetchFn, opts.maxResultBytes, (report) => {
      over = report;
      stop.abort();
    });
    let result: Awaited<ReturnType<Client["callTool"]>>;
    try {
      result = await withClient(
        { ...conn, fetch: capped },
        { fetch: capped, signal, timeoutMs: ctx.timeoutMs },
        (client) =>
          client.callTool(
            { name: tool, arguments: (input ?? {}) as Record<string, unknown> },
            undefined,
            { signal, timeout: ctx.timeoutMs },
          ),
      );
    } catch (err) {
      if (ctx.signal.aborted) throw err;
      if (over) {
        throw new ExecutionFailure(
          `MCP tool ${tool} answered more than ${opts.maxResultBytes} bytes (SKILLS_MCP_MAX_RESULT_BYTES); the answer was cut there`,
          {
            code: "mcp_result_too_large",
            output: {
              truncated: true,
              maxBytes: opts.maxResultBytes,
              content: [{ type: "text", text: new TextDecoder().decode(over.prefix) }],
            },
          },
        );
      }
      throw new ExecutionFailure(`MCP call of ${tool} failed: ${(err as Error).message}`, {
        code: "mcp_unreachable",
        retryable: true,
      });
    }
    if (result.isError === true) {
      const text = Array.isArray(result.content)
        ? result.content
            .map((c) => (c as { type?: string; text?: string }).text ?? "")
            .join("\n")
            .slice(0, 1000)
        : "";
      throw new ExecutionFailure(`MCP tool ${tool} reported an error${text ? `: ${text}` : ""}`, {
        code: "mcp_tool_error",
        output: { content: result.content },
      });
    }
    const content = Array.isArray(result.content) ? result.content : [];
    const textOnly = content.every((c) => (c as { type?: unknown }).type === "text");
    if (result.structuredContent !== undefined && textOnly) return result.structuredContent;
    if (result.structuredContent !== undefined) {
      return { content, structuredContent: result.structuredContent };
    }
    return { content };
  };
}
