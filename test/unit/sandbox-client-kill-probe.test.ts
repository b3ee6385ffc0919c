/**
 * The sandbox client's question after a run's connection broke before the acknowledgement
 * (docs/sandbox.md#at-most-once): a kill whose own connection is reset proves nothing, so it is
 * asked again, and only a refused connection or a `started: false` answer lets the run be sent
 * again. Real client, real TCP: a fake host that resets the connections it accepted, the way a
 * host process killed with SIGKILL does before its port refuses new ones.
 */
import { createServer, type Server, type Socket } from "node:net";
import { afterEach, describe, expect, it } from "vitest";
import { ExecutionFailure } from "../../workers/src/errors.js";
import { createSandboxClient, NEVER_STARTED_PROBES } from "../../workers/src/sandbox/client.js";

/** What the fake host does with the kills it gets, in order (past the list: the last again). */
type KillAnswer = "reset" | "refuse-after-reset" | "not-started" | "unknown";

interface FakeHost {
  url: string;
  /** Request lines of the kills that reached the host. */
  kills: string[];
  /** Resolves once the run's request has arrived. */
  runArrived: Promise<Socket>;
  server: Server;
}

/** Sends a JSON answer on `socket` and ends it. */
function answer(socket: Socket, body: unknown): void {
  const text = JSON.stringify(body);
  socket.end(
    `HTTP/1.1 200 OK\r\ncontent-type: application/json\r\ncontent-length: ${Buffer.byteLength(text)}\r\nconnection: close\r\n\r\n${text}`,
  );
}

async function fakeHost(killAnswers: KillAnswer[]): Promise<FakeHost> {
  const kills: string[] = [];
  let arrived!: (s: Socket) => void;
  const runArrived = new Promise<Socket>((r) => (arrived = r));
  const server = createServer((socket) => {
    let head = "";
    socket.on("error", () => {});
    socket.on("data", (chunk) => {
      head += chunk.toString("latin1");
      if (!head.includes("\r\n\r\n")) return;
      const line = head.slice(0, head.indexOf("\r\n"));
      head = "";
      if (line.startsWith("POST /v1/run")) return arrived(socket);
      if (!line.startsWith("POST /v1/kill/")) return socket.destroy();
      kills.push(line);
      const what = killAnswers[Math.min(kills.length, killAnswers.length) - 1]!;
      if (what === "not-started") return answer(socket, { killed: true, started: false });
      if (what === "unknown") return answer(socket, { killed: false });
      // The process goes: every later connection is refused once the listener is closed.
      if (what === "refuse-after-reset") server.close();
      socket.resetAndDestroy();
    });
  });
  await new Promise<void>((r) => server.listen(0, "127.0.0.1", r));
  const port = (server.address() as { port: number }).port;
  return { url: `http://127.0.0.1:${port}`, kills, runArrived, server };
}

/** Starts a run on `host`, resets its connection once it arrived, and returns its failure. */
async function brokenRun(host: FakeHost): Promise<ExecutionFailure> {
  const client = createSandboxClient({ baseUrl: host.url, secret: "s".repeat(32) });
  const run = client.run({ language: "python", code: "print(1)", timeoutMs: 1_000 }).then(
    () => undefined,
    (err: unknown) => err,
  );
  (await host.runArrived).resetAndDestroy();
  const err = await run;
  expect(err).toBeInstanceOf(ExecutionFailure);
  return err as ExecutionFailure;
}

describe("after a run's connection broke before the acknowledgement", () => {
  let host: FakeHost | undefined;
  afterEach(async () => {
    const server = host?.server;
    host = undefined;
    if (server?.listening) await new Promise<void>((r) => server.close(() => r()));
  });

  it("a kill reset by a dying host is asked again; the refusal that follows proves no start", async () => {
    host = await fakeHost(["refuse-after-reset"]);
    const f = await brokenRun(host);
    expect({ code: f.code, notStarted: f.notStarted, retryable: f.retryable }).toEqual({
      code: "sandbox_unavailable",
      notStarted: true,
      retryable: true,
    });
    expect(host.kills).toHaveLength(1);
    expect(host.server.listening).toBe(false);
  });

  it("a kill reset once, then answered started: false, proves no start", async () => {
    host = await fakeHost(["reset", "not-started"]);
    const f = await brokenRun(host);
    expect({ code: f.code, notStarted: f.notStarted }).toEqual({
      code: "sandbox_unavailable",
      notStarted: true,
    });
    expect(host.kills).toHaveLength(2);
  });

  it("a kill reset once, then answered for an unknown run, leaves the outcome unknown", async () => {
    host = await fakeHost(["reset", "unknown"]);
    const f = await brokenRun(host);
    expect({ code: f.code, notStarted: f.notStarted, retryable: f.retryable }).toEqual({
      code: "sandbox_outcome_unknown",
      notStarted: false,
      retryable: false,
    });
    expect(host.kills).toHaveLength(2);
  });

  it("kills reset every time are asked a bounded number of times, then the outcome is unknown", async () => {
    host = await fakeHost(["reset"]);
    const f = await brokenRun(host);
    expect({ code: f.code, notStarted: f.notStarted }).toEqual({
      code: "sandbox_outcome_unknown",
      notStarted: false,
    });
    expect(host.kills).toHaveLength(NEVER_STARTED_PROBES);
  });
});
