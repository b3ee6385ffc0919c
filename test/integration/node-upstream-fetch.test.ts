/**
 * The Node fetch of upstream LLM calls (workers/src/runtime/node/upstream-fetch.ts) against real
 * HTTP servers on 127.0.0.1: request and response pass through as they are, streamed bytes reach
 * the reader before the upstream ends its answer, connections are kept alive, aborts and
 * unreachable upstreams fail as the platform fetch does.
 */
import { createServer, type IncomingMessage, type Server, type ServerResponse } from "node:http";
import type { AddressInfo } from "node:net";
import { afterEach, describe, expect, it } from "vitest";
import { createNodeUpstreamFetch } from "../../workers/src/runtime/node/upstream-fetch.js";

type Handler = (req: IncomingMessage, res: ServerResponse, body: string) => void;

const servers: Server[] = [];
afterEach(async () => {
  for (const s of servers.splice(0)) {
    s.closeAllConnections();
    await new Promise<void>((r) => s.close(() => r()));
  }
});

async function serve(handler: Handler): Promise<string> {
  const server = createServer((req, res) => {
    let body = "";
    req.setEncoding("utf8");
    req.on("data", (c: string) => {
      body += c;
    });
    req.on("end", () => handler(req, res, body));
  });
  servers.push(server);
  await new Promise<void>((r) => server.listen(0, "127.0.0.1", () => r()));
  return `http://127.0.0.1:${(server.address() as AddressInfo).port}`;
}

describe("createNodeUpstreamFetch", () => {
  it("sends method, headers and body, and returns status, headers and body", async () => {
    let seen: { method?: string; auth?: string; length?: string; body?: string } = {};
    const url = await serve((req, res, body) => {
      seen = {
        method: req.method,
        auth: req.headers.authorization,
        length: req.headers["content-length"],
        body,
      };
      res.writeHead(418, { "content-type": "application/json", "x-upstream": "yes" });
      res.end('{"error":"teapot"}');
    });
    const f = createNodeUpstreamFetch();
    const payload = JSON.stringify({ text: "héllo" });
    const res = await f(`${url}/v1/chat/completions`, {
      method: "POST",
      headers: new Headers({ authorization: "Bearer up-key", "content-type": "application/json" }),
      body: payload,
    });
    expect(res.status).toBe(418);
    expect(res.ok).toBe(false);
    expect(res.headers.get("x-upstream")).toBe("yes");
    expect(await res.json()).toEqual({ error: "teapot" });
    expect(seen).toEqual({
      method: "POST",
      auth: "Bearer up-key",
      length: String(Buffer.byteLength(payload)),
      body: payload,
    });
  });

  it("hands on streamed bytes before the upstream ends its answer", async () => {
    let finish!: () => void;
    const url = await serve((_req, res) => {
      res.writeHead(200, { "content-type": "text/event-stream" });
      res.write("data: first\n\n");
      finish = () => res.end("data: last\n\n");
    });
    const res = await createNodeUpstreamFetch()(url, { method: "POST", body: "{}" });
    const reader = res.body!.getReader();
    const decoder = new TextDecoder();
    // The upstream has not ended: this read can only complete with the bytes already sent.
    const first = await reader.read();
    expect(decoder.decode(first.value)).toBe("data: first\n\n");
    finish();
    let rest = "";
    for (;;) {
      const { done, value } = await reader.read();
      if (done) break;
      rest += decoder.decode(value, { stream: true });
    }
    expect(rest).toBe("data: last\n\n");
  });

  it("reuses one kept-alive connection for consecutive calls", async () => {
    const ports: number[] = [];
    const url = await serve((req, res) => {
      ports.push(req.socket.remotePort ?? -1);
      res.end("ok");
    });
    const f = createNodeUpstreamFetch();
    for (let i = 0; i < 3; i++) {
      const res = await f(url, { method: "POST", body: String(i) });
      expect(await res.text()).toBe("ok");
    }
    expect(ports).toHaveLength(3);
    expect(new Set(ports).size).toBe(1);
  });

  it("aborting mid-stream fails the body's reader with the reason and closes the connection", async () => {
    let closed!: Promise<void>;
    const url = await serve((_req, res) => {
      closed = new Promise((r) => res.on("close", () => r()));
      res.writeHead(200, { "content-type": "text/event-stream" });
      res.write("data: first\n\n");
    });
    const abort = new AbortController();
    const res = await createNodeUpstreamFetch()(url, {
      method: "POST",
      body: "{}",
      signal: abort.signal,
    });
    const reader = res.body!.getReader();
    expect((await reader.read()).done).toBe(false);
    const reason = new Error("client went away");
    abort.abort(reason);
    await expect(reader.read()).rejects.toBe(reason);
    await closed;
  });

  it("rejects with the reason when aborted before the answer", async () => {
    const url = await serve(() => {
      // never answers
    });
    const abort = new AbortController();
    const pending = createNodeUpstreamFetch()(url, {
      method: "POST",
      body: "{}",
      signal: abort.signal,
    });
    const reason = new Error("budget spent");
    setTimeout(() => abort.abort(reason), 20);
    await expect(pending).rejects.toBe(reason);
  });

  it("rejects with a TypeError when the upstream cannot be reached", async () => {
    const url = await serve((_req, res) => res.end());
    const port = new URL(url).port;
    const s = servers.pop()!;
    await new Promise<void>((r) => s.close(() => r()));
    const err = await createNodeUpstreamFetch()(`http://127.0.0.1:${port}/`, {
      method: "POST",
      body: "{}",
    }).catch((e: unknown) => e);
    expect(err).toBeInstanceOf(TypeError);
    expect((err as TypeError).message).toBe("fetch failed");
    expect(((err as TypeError).cause as NodeJS.ErrnoException).code).toBe("ECONNREFUSED");
  });
});
