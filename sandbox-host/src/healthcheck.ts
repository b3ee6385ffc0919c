/**
 * Health check of a running sandbox host, for container and service managers (Docker
 * `HEALTHCHECK`, compose, systemd): `node --import tsx sandbox-host/src/healthcheck.ts`.
 * Reads the host's own configuration from the environment (config.ts), signs `GET /v1/health`
 * with the current secret like any caller, and exits 0 when the host answers and reaches its
 * Docker engine, 1 otherwise. Prints one line, which names the configured images the engine does
 * not hold (a missing image is pulled by the first run that needs it, so it does not make the
 * host unhealthy; docs/sandbox.md#health); never prints the secret.
 */
import { pathToFileURL } from "node:url";
import type { SandboxHealth } from "@skillgate/sandbox-protocol";
import { signRequest } from "@skillgate/sandbox-protocol";
import { parseHostConfig } from "./config.js";

/** Time allowed for the health answer, in ms. */
const TIMEOUT_MS = 5_000;

/** The address to reach a host listening on `host` from the same machine. */
export function loopbackFor(host: string): string {
  if (host === "0.0.0.0" || host === "") return "127.0.0.1";
  if (host === "::") return "[::1]";
  return host.includes(":") ? `[${host}]` : host;
}

async function check(): Promise<string> {
  const config = parseHostConfig(process.env);
  const [keyId, secret] = config.keys.entries().next().value as [string, string];
  const path = "/v1/health";
  const headers = await signRequest({ method: "GET", url: path, keyId, secret });
  const res = await fetch(`http://${loopbackFor(config.host)}:${config.port}${path}`, {
    headers,
    signal: AbortSignal.timeout(TIMEOUT_MS),
  });
  if (res.status !== 200) throw new Error(`the host answered ${res.status}`);
  const health = (await res.json()) as SandboxHealth;
  if (!health.docker) throw new Error("the host cannot reach its Docker engine");
  return `ok: ${health.running} running, ${health.queued} queued${missingImages(health)}`;
}

/**
 * `; images missing: browser (skillgate-local/browser:latest), ...` for the images health reports
 * absent from the engine, or "" when none is (or a host of an older version does not say).
 */
export function missingImages(health: SandboxHealth): string {
  const images: Record<string, string | undefined> = health.images;
  const missing = Object.entries(health.imagesPresent ?? {})
    .filter(([, present]) => present === false)
    .map(([kind]) => `${kind} (${images[kind] ?? "?"})`);
  return missing.length > 0 ? `; images missing: ${missing.join(", ")}` : "";
}

const isMain =
  process.argv[1] !== undefined && import.meta.url === pathToFileURL(process.argv[1]).href;
if (isMain) {
  check().then(
    (line) => {
      process.stdout.write(`${line}\n`);
      process.exit(0);
    },
    (err: Error) => {
      process.stdout.write(`unhealthy: ${err.message}\n`);
      process.exit(1);
    },
  );
}
