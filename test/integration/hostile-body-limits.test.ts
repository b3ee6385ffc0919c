/**
 * Hostile request bodies against every door (docs/limits.md): every route the app serves —
 * enumerated from the app itself, so a route added later is checked too — refuses a body over its
 * limit with 413 (declared or chunked) and JSON nested past `MAX_JSON_DEPTH` with 400, writing
 * nothing; a client still sending (Node fetch, the openai SDK, from their own process) reads the
 * 413 and its error body; and while bodies of 150 MB are sent to the doors that once read them
 * whole, `/api/health` keeps answering and the heap stays flat.
 */
import { spawn } from "node:child_process";
import { request as httpRequest } from "node:http";
import { connect } from "node:net";
import { join } from "node:path";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { createApp } from "../../workers/src/app.js";
import type { RequestSample } from "../../workers/src/metrics/types.js";
import { BODY_LIMIT_ROUTES, bodyLimitFor } from "../../workers/src/request-limits.js";
import { MGMT_TOKEN, startTestApp, type TestApp } from "../support/app.js";
import { expectApiAvailable, startHealthProbe } from "../support/health-probe.js";
import type { OversizeJob, OversizeResult } from "../support/oversize-client.js";
import { sendRaw } from "../support/raw-http.js";

const MiB = 1024 * 1024;
const ROOT = join(import.meta.dirname, "../..");

/** Runs the oversize client in its own Node process and returns what each try saw. */
function runClient(job: OversizeJob): Promise<OversizeResult[]> {
  return new Promise((resolve, reject) => {
    const child = spawn(
      process.execPath,
      ["--import", "tsx", join(ROOT, "test/support/oversize-client.ts"), JSON.stringify(job)],
      { cwd: ROOT, stdio: ["ignore", "pipe", "pipe"] },
    );
    let out = "";
    let err = "";
    child.stdout.on("data", (d) => {
      out += d;
    });
    child.stderr.on("data", (d) => {
      err += d;
    });
    child.on("error", reject);
    child.on("close", (code) => {
      if (code !== 0) return reject(new Error(`oversize client exited ${code}: ${err}`));
      resolve(JSON.parse(out.trim().split("\n").at(-1)!) as OversizeResult[]);
    });
  });
}

/** Row counts of every table of the database. */
async function tableCounts(t: TestApp): Promise<Record<string, number>> {
  const tables = await t.client.execute(
    "select name from sqlite_master where type = 'table' and name not like 'sqlite_%' and name not like '%drizzle%'",
  );
  const counts: Record<string, number> = {};
  for (const row of tables.rows) {
    const name = String(row.name);
    const n = await t.client.execute(`select count(*) as n from "${name}"`);
    counts[name] = Number(n.rows[0]!.n);
  }
  return counts;
}

/** An example path for a route pattern (`:target` gets a Gemini model and method). */
function concretePath(pattern: string): string {
  return pattern
    .replace(":target", "gemini-test:generateContent")
    .replace(/:[A-Za-z]+/g, "probe-id");
}

/**
 * The code and message of an error body in the Skillgate envelope, a provider's shape, or
 * JSON-RPC's (`/mcp`: the registry code is in `error.data.code`).
 */
function refusal(body: unknown): { code?: unknown; message?: unknown } {
  const error = (
    body as {
      jsonrpc?: string;
      error?: { code?: unknown; message?: unknown; data?: { code?: unknown } };
    } | null
  )?.error;
  const rpc = (body as { jsonrpc?: string } | null)?.jsonrpc === "2.0";
  return { code: rpc ? error?.data?.code : error?.code, message: error?.message };
}

/** Sends `bytes` bytes (`{"a":"aaa…"}`) with `Transfer-Encoding: chunked` and no length. */
function sendChunked(
  base: string,
  method: string,
  path: string,
  bytes: number,
): Promise<{ status: number; body: unknown }> {
  return new Promise((resolve, reject) => {
    const url = new URL(path, base);
    const req = httpRequest({
      host: url.hostname,
      port: url.port,
      path: url.pathname,
      method,
      headers: {
        authorization: `Bearer ${MGMT_TOKEN}`,
        "content-type": "application/json",
        "transfer-encoding": "chunked",
      },
    });
    let answered = false;
    req.on("response", (res) => {
      answered = true;
      let text = "";
      res.setEncoding("utf8");
      res.on("data", (d: string) => {
        text += d;
      });
      res.on("end", () => {
        let body: unknown = text;
        try {
          body = JSON.parse(text);
        } catch {}
        resolve({ status: res.statusCode ?? 0, body });
      });
    });
    req.on("error", (err) => {
      if (!answered) reject(err);
    });
    req.write('{"a":"');
    const chunk = "a".repeat(1024);
    for (let sent = 0; sent < bytes; sent += chunk.length) req.write(chunk);
    req.end('"}');
  });
}

const SMALL_LIMITS = {
  MAX_BODY_BYTES: "4096",
  MAX_BODY_BYTES_EXECUTE: "8192",
  MAX_BODY_BYTES_INJECT: "16384",
  MAX_BODY_BYTES_INTERCEPT: "12288",
  MAX_JSON_DEPTH: "16",
};

describe("every route of the app goes through the body limit and the depth check", () => {
  let t: TestApp;
  let routes: Array<{ method: string; path: string }>;
  beforeAll(async () => {
    t = await startTestApp({ env: SMALL_LIMITS });
    const seen = new Set<string>();
    routes = [];
    // `ALL` entries are middleware (app.use); every other entry is a route a request can reach.
    for (const r of createApp(t.deps).app.routes) {
      if (r.method === "ALL" || seen.has(`${r.method} ${r.path}`)) continue;
      seen.add(`${r.method} ${r.path}`);
      routes.push({ method: r.method, path: r.path });
    }
    // A path no route serves goes through the same limit.
    routes.push({ method: "POST", path: "/no/such/route" });
  });
  afterAll(() => t.close());

  it("enumerates every door (REST, proxy, MCP, A2A, dashboard) and names only its routes in the table of limits", () => {
    const keys = new Set(routes.map((r) => `${r.method} ${r.path}`));
    for (const door of [
      "POST /api/skills/executions",
      "POST /v1/chat/completions",
      "POST /v1beta/models/:target",
      "POST /mcp",
      "POST /a2a",
      "POST /dashboard/login",
      "POST /dashboard/skills/new",
    ])
      expect(keys).toContain(door);
    expect(routes.length).toBeGreaterThan(60);
    for (const r of BODY_LIMIT_ROUTES) expect(keys.has(`${r.method} ${r.path}`)).toBe(true);
  });

  it("answers 413 with the error body to a declared Content-Length over the limit, on every method and path", async () => {
    const before = await tableCounts(t);
    const wrong: string[] = [];
    for (const r of routes) {
      const path = concretePath(r.path);
      const { bytes } = bodyLimitFor(t.deps.config, r.method, path);
      // Headers only: the answer must come from the declared length, before any body byte.
      const res = await sendRaw(
        t.url,
        `${r.method} ${path} HTTP/1.1\r\nhost: x\r\nauthorization: Bearer ${MGMT_TOKEN}\r\ncontent-type: application/json\r\ncontent-length: ${bytes + 1}\r\n\r\n`,
      );
      const { message } = refusal(res.body);
      if (res.status !== 413 || !String(message).includes(`larger than ${bytes} bytes`))
        wrong.push(`${r.method} ${path}: ${res.status} ${JSON.stringify(res.body).slice(0, 120)}`);
    }
    expect(wrong).toEqual([]);
    expect(await tableCounts(t)).toEqual(before);
    // On /api/* the bearer check comes first: an anonymous caller is refused with nothing read.
    const anonymous = await sendRaw(
      t.url,
      `POST /api/skills/inject HTTP/1.1\r\nhost: x\r\ncontent-type: application/json\r\ncontent-length: ${100 * MiB}\r\n\r\n`,
    );
    expect([anonymous.status, anonymous.body.error.code]).toEqual([401, "unauthorized"]);
  });

  it("answers 413 with the error body to a chunked body over the limit, on every method and path that takes a body", async () => {
    const before = await tableCounts(t);
    const wrong: string[] = [];
    // GET and HEAD carry no body into the app on either runtime; their declared length is
    // refused above, and the bytes of a chunked one are discarded by the server.
    for (const r of routes.filter((r) => r.method !== "GET" && r.method !== "HEAD")) {
      const path = concretePath(r.path);
      const { bytes, variable } = bodyLimitFor(t.deps.config, r.method, path);
      const res = await sendChunked(t.url, r.method, path, bytes * 2);
      const { code, message } = refusal(res.body);
      const shaped = code === "payload_too_large" || code === 413 || code === undefined;
      if (res.status !== 413 || !shaped || !String(message).includes(`(${variable})`))
        wrong.push(`${r.method} ${path}: ${res.status} ${JSON.stringify(res.body).slice(0, 120)}`);
    }
    expect(wrong).toEqual([]);
    expect(await tableCounts(t)).toEqual(before);
  });

  it("answers 400 json_too_deep to JSON nested past MAX_JSON_DEPTH, on every method and path that takes a body (forms excepted)", async () => {
    const before = await tableCounts(t);
    const deep = `{"a":${"[".repeat(16)}${"]".repeat(16)}}`;
    const wrong: string[] = [];
    for (const r of routes.filter((r) => r.method !== "GET" && r.method !== "HEAD")) {
      const path = concretePath(r.path);
      const res = await fetch(t.url + path, {
        method: r.method,
        headers: { authorization: `Bearer ${MGMT_TOKEN}`, "content-type": "application/json" },
        body: deep,
        redirect: "manual",
      });
      const text = await res.text();
      if (res.status !== 400 || !text.includes("nested deeper than 16 levels"))
        wrong.push(`${r.method} ${path}: ${res.status} ${text.slice(0, 120)}`);
    }
    expect(wrong).toEqual([]);
    expect(await tableCounts(t)).toEqual(before);
    // A form's fields are text: brackets in a dashboard form are not JSON nesting. Read and
    // checked as a token, the sign-in is refused as a wrong token, not as deep JSON.
    const form = await fetch(`${t.url}/dashboard/login`, {
      method: "POST",
      // Same origin, as the dashboard's own form posts it (cross-site posts are refused).
      headers: { "content-type": "application/x-www-form-urlencoded", origin: t.url },
      body: new URLSearchParams({ token: "[".repeat(100) }).toString(),
      redirect: "manual",
    });
    expect(form.status).toBe(401);
    expect(await form.text()).toContain("That token is not valid");
  });

  it("answers the proxy's refusals in the provider's error shape", async () => {
    const big = JSON.stringify({ model: "m", messages: [{ content: "a".repeat(20_000) }] });
    const post = (path: string) =>
      fetch(t.url + path, {
        method: "POST",
        headers: { "content-type": "application/json" },
        body: big,
      }).then(async (res) => ({ status: res.status, body: await res.json() }));
    const chat = await post("/v1/chat/completions");
    expect([chat.status, chat.body.error.type, chat.body.error.code]).toEqual([
      413,
      "invalid_request_error",
      "payload_too_large",
    ]);
    const anthropic = await post("/v1/messages");
    expect([anthropic.status, anthropic.body.type, anthropic.body.error.type]).toEqual([
      413,
      "error",
      "request_too_large",
    ]);
    const gemini = await post("/v1beta/models/g:generateContent");
    expect([gemini.status, gemini.body.error.code, gemini.body.error.status]).toEqual([
      413,
      413,
      "INVALID_ARGUMENT",
    ]);
  });
});

describe("a client still sending reads the 413 (client in its own process)", () => {
  let t: TestApp;
  let key: string;
  beforeAll(async () => {
    t = await startTestApp();
    key = (await t.api.createKey("oversize")).key;
  });
  afterAll(() => t.close());

  const execute = { head: '{"skillName":"nope","input":{"text":"', tail: '"}}' };
  const inject = {
    head: '{"format":"openai-chat","request":{"model":"m","messages":[{"role":"user","content":"',
    tail: '"}]}}',
  };

  /** The tries that did not read a 413 `payload_too_large` with the route's message. */
  const misses = (results: OversizeResult[], variable: string) =>
    results.filter(
      (r) =>
        r.status !== 413 ||
        r.code !== "payload_too_large" ||
        !String(r.message).includes(`(${variable})`),
    );

  it.each([
    ["5 MB", "/api/skills/executions", 5 * MiB, execute, "MAX_BODY_BYTES_EXECUTE"],
    ["17 MB", "/api/skills/inject", 17 * MiB, inject, "MAX_BODY_BYTES_INJECT"],
  ] as const)(
    "Node fetch sending %s to POST %s reads the 413 in 10 of 10 tries, with and without Content-Length",
    async (_size, path, bytes, parts, variable) => {
      for (const mode of ["fetch-length", "fetch-stream"] as const) {
        const results = await runClient({
          mode,
          url: t.url,
          path,
          token: key,
          bytes,
          tries: 10,
          ...parts,
        });
        expect([mode, results.length]).toEqual([mode, 10]);
        expect([mode, misses(results, variable)]).toEqual([mode, []]);
      }
    },
  );

  it("the openai SDK sending 17 MB through the proxy gets an APIError 413 payload_too_large in 10 of 10 tries", async () => {
    const results = await runClient({
      mode: "openai",
      url: t.url,
      path: "/v1/chat/completions",
      token: key,
      bytes: 17 * MiB,
      tries: 10,
    });
    expect(results).toHaveLength(10);
    expect(misses(results, "MAX_BODY_BYTES_INJECT")).toEqual([]);
  });

  it("a refused body read to its end leaves the connection usable for the next request", async () => {
    // One socket: a declared 2 MiB + 1 body sent whole, then a second request on the same socket.
    const body = "a".repeat(2 * MiB + 1);
    const first = `POST /api/skills/executions HTTP/1.1\r\nhost: x\r\nauthorization: Bearer ${key}\r\ncontent-type: application/json\r\ncontent-length: ${body.length}\r\n\r\n${body}`;
    const second = "GET /api/health HTTP/1.1\r\nhost: x\r\nconnection: close\r\n\r\n";
    const text = await new Promise<string>((resolve, reject) => {
      const socket = connect(Number(new URL(t.url).port), "127.0.0.1");
      let data = "";
      socket.setEncoding("utf8");
      socket.on("data", (d: string) => {
        data += d;
      });
      socket.on("end", () => resolve(data));
      socket.on("error", reject);
      socket.write(first + second);
    });
    const statuses = [...text.matchAll(/HTTP\/1\.1 (\d{3}) /g)].map((m) => Number(m[1]));
    expect(statuses).toEqual([413, 200]);
  });
});

describe("the server discards an unread body within its bounds", () => {
  let t: TestApp;
  beforeAll(async () => {
    t = await startTestApp({
      env: {
        MAX_BODY_BYTES_EXECUTE: String(MiB),
        REQUEST_DRAIN_MAX_BYTES: String(16 * MiB),
        REQUEST_DRAIN_MAX_MS: "1500",
      },
    });
  });
  afterAll(() => t.close());

  /**
   * Streams `a` in 64 KiB chunks (chunked encoding, over a bare TCP socket) to executions, one
   * chunk every `gapMs` (0: as fast as the socket takes them), until the server closes the
   * connection; returns the answer's status and the bytes sent.
   */
  const upload = (gapMs: number) =>
    new Promise<{ status: number; sent: number }>((resolve) => {
      const socket = connect(Number(new URL(t.url).port), "127.0.0.1");
      let answer = "";
      let sent = 0;
      socket.setEncoding("utf8");
      socket.on("data", (d: string) => {
        answer += d;
      });
      socket.on("error", () => {});
      socket.once("close", () =>
        resolve({ status: Number(/^HTTP\/1\.1 (\d{3})/.exec(answer)?.[1] ?? 0), sent }),
      );
      const chunk = `10000\r\n${"a".repeat(65_536)}\r\n`;
      const pump = (): void => {
        if (socket.destroyed || sent > 400 * MiB) return;
        sent += 65_536;
        const more = socket.write(chunk);
        if (gapMs > 0) setTimeout(pump, gapMs);
        else if (more) setImmediate(pump);
        else socket.once("drain", pump);
      };
      socket.write(
        `POST /api/skills/executions HTTP/1.1\r\nhost: x\r\nauthorization: Bearer ${MGMT_TOKEN}\r\ncontent-type: application/json\r\ntransfer-encoding: chunked\r\n\r\n`,
      );
      pump();
    });

  it("reads at most REQUEST_DRAIN_MAX_BYTES after the 413, then closes; a slow sender is closed after REQUEST_DRAIN_MAX_MS", async () => {
    const fast = await upload(0);
    expect(fast.status).toBe(413);
    // The 1 MiB limit, then 16 MiB discarded; socket buffers add a few MB, never the 400 MB.
    expect(fast.sent).toBeGreaterThan(16 * MiB);
    expect(fast.sent).toBeLessThan(48 * MiB);
    // 64 KiB every 20 ms would take minutes to reach the byte bound: the time bound ends it.
    const slow = await upload(20);
    expect(slow.status).toBe(413);
    expect(slow.sent).toBeLessThan(16 * MiB);
  });
});

describe("a client that goes away in the middle of its body", () => {
  let t: TestApp;
  const seen: RequestSample[] = [];
  beforeAll(async () => {
    t = await startTestApp({
      deps: {
        metrics: {
          observeRequest: (sample) => seen.push(sample),
          countExecution: () => {},
        },
      },
    });
  });
  afterAll(() => t.close());

  it("ends as 499 client_closed on REST, the proxy, MCP and A2A: never a 500", async () => {
    const paths = ["/api/skills/executions", "/v1/chat/completions", "/mcp", "/a2a"];
    for (const path of paths) {
      // Half a body, then the socket is destroyed without the final chunk.
      await new Promise<void>((resolve) => {
        const socket = connect(Number(new URL(t.url).port), "127.0.0.1", () => {
          socket.write(
            `POST ${path} HTTP/1.1\r\nhost: x\r\nauthorization: Bearer ${MGMT_TOKEN}\r\ncontent-type: application/json\r\ntransfer-encoding: chunked\r\n\r\n8\r\n{"a":"aa\r\n`,
            () => setTimeout(() => socket.destroy(), 50),
          );
        });
        socket.on("close", () => resolve());
        socket.on("error", () => {});
      });
    }
    // The app notices each close as its read fails; wait until all four are recorded.
    for (let i = 0; i < 100 && seen.filter((s) => s.method === "POST").length < 4; i++)
      await new Promise((r) => setTimeout(r, 20));
    const statuses = seen.filter((s) => s.method === "POST").map((s) => s.status);
    expect(statuses).toEqual([499, 499, 499, 499]);
  });
});

describe("availability while 150 MB bodies are sent to the doors", () => {
  let t: TestApp;
  let readOnly: string;
  let injectKey: string;
  beforeAll(async () => {
    t = await startTestApp();
    const created = await t.api.post("/api/keys", { name: "read-only", scopes: ["read"] });
    readOnly = created.body.key;
    injectKey = (await t.api.createKey("inject")).key;
  });
  afterAll(() => t.close());

  const HOSTILE = 150 * MiB;
  const doors = () =>
    [
      {
        name: "the dashboard sign-in form",
        path: "/dashboard/login",
        token: "none",
        contentType: "application/x-www-form-urlencoded",
        // Any client can claim the dashboard's own origin: the form is then read.
        headers: { origin: t.url },
        head: "token=",
        variable: "MAX_BODY_BYTES",
      },
      {
        name: "A2A message/send with a read-only key",
        path: "/a2a",
        token: readOnly,
        head: '{"jsonrpc":"2.0","id":1,"method":"message/send","params":{"message":{"kind":"message","messageId":"m1","role":"user","parts":[{"kind":"text","text":"',
        tail: '"}]}}}',
        variable: "MAX_BODY_BYTES",
      },
      {
        name: "the proxy's Chat Completions",
        path: "/v1/chat/completions",
        token: injectKey,
        head: '{"model":"m","messages":[{"role":"user","content":"',
        tail: '"}]}',
        variable: "MAX_BODY_BYTES_INJECT",
      },
      {
        name: "REST executions",
        path: "/api/skills/executions",
        token: injectKey,
        head: '{"skillName":"nope","input":{"text":"',
        tail: '"}}',
        variable: "MAX_BODY_BYTES_EXECUTE",
      },
    ] as const;

  it("every door answers 413 while /api/health keeps answering and the heap stays flat", async () => {
    for (const door of doors()) {
      const before = await tableCounts(t);
      const probe = startHealthProbe(t.url);
      const results = await runClient({
        mode: "http-chunked",
        url: t.url,
        path: door.path,
        token: door.token,
        contentType: "contentType" in door ? door.contentType : undefined,
        headers: "headers" in door ? door.headers : undefined,
        head: door.head,
        tail: "tail" in door ? door.tail : "",
        bytes: HOSTILE,
        tries: 1,
      });
      const report = await probe.stop();
      expect([door.name, results[0]!.status, results[0]!.message]).toEqual([
        door.name,
        413,
        expect.stringContaining(`(${door.variable})`),
      ]);
      // A body read whole would add 150 MB of string to the heap; the limit keeps it near idle.
      expectApiAvailable(report, { label: door.name });
      expect([door.name, await tableCounts(t)]).toEqual([door.name, before]);
    }
  });
});
