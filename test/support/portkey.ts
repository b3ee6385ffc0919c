/**
 * The Portkey AI gateway (npm `@portkey-ai/gateway`, a TypeScript LLM gateway) run locally as a
 * child process on 127.0.0.1, for tests that chain Skillgate with a real gateway in front of it
 * or behind it. Portkey routes a request by its own headers: `x-portkey-provider` (openai,
 * anthropic, google…) and `x-portkey-custom-host` (the provider's base URL to call instead of the
 * public one).
 */
import { type ChildProcess, spawn } from "node:child_process";
import { createRequire } from "node:module";
import { createServer } from "node:net";
import { dirname, join } from "node:path";

/** A running gateway. */
export interface Portkey {
  /** `http://127.0.0.1:<port>` */
  url: string;
  close(): Promise<void>;
}

async function freePort(): Promise<number> {
  const server = createServer();
  await new Promise<void>((r) => server.listen(0, "127.0.0.1", () => r()));
  const port = (server.address() as { port: number }).port;
  await new Promise<void>((r) => server.close(() => r()));
  return port;
}

/** Starts the gateway (headless, no UI) and waits until it answers. */
export async function startPortkey(): Promise<Portkey> {
  const require = createRequire(import.meta.url);
  const root = dirname(require.resolve("@portkey-ai/gateway/package.json"));
  const port = await freePort();
  const child: ChildProcess = spawn(
    process.execPath,
    [join(root, "build/start-server.js"), `--port=${port}`, "--headless"],
    { stdio: ["ignore", "ignore", "pipe"], env: { ...process.env, NODE_ENV: "production" } },
  );
  let stderr = "";
  child.stderr?.on("data", (d) => {
    stderr = (stderr + String(d)).slice(-4000);
  });
  const url = `http://127.0.0.1:${port}`;
  const deadline = Date.now() + 30_000;
  for (;;) {
    if (child.exitCode !== null) throw new Error(`Portkey exited: ${stderr}`);
    const up = await fetch(url, { signal: AbortSignal.timeout(1000) }).then(
      () => true,
      () => false,
    );
    if (up) break;
    if (Date.now() > deadline) {
      child.kill("SIGKILL");
      throw new Error(`Portkey did not start within 30 s: ${stderr}`);
    }
    await new Promise((r) => setTimeout(r, 100));
  }
  return {
    url,
    close: async () => {
      if (child.exitCode !== null) return;
      const exited = new Promise((r) => child.once("exit", r));
      child.kill("SIGTERM");
      await Promise.race([exited, new Promise((r) => setTimeout(r, 3000))]);
      if (child.exitCode === null) child.kill("SIGKILL");
    },
  };
}
