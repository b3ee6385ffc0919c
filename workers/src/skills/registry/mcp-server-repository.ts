/**
 * Storage of imported MCP servers (docs/custom-skills.md#mcp-servers); the drizzle implementation
 * is in `workers/src/db/repositories/mcp-servers.ts`. Timestamps are ms since the epoch.
 */

/** A stored server (header values included: never returned by the API). */
export interface McpServerRecord {
  id: string;
  name: string;
  url: string;
  headers: Record<string, string>;
  /** Tool names imported at the last refresh. */
  tools: string[];
  createdAt: number;
  updatedAt: number;
  refreshedAt: number | null;
}

/** Storage of servers. */
export interface McpServerStore {
  insert(record: McpServerRecord): Promise<void>;
  get(id: string): Promise<McpServerRecord | undefined>;
  getByName(name: string): Promise<McpServerRecord | undefined>;
  list(): Promise<McpServerRecord[]>;
  setTools(id: string, tools: string[], at: number): Promise<void>;
  delete(id: string): Promise<void>;
}
