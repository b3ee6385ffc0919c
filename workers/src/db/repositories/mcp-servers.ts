/**
 * Storage of imported MCP servers (`mcp_servers`; docs/custom-skills.md#mcp-servers).
 */
import { eq } from "drizzle-orm";
import type {
  McpServerRecord,
  McpServerStore,
} from "../../skills/registry/mcp-server-repository.js";
import type { Db } from "../client.js";
import { mcpServers } from "../schema.js";

type Row = typeof mcpServers.$inferSelect;

function parse<T>(text: string, fallback: T): T {
  try {
    return JSON.parse(text) as T;
  } catch {
    return fallback;
  }
}

function recordOf(row: Row): McpServerRecord {
  return {
    id: row.id,
    name: row.name,
    url: row.url,
    headers: parse<Record<string, string>>(row.headers, {}),
    tools: parse<string[]>(row.tools, []),
    createdAt: row.createdAt,
    updatedAt: row.updatedAt,
    refreshedAt: row.refreshedAt,
  };
}

/** A {@link McpServerStore} over libSQL. */
export function createMcpServerStore(db: Db): McpServerStore {
  return {
    async insert(r) {
      await db.insert(mcpServers).values({
        ...r,
        headers: JSON.stringify(r.headers),
        tools: JSON.stringify(r.tools),
      });
    },
    async get(id) {
      const [row] = await db.select().from(mcpServers).where(eq(mcpServers.id, id)).limit(1);
      return row ? recordOf(row) : undefined;
    },
    async getByName(name) {
      const [row] = await db.select().from(mcpServers).where(eq(mcpServers.name, name)).limit(1);
      return row ? recordOf(row) : undefined;
    },
    async list() {
      return (await db.select().from(mcpServers).orderBy(mcpServers.name)).map(recordOf);
    },
    async setTools(id, tools, at) {
      await db
        .update(mcpServers)
        .set({ tools: JSON.stringify(tools), refreshedAt: at, updatedAt: at })
        .where(eq(mcpServers.id, id));
    },
    async delete(id) {
      await db.delete(mcpServers).where(eq(mcpServers.id, id));
    },
  };
}
