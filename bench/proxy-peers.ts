/**
 * The proxy benchmark's outside world (docs/proxy.md#cost): the scripted upstream LLM (Chat
 * Completions wire format) and the client that times requests to it directly, through the proxy
 * and through the bare pass-through. The client is Node's HTTP client on kept-alive connections:
 * the platform `fetch` promotes about 27 KB per request out of V8's young generation, which in
 * the proxy's heap lengthened its collector pauses and so the tail being measured.
 *
 * {@link startPeers} runs them in the calling process, or forks this module as a process of its
 * own (as in deployment, where the proxy shares its heap and event loop with neither), driven
 * over the IPC channel:
 * - the child sends `{ type: "ready", upstream }` (the upstream's base URL, ending in `/v1`);
 * - `{ type: "targets", proxy, floor, key }` sets the two other base URLs and the proxy's key;
 * - `{ type: "run", id, op }` runs one request ({@link PeerOp}) and answers
 *   `{ type: "done", id, ms }`: the whole request for JSON operations, the time to the first
 *   `data:` event for streamed ones (whose rest is then read to its end, as clients do, so
 *   connections are reused); `{ type: "failed", id, message }` when it failed;
 * - `{ type: "close" }` stops the upstream and ends the process.
 */
import { fork } from "node:child_process";
import { Agent, request } from "node:http";
import { fileURLToPath } from "node:url";
import { startScriptedLlm } from "../test/support/fakes/llm-script.js";
import { textTurn, toolResults, toolTurn } from "../test/support/proxy-fixtures.js";
import { sseOf } from "../test/support/proxy-sse.js";

/** The requests the client can time: a target, JSON (one or two rounds) or a stream. */
export type PeerOp =
  | "direct"
  | "floor"
  | "proxy1"
  | "proxy2"
  | "directStream"
  | "floorStream"
  | "proxyStream";

/** The running peer process, seen from the benchmark. */
export interface Peers {
  /** The upstream's base URL (ending in `/v1`). */
  upstream: string;
  /** Sets the proxy's and the pass-through's base URLs (ending in `/v1`) and the proxy's key. */
  target(proxy: string, floor: string, key: string): void;
  /** Runs `op` in the peer process. @returns its time in ms (see the module docs). */
  run(op: PeerOp): Promise<number>;
  close(): Promise<void>;
}

type FromPeer =
  | { type: "ready"; upstream: string }
  | { type: "done"; id: number; ms: number }
  | { type: "failed"; id: number; message: string };

type ToPeer =
  | { type: "targets"; proxy: string; floor: string; key: string }
  | { type: "run"; id: number; op: PeerOp }
  | { type: "close" };

/**
 * Starts the outside world: in a peer process (this module, forked with the same loader), or,
 * with `inProcess`, in the calling process (one heap and event loop for all three parties).
 */
export async function startPeers(inProcess = false): Promise<Peers> {
  if (inProcess) {
    const world = await startWorld();
    return {
      upstream: world.upstream,
      target: (proxy, floor, key) => Object.assign(world.targets, { proxy, floor, key }),
      run: (op) => world.ops[op](),
      close: () => world.close(),
    };
  }
  const child = fork(fileURLToPath(import.meta.url), ["--peer"], { stdio: "inherit" });
  const waiting = new Map<number, { resolve(ms: number): void; reject(err: Error): void }>();
  let next = 0;
  return new Promise<Peers>((resolve, reject) => {
    child.once("error", reject);
    child.once("exit", (code) => {
      const err = new Error(`the proxy bench's peer process exited (${code})`);
      reject(err);
      for (const w of waiting.values()) w.reject(err);
    });
    child.on("message", (raw) => {
      const msg = raw as FromPeer;
      if (msg.type === "ready") {
        const send = (m: ToPeer) => child.send(m);
        resolve({
          upstream: msg.upstream,
          target: (proxy, floor, key) => send({ type: "targets", proxy, floor, key }),
          run: (op) =>
            new Promise<number>((res, rej) => {
              const id = next++;
              waiting.set(id, { resolve: res, reject: rej });
              send({ type: "run", id, op });
            }),
          close: () =>
            new Promise<void>((res) => {
              child.removeAllListeners("exit");
              child.once("exit", () => res());
              send({ type: "close" });
            }),
        });
        return;
      }
      const w = waiting.get(msg.id);
      waiting.delete(msg.id);
      if (msg.type === "done") w?.resolve(msg.ms);
      else w?.reject(new Error(msg.message));
    });
  });
}

/** The outside world: the scripted upstream and the timing client, in the calling process. */
async function startWorld(): Promise<{
  upstream: string;
  targets: { proxy: string; floor: string; key: string };
  ops: Record<PeerOp, () => Promise<number>>;
  close(): Promise<void>;
}> {
  const llm = await startScriptedLlm(
    (_req, body, n) => {
      const wantsTool = JSON.stringify(body).includes("use the tool");
      const answer =
        wantsTool && toolResults("openai-chat", body).length === 0
          ? toolTurn(
              "openai-chat",
              [{ id: `c${n}`, name: "benchEcho_v1_0_0", args: { q: "x" } }],
              n,
            )
          : textTurn("openai-chat", "done", n);
      return body.stream === true
        ? { kind: "sse", events: sseOf("openai-chat", answer) }
        : { kind: "json", body: answer };
    },
    // A real upstream keeps nothing of a request in this process either.
    { record: false },
  );
  const direct = `${llm.url}/v1`;
  const targets = { proxy: "", floor: "", key: "" };
  // The timing client: Node's HTTP client on kept-alive connections, the leanest instrument
  // (the platform `fetch` allocates several web streams per request; its collector pauses here
  // would count against whichever request they meet).
  const agent = new Agent({ keepAlive: true });
  /**
   * POSTs a chat request to `base` and times it: to the end of the answer (`stream` false), or to
   * its first `data:` line (the first event a client can use), the rest then read to its end.
   */
  const timed = (base: string, auth: string, text: string, stream: boolean) =>
    new Promise<number>((resolve, reject) => {
      const body = JSON.stringify({
        model: "gpt-bench",
        messages: [{ role: "user", content: text }],
        ...(stream ? { stream: true } : {}),
      });
      const t0 = performance.now();
      const req = request(`${base}/chat/completions`, {
        method: "POST",
        agent,
        headers: {
          authorization: `Bearer ${auth}`,
          "content-type": "application/json",
          "content-length": String(Buffer.byteLength(body)),
        },
      });
      req.on("error", reject);
      req.on("response", (res) => {
        let ms: number | undefined;
        let seen = "";
        res.on("data", (chunk: Buffer) => {
          if (ms !== undefined || !stream) {
            if (res.statusCode !== 200) seen += chunk.toString("utf8");
            return;
          }
          seen += chunk.toString("utf8");
          if (/(^|\n)data:/.test(seen)) ms = performance.now() - t0;
        });
        res.on("error", reject);
        res.on("end", () => {
          if (res.statusCode !== 200) reject(new Error(`${base}: ${res.statusCode} ${seen}`));
          else if (!stream) resolve(performance.now() - t0);
          else if (ms === undefined) reject(new Error("stream ended before its first event"));
          else resolve(ms);
        });
      });
      req.end(body);
    });
  const json = (base: string, auth: string, text: string) => timed(base, auth, text, false);
  const streamed = (base: string, auth: string) => timed(base, auth, "hello", true);
  const ops: Record<PeerOp, () => Promise<number>> = {
    direct: () => json(direct, "x", "hello"),
    floor: () => json(targets.floor, "x", "hello"),
    proxy1: () => json(targets.proxy, targets.key, "hello"),
    proxy2: () => json(targets.proxy, targets.key, "use the tool"),
    directStream: () => streamed(direct, "x"),
    floorStream: () => streamed(targets.floor, "x"),
    proxyStream: () => streamed(targets.proxy, targets.key),
  };
  return {
    upstream: direct,
    targets,
    ops,
    close: async () => {
      agent.destroy();
      await llm.close();
    },
  };
}

/** The peer process: the outside world, driven over the IPC channel (see the module docs). */
async function runPeer(): Promise<void> {
  const world = await startWorld();
  const send = (m: FromPeer) => process.send!(m);
  process.on("message", (raw) => {
    const msg = raw as ToPeer;
    if (msg.type === "targets") Object.assign(world.targets, msg);
    else if (msg.type === "run")
      world.ops[msg.op]().then(
        (ms) => send({ type: "done", id: msg.id, ms }),
        (err: unknown) => send({ type: "failed", id: msg.id, message: String(err) }),
      );
    else void world.close().then(() => process.exit(0));
  });
  send({ type: "ready", upstream: world.upstream });
}

if (process.argv.includes("--peer") && process.send) void runPeer();
