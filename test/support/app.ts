/**
 * Test harness: a real app on a real embedded libSQL database (in memory or a temp file), with
 * migrations applied, served over real HTTP on 127.0.0.1 when a test needs the wire.
 */
import { mkdtempSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import type { Client } from "@libsql/client";
import { type BuiltApp, createApp } from "../../workers/src/app.js";
import { MemoryCache } from "../../workers/src/cache/memory-cache.js";
import { parseConfig } from "../../workers/src/config.js";
import { createDb } from "../../workers/src/db/client.js";
import type { AppDeps } from "../../workers/src/deps.js";
import { openEmbeddedDatabase } from "../../workers/src/runtime/node/embedded-db.js";
import { applyMigrations } from "../../workers/src/runtime/node/migrate.js";
import { createNodeOutbound } from "../../workers/src/runtime/node/outbound.js";
import { serveNode } from "../../workers/src/runtime/node/serve-node.js";
import { fileStorageProbe } from "../../workers/src/runtime/node/storage.js";
import { createNodeUpstreamFetch } from "../../workers/src/runtime/node/upstream-fetch.js";
import type { ServiceOptions, Services } from "../../workers/src/services/index.js";

export const MGMT_TOKEN = "test-management-token-0123456789";

/** A running test app. */
export interface TestApp {
  /** Base URL (`http://127.0.0.1:<port>`). */
  url: string;
  services: Services;
  /** The A2A skills of the app (register test skills here). */
  a2aSkills: BuiltApp["a2aSkills"];
  client: Client;
  deps: AppDeps;
  /** fetch against the app over HTTP with JSON helpers. */
  api: ApiClient;
  close(): Promise<void>;
}

/** Options of {@link startTestApp}. */
export interface TestAppOptions {
  env?: Record<string, string>;
  /** libSQL URL; default a fresh temp file. */
  libsqlUrl?: string;
  deps?: Partial<AppDeps>;
  services?: ServiceOptions;
}

/** Opens a migrated embedded database at `url`, with the server settings. */
export async function openDb(
  url: string,
): Promise<{ client: Client; db: ReturnType<typeof createDb> }> {
  const client = await openEmbeddedDatabase(url);
  const db = createDb(client);
  await applyMigrations(db);
  return { client, db };
}

/** Creates a temp folder; returns its path and a cleanup function. */
export function tempDir(prefix = "skillgate-test-"): { dir: string; cleanup(): void } {
  const dir = mkdtempSync(join(tmpdir(), prefix));
  return { dir, cleanup: () => rmSync(dir, { recursive: true, force: true }) };
}

/** Starts the app on a real HTTP port with a migrated embedded database. */
export async function startTestApp(opts: TestAppOptions = {}): Promise<TestApp> {
  const tmp = opts.libsqlUrl ? null : tempDir();
  const url = opts.libsqlUrl ?? `file:${join(tmp!.dir, "test.db")}`;
  const { client, db } = await openDb(url);
  const config = parseConfig({ MGMT_TOKEN, ...opts.env });
  const deps: AppDeps = {
    db,
    cache: new MemoryCache(),
    config,
    runtime: "node",
    outbound: createNodeOutbound(),
    upstreamFetch: createNodeUpstreamFetch(),
    storage: fileStorageProbe(url),
    ...opts.deps,
  };
  const { app, services, a2aSkills } = createApp(deps, { retryBackoffMs: 20, ...opts.services });
  const { server, port } = await serveNode({
    fetch: app.fetch,
    port: 0,
    hostname: "127.0.0.1",
    drainMaxBytes: config.REQUEST_DRAIN_MAX_BYTES,
    drainMaxMs: config.REQUEST_DRAIN_MAX_MS,
  });
  const base = `http://127.0.0.1:${port}`;
  return {
    url: base,
    services,
    a2aSkills,
    client,
    deps,
    api: new ApiClient(base, MGMT_TOKEN),
    close: async () => {
      await new Promise<void>((resolve) => server.close(() => resolve()));
      // As the Node server does when it stops: buffered observations are written first.
      await Promise.all([services.tokenUsage.settled(), services.routing.settled()]);
      client.close();
      tmp?.cleanup();
    },
  };
}

/** A JSON response. */
export interface JsonResponse<T = any> {
  status: number;
  body: T;
  headers: Headers;
}

/** Minimal JSON client for the REST API. */
export class ApiClient {
  constructor(
    readonly base: string,
    readonly token: string | undefined,
  ) {}

  /** The same client with another bearer token (an API key, or none). */
  as(token: string | undefined): ApiClient {
    return new ApiClient(this.base, token);
  }

  /** Sends a request; `body` is JSON-encoded unless it is a string. */
  async request<T = any>(method: string, path: string, body?: unknown): Promise<JsonResponse<T>> {
    const headers: Record<string, string> = {};
    if (this.token) headers.authorization = `Bearer ${this.token}`;
    if (body !== undefined) headers["content-type"] = "application/json";
    const res = await fetch(this.base + path, {
      method,
      headers,
      body: body === undefined ? undefined : typeof body === "string" ? body : JSON.stringify(body),
    });
    const text = await res.text();
    let parsed: unknown = text;
    try {
      parsed = text ? JSON.parse(text) : null;
    } catch {
      // Non-JSON bodies stay text.
    }
    return { status: res.status, body: parsed as T, headers: res.headers };
  }

  get<T = any>(path: string) {
    return this.request<T>("GET", path);
  }
  post<T = any>(path: string, body?: unknown) {
    return this.request<T>("POST", path, body ?? {});
  }
  put<T = any>(path: string, body?: unknown) {
    return this.request<T>("PUT", path, body);
  }
  delete<T = any>(path: string) {
    return this.request<T>("DELETE", path);
  }

  /** Creates an API key through the API. @returns the key and its id. */
  async createKey(name: string): Promise<{ key: string; id: string }> {
    const res = await this.post("/api/keys", { name });
    if (res.status !== 201)
      throw new Error(`createKey failed: ${res.status} ${JSON.stringify(res.body)}`);
    return { key: res.body.key, id: res.body.apiKey.id };
  }
}
