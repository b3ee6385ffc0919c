/**
 * HTTP rules of `/mcp` that sit in front of the JSON-RPC handling (docs/mcp.md#transport):
 * - which `Origin` may call the endpoint (MCP specification 2025-11-25, "Transports" →
 *   "Security Warning": servers validate `Origin` against DNS rebinding and answer 403);
 * - which answer format an `Accept` header allows (RFC 9110 §12.5.1: media ranges with q-values,
 *   wildcards included);
 * - which protocol version a POST speaks, and whether that version allows JSON-RPC batches
 *   (2025-03-26 defined them; 2025-06-18 removed them).
 */
import { parseAccept } from "hono/utils/accept";

/** Host names that only ever name the machine itself (DNS cannot rebind a page onto them). */
const LOOPBACK_HOSTS = new Set(["localhost", "127.0.0.1", "[::1]"]);

/** The host name of a `Host` header value (`name[:port]`, `[v6][:port]`), lower-cased. */
function hostnameOfHostHeader(host: string): string {
  const h = host.trim().toLowerCase();
  if (h.startsWith("[")) return h.slice(0, h.indexOf("]") + 1);
  const colon = h.indexOf(":");
  return colon === -1 ? h : h.slice(0, colon);
}

function isLoopbackName(name: string): boolean {
  return LOOPBACK_HOSTS.has(name) || name.endsWith(".localhost");
}

/**
 * Whether a request with this `Origin` and `Host` may use `/mcp` (docs/mcp.md#origin-and-host).
 * - No `Origin` (a non-browser client): allowed. Browsers send `Origin` on every POST, so a
 *   page rebound onto the server always shows its own origin.
 * - `allowed` holds `*`, or the exact origin (`scheme://host[:port]`): allowed.
 * - A loopback origin (`localhost`, `127.0.0.1`, `[::1]`) is allowed when the `Host` is a loopback
 *   name too: a local browser client (an inspector on another port) reaching a local server.
 * - Anything else, `Origin: null` included, is refused.
 * @param origin the `Origin` header or undefined; @param host the `Host` header or undefined;
 * @param allowed origins from the configuration (`MCP_ALLOWED_ORIGINS`, `CORS_ALLOWED_ORIGINS`,
 *   the origin of `PUBLIC_BASE_URL`).
 */
export function mcpOriginAllowed(
  origin: string | undefined,
  host: string | undefined,
  allowed: readonly string[],
): boolean {
  if (origin === undefined) return true;
  if (allowed.includes("*")) return true;
  let url: URL;
  try {
    url = new URL(origin);
  } catch {
    return false;
  }
  // An opaque origin (`null`, `file:`, a sandboxed frame) is never trusted.
  if (url.origin === "null") return false;
  if (allowed.includes(url.origin)) return true;
  const originHost = url.hostname.toLowerCase();
  return (
    isLoopbackName(originHost) && host !== undefined && isLoopbackName(hostnameOfHostHeader(host))
  );
}

/** Answer formats of a POST: a JSON body, or one SSE event carrying the same message. */
export type AnswerFormat = "json" | "sse";

/** The q-value `accepts` gives `type` (`a/b`): the most specific matching range decides. */
function qualityOf(accepts: ReturnType<typeof parseAccept>, type: string): number {
  const [major] = type.split("/");
  let best: { specificity: number; q: number } | undefined;
  for (const a of accepts) {
    const range = a.type.toLowerCase();
    const specificity =
      range === type ? 3 : range === `${major}/*` ? 2 : range === "*/*" || range === "*" ? 1 : 0;
    if (specificity === 0) continue;
    if (!best || specificity > best.specificity) best = { specificity, q: a.q };
  }
  return best?.q ?? 0;
}

/**
 * The format an `Accept` header allows for an answer: JSON when `application/json` is acceptable
 * (exactly, as `application/*` or as `*\/*`; an absent header accepts anything), else SSE when
 * `text/event-stream` is, else undefined (406).
 * @param header the `Accept` header or undefined (RFC 9110 §12.5.1).
 */
export function answerFormat(header: string | undefined): AnswerFormat | undefined {
  if (header === undefined || header.trim() === "") return "json";
  const accepts = parseAccept(header);
  if (qualityOf(accepts, "application/json") > 0) return "json";
  if (qualityOf(accepts, "text/event-stream") > 0) return "sse";
  return undefined;
}

/** Protocol versions that use the `initialize` handshake, newest first (the SDK's list). */
export const LEGACY_VERSIONS = [
  "2025-11-25",
  "2025-06-18",
  "2025-03-26",
  "2024-11-05",
  "2024-10-07",
] as const;

/** Version of a POST without `MCP-Protocol-Version` (Transports 2025-06-18: assume 2025-03-26). */
export const DEFAULT_LEGACY_VERSION = "2025-03-26";

/** Whether a (legacy) version lets a POST carry a JSON-RPC batch: 2025-03-26 and earlier. */
export function batchesAllowed(version: string): boolean {
  return version <= "2025-03-26";
}

/**
 * The version a legacy POST speaks: its `MCP-Protocol-Version` header; else, for a body holding
 * an `initialize`, the version that `initialize` negotiates (the one it asks for when known, else
 * the newest); else {@link DEFAULT_LEGACY_VERSION}.
 */
export function legacyVersionOf(header: string | undefined, messages: readonly unknown[]): string {
  if (header) return header;
  for (const m of messages) {
    const msg = m as { method?: unknown; params?: { protocolVersion?: unknown } } | null;
    if (msg?.method !== "initialize") continue;
    const asked = msg.params?.protocolVersion;
    return typeof asked === "string" && (LEGACY_VERSIONS as readonly string[]).includes(asked)
      ? asked
      : LEGACY_VERSIONS[0];
  }
  return DEFAULT_LEGACY_VERSION;
}
