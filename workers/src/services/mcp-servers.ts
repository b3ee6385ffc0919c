/**
 * Imported MCP servers, a service of the application layer (docs/custom-skills.md#mcp-servers): adding a server lists its tools over
 * Streamable HTTP and registers each as a global skill `<server>__<tool>`; a refresh adds, updates
 * and removes skills to match the server's current tools; deleting a server removes its skills.
 * Header values are write-only: the API shows header names only.
 */

import { ConflictError, InvalidInputError, NotFoundError, UpstreamError } from "../errors.js";
import { connectorFetch } from "../outbound/connector-fetch.js";
import { OutboundBlockedError } from "../outbound/guard.js";
import type { OutboundConnector } from "../outbound/types.js";
import { originAllowed } from "../skills/handlers/http.js";
import {
  listRemoteTools,
  MCP_HANDLER_NAME,
  MCP_SERVER_NAME_PATTERN,
  type McpConnection,
  type McpListBounds,
  McpListTooLarge,
  type RemoteTool,
  toolSkillName,
} from "../skills/handlers/mcp-import.js";
import type { McpServerRecord, McpServerStore } from "../skills/registry/mcp-server-repository.js";
import type { SkillRegistry } from "../skills/registry/registry.js";
import type { Skill } from "../skills/types.js";
import { MAX_DESCRIPTION_CHARS, type SkillsService } from "./skills.js";

/** A server as the API shows it: header names only. ISO-8601 timestamps. */
export interface McpServerView {
  id: string;
  name: string;
  url: string;
  headerNames: string[];
  tools: string[];
  createdAt: string;
  updatedAt: string;
  refreshedAt: string | null;
}

/** What a refresh changed, as skill names. */
export interface McpRefreshResult {
  server: McpServerView;
  added: string[];
  changed: string[];
  removed: string[];
}

/** Options of {@link McpServerService}. */
export interface McpServerServiceOptions {
  store: McpServerStore;
  registry: SkillRegistry;
  skills: SkillsService;
  /** fetch of the MCP transport. */
  fetch: typeof fetch;
  /** Origins trusted without the outbound guard (`SKILLS_HTTP_HANDLER_ALLOWLIST`). */
  allowlist: readonly string[];
  /**
   * The outbound guard for other URLs; throws when the URL may not be called.
   * @returns the addresses it approved, or null when the platform resolves names itself (Worker).
   */
  guard: (url: string, signal?: AbortSignal) => Promise<string[] | null>;
  /**
   * Connector that reaches approved addresses only (Node); with it, a guarded server is called
   * through a fetch pinned to the addresses the guard approved. Absent: the plain fetch.
   */
  connect?: OutboundConnector;
  /** Bounds of one listing of a server's tools (docs/limits.md). */
  listBounds: McpListBounds;
  clock?: () => number;
}

const iso = (ms: number) => new Date(ms).toISOString();

/** Turns a record into its API view (header values dropped). */
export function viewOf(r: McpServerRecord): McpServerView {
  return {
    id: r.id,
    name: r.name,
    url: r.url,
    headerNames: Object.keys(r.headers).sort(),
    tools: r.tools,
    createdAt: iso(r.createdAt),
    updatedAt: iso(r.updatedAt),
    refreshedAt: r.refreshedAt === null ? null : iso(r.refreshedAt),
  };
}

/** Management of imported MCP servers. */
export class McpServerService {
  private readonly clock: () => number;
  constructor(private readonly opts: McpServerServiceOptions) {
    this.clock = opts.clock ?? Date.now;
  }

  /**
   * Checks `url` (allowlisted origin, else the outbound guard) and returns how to reach a server:
   * a guarded server is reached through a fetch pinned to the addresses the guard approved, when
   * the runtime can pin (docs/outbound.md#pinned-connections).
   * @throws the guard's error (an ExecutionFailure `outbound_blocked` / `invalid_url`).
   */
  async connection(
    r: Pick<McpServerRecord, "url" | "headers">,
    signal?: AbortSignal,
  ): Promise<McpConnection> {
    if (originAllowed(r.url, this.opts.allowlist)) return { url: r.url, headers: r.headers };
    const addresses = await this.opts.guard(r.url, signal);
    if (!addresses || !this.opts.connect) return { url: r.url, headers: r.headers };
    const fetch = connectorFetch(this.opts.connect, addresses, new URL(r.url).origin);
    return { url: r.url, headers: r.headers, fetch };
  }

  /** How to reach a stored server, for the tool handler. @throws ExecutionFailure when refused. */
  async connectionFor(serverId: string, signal?: AbortSignal): Promise<McpConnection> {
    const r = await this.opts.store.get(serverId);
    if (!r) throw new NotFoundError(`MCP server ${serverId} not found`, "mcp_server_not_found");
    return this.connection(r, signal);
  }

  private async tools(r: Pick<McpServerRecord, "url" | "headers">): Promise<RemoteTool[]> {
    let conn: McpConnection;
    try {
      conn = await this.connection(r);
    } catch (err) {
      // Only a refusal by policy is the URL's fault; a name that does not resolve (offline, a
      // typo) is the server being unreachable (docs/outbound.md#failures).
      if (!(err instanceof OutboundBlockedError) && !(err instanceof InvalidInputError)) {
        throw new UpstreamError(
          `Could not reach the MCP server: ${(err as Error).message}`,
          "mcp_unreachable",
        );
      }
      throw new InvalidInputError(
        `The MCP server URL may not be called: ${(err as Error).message}`,
        [{ field: "url", message: "refused by the outbound guard" }],
        "url_not_allowed",
      );
    }
    try {
      return await listRemoteTools(
        conn,
        { fetch: this.opts.fetch, timeoutMs: 30_000 },
        this.opts.listBounds,
      );
    } catch (err) {
      if (err instanceof McpListTooLarge) {
        throw new UpstreamError(
          `The MCP server's tool list is too large: ${err.message}`,
          "mcp_list_too_large",
        );
      }
      throw new UpstreamError(
        `Could not list the tools of the MCP server: ${(err as Error).message}`,
        "mcp_unreachable",
      );
    }
  }

  /**
   * Adds a server and imports its tools.
   * @throws InvalidInputError for a bad name or a refused URL; ConflictError `mcp_server_exists`;
   *   UpstreamError `mcp_unreachable` when the tools cannot be listed.
   */
  async add(input: {
    name: string;
    url: string;
    headers?: Record<string, string>;
  }): Promise<{ server: McpServerView; skills: Skill[] }> {
    if (!MCP_SERVER_NAME_PATTERN.test(input.name)) {
      throw new InvalidInputError("name must be 1-32 of [A-Za-z0-9_-]", [
        { field: "name", message: "invalid server name" },
      ]);
    }
    if (await this.opts.store.getByName(input.name)) {
      throw new ConflictError(`MCP server ${input.name} already exists`, "mcp_server_exists");
    }
    const headers = input.headers ?? {};
    const tools = await this.tools({ url: input.url, headers });
    const now = this.clock();
    const record: McpServerRecord = {
      id: crypto.randomUUID(),
      name: input.name,
      url: input.url,
      headers,
      tools: [],
      createdAt: now,
      updatedAt: now,
      refreshedAt: null,
    };
    await this.opts.store.insert(record);
    try {
      const skills: Skill[] = [];
      for (const tool of tools) skills.push(await this.installTool(record, tool));
      await this.opts.store.setTools(
        record.id,
        tools.map((t) => t.name),
        now,
      );
      const stored = (await this.opts.store.get(record.id))!;
      return { server: viewOf(stored), skills };
    } catch (err) {
      await this.remove(record.id).catch(() => {});
      throw err;
    }
  }

  private installTool(server: McpServerRecord, tool: RemoteTool): Promise<Skill> {
    return this.opts.skills.install(
      {
        name: toolSkillName(server.name, tool.name),
        version: "1.0.0",
        description: tool.description.slice(0, MAX_DESCRIPTION_CHARS),
        schema: { input: tool.inputSchema },
        handlerCode: MCP_HANDLER_NAME,
        mode: "auto",
        policy: "auto",
        tags: ["mcp", server.name],
        apiKeyId: null,
        sourceRef: `mcp:${server.id}`,
      },
      { handler: { type: "mcp", serverId: server.id, tool: tool.name }, secret: null },
    );
  }

  private async importedSkills(serverId: string): Promise<Skill[]> {
    const snapshot = await this.opts.registry.snapshot();
    return snapshot.listingOrder().filter((s) => s.sourceRef === `mcp:${serverId}`);
  }

  /** The servers, by name. */
  async list(): Promise<McpServerView[]> {
    return (await this.opts.store.list()).map(viewOf);
  }

  /**
   * Re-lists a server's tools: new tools become skills, changed descriptions or schemas are
   * updated, and tools gone from the server lose their skills.
   * @throws NotFoundError `mcp_server_not_found`; as {@link add} for the listing.
   */
  async refresh(id: string): Promise<McpRefreshResult> {
    const server = await this.opts.store.get(id);
    if (!server) throw new NotFoundError(`MCP server ${id} not found`, "mcp_server_not_found");
    const tools = await this.tools(server);
    const existing = new Map<string, Skill>();
    for (const s of await this.importedSkills(id)) {
      if (s.handler?.type === "mcp") existing.set(s.handler.tool, s);
    }
    const added: string[] = [];
    const changed: string[] = [];
    const removed: string[] = [];
    for (const tool of tools) {
      const skill = existing.get(tool.name);
      existing.delete(tool.name);
      if (!skill) {
        added.push((await this.installTool(server, tool)).name);
        continue;
      }
      const updated = await this.opts.skills.update(skill.id, {
        description: tool.description.slice(0, MAX_DESCRIPTION_CHARS),
        schema: { input: tool.inputSchema },
      });
      if (
        updated.description !== skill.description ||
        JSON.stringify(updated.schema) !== JSON.stringify(skill.schema)
      )
        changed.push(skill.name);
    }
    for (const gone of existing.values()) {
      await this.opts.registry.remove(gone.id);
      removed.push(gone.name);
    }
    await this.opts.store.setTools(
      id,
      tools.map((t) => t.name),
      this.clock(),
    );
    return { server: viewOf((await this.opts.store.get(id))!), added, changed, removed };
  }

  /** Deletes a server and its skills. @throws NotFoundError `mcp_server_not_found`. */
  async remove(id: string): Promise<void> {
    const server = await this.opts.store.get(id);
    if (!server) throw new NotFoundError(`MCP server ${id} not found`, "mcp_server_not_found");
    for (const s of await this.importedSkills(id)) {
      await this.opts.registry.remove(s.id).catch(() => {});
    }
    await this.opts.store.delete(id);
  }
}
