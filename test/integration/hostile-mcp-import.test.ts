/**
 * Hostile imported MCP servers (docs/limits.md, docs/custom-skills.md#mcp-servers): a server whose
 * `tools/list` answer is 64 MB, one that pages forever, and one that lists more tools than
 * `SKILLS_MCP_MAX_TOOLS` are each refused with 502 `mcp_list_too_large` while `/api/health` keeps
 * answering and the heap stays near idle; nothing is imported, and the first server's answer is
 * cut off soon after the byte bound instead of read whole. The servers speak MCP's Streamable
 * HTTP transport with JSON answers over real HTTP on 127.0.0.1.
 */
import { once } from "node:events";
import { createServer, type IncomingMessage, type ServerResponse } from "node:http";
import type { AddressInfo } from "node:net";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { startTestApp, type TestApp } from "../support/app.js";
import { expectApiAvailable, startHealthProbe } from "../support/health-probe.js";

const MiB = 1024 * 1024;
const LIST_BYTES = 1 * MiB;
const MAX_TOOLS = 50;

interface RpcMessage {
  id?: number | string;
  method: string;
  params?: { protocolVersion?: string; cursor?: string };
}

type ListAnswer = (res: ServerResponse, msg: RpcMessage) => Promise<void> | void;

async function readJson(req: IncomingMessage): Promise<RpcMessage> {
  let text = "";
  for await (const chunk of req) text += chunk;
  return JSON.parse(text) as RpcMessage;
}

const tool = (name: string) => ({
  name,
  description: `Tool ${name}`,
  inputSchema: { type: "object", properties: {} },
});

const reply = (res: ServerResponse, id: RpcMessage["id"], result: unknown) => {
  res.writeHead(200, { "content-type": "application/json" });
  res.end(JSON.stringify({ jsonrpc: "2.0", id, result }));
};

/** A stateless MCP server: `initialize` and notifications as the transport says, `tools/list` by `list`. */
async function startServer(list: ListAnswer): Promise<{ url: string; close(): Promise<void> }> {
  const server = createServer(async (req, res) => {
    if (req.method !== "POST") {
      res.writeHead(405).end();
      return;
    }
    const msg = await readJson(req);
    if (msg.id === undefined) {
      res.writeHead(202).end();
      return;
    }
    if (msg.method === "initialize") {
      reply(res, msg.id, {
        protocolVersion: msg.params?.protocolVersion ?? "2025-06-18",
        capabilities: { tools: {} },
        serverInfo: { name: "hostile", version: "1.0.0" },
      });
      return;
    }
    if (msg.method === "tools/list") return list(res, msg);
    res.writeHead(200, { "content-type": "application/json" });
    res.end(JSON.stringify({ jsonrpc: "2.0", id: msg.id, error: { code: -32601, message: "no" } }));
  });
  server.listen(0, "127.0.0.1");
  await once(server, "listening");
  return {
    url: `http://127.0.0.1:${(server.address() as AddressInfo).port}/mcp`,
    close: async () => {
      server.closeAllConnections();
      await new Promise<void>((r) => server.close(() => r()));
    },
  };
}

/** Bytes the huge server wrote before the API stopped reading (one import of it per run). */
let hugeWritten = 0;

const servers: Record<string, { url: string; close(): Promise<void> }> = {};
let t: TestApp;

beforeAll(async () => {
  servers.huge = await startServer(async (res, msg) => {
    res.writeHead(200, { "content-type": "application/json" });
    const head = `{"jsonrpc":"2.0","id":${JSON.stringify(msg.id)},"result":{"tools":[{"name":"big","description":"`;
    res.write(head);
    const piece = Buffer.alloc(64 * 1024, "x");
    while (hugeWritten < 64 * MiB && !res.destroyed) {
      if (!res.write(piece)) {
        await new Promise<void>((resolve) => {
          const done = () => {
            res.off("drain", done);
            res.off("close", done);
            resolve();
          };
          res.on("drain", done);
          res.on("close", done);
        });
      }
      hugeWritten += piece.length;
    }
    res.end('","inputSchema":{"type":"object"}}]}}');
  });
  servers.endless = await startServer((res, msg) => {
    const page = Number(msg.params?.cursor ?? 0);
    reply(res, msg.id, { tools: [], nextCursor: String(page + 1) });
  });
  servers.crowded = await startServer((res, msg) => {
    reply(res, msg.id, {
      tools: Array.from({ length: MAX_TOOLS + 1 }, (_, i) => tool(`t${i}`)),
    });
  });
  servers.fine = await startServer((res, msg) => {
    reply(res, msg.id, { tools: Array.from({ length: MAX_TOOLS }, (_, i) => tool(`t${i}`)) });
  });
  t = await startTestApp({
    env: {
      SKILLS_HTTP_HANDLER_ALLOWLIST: Object.values(servers)
        .map((s) => new URL(s.url).origin)
        .join(","),
      SKILLS_MCP_MAX_LIST_BYTES: String(LIST_BYTES),
      SKILLS_MCP_MAX_TOOLS: String(MAX_TOOLS),
    },
  });
});

afterAll(async () => {
  await t?.close();
  await Promise.all(Object.values(servers).map((s) => s.close()));
});

async function skillCount(): Promise<number> {
  const n = await t.client.execute("select count(*) as n from skills");
  return Number(n.rows[0]!.n);
}

describe("hostile imported MCP servers", () => {
  it.each([
    ["huge", "longer than 1048576 bytes (SKILLS_MCP_MAX_LIST_BYTES)"],
    ["endless", "more than 100 pages"],
    ["crowded", `more than ${MAX_TOOLS} tools (SKILLS_MCP_MAX_TOOLS)`],
  ])(
    "a %s tool list is refused with 502 mcp_list_too_large and nothing imported",
    async (name, why) => {
      const before = await skillCount();
      const probe = startHealthProbe(t.url);
      const added = await t.api.post("/api/mcp-servers", { name, url: servers[name]!.url });
      expectApiAvailable(await probe.stop());
      expect([added.status, added.body.error.code]).toEqual([502, "mcp_list_too_large"]);
      expect(added.body.error.message).toContain(why);
      expect(await skillCount()).toBe(before);
      const list = await t.api.get("/api/mcp-servers");
      expect(list.body.data.map((s: { name: string }) => s.name)).not.toContain(name);
      if (name === "huge") {
        // Reading stopped soon after the byte bound: socket buffers on both sides hold some
        // megabytes, but the whole 64 MB was never read.
        expect(hugeWritten).toBeGreaterThan(LIST_BYTES);
        expect(hugeWritten).toBeLessThan(24 * MiB);
      }
    },
  );

  it("imports a server listing exactly SKILLS_MCP_MAX_TOOLS tools", async () => {
    const added = await t.api.post("/api/mcp-servers", { name: "fine", url: servers.fine!.url });
    expect(added.status).toBe(201);
    expect(added.body.skills).toHaveLength(MAX_TOOLS);
  });
});
