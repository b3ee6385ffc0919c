/**
 * HTTP handlers (docs/custom-skills.md#http-handlers): a skill installed with
 * `handler: { type: "http", url, method }` sends its input as JSON to the operator's endpoint and
 * takes the answer as output. Each request is signed with the skill's Standard Webhooks secret;
 * the execution and session ids travel in headers. Only origins on the operator's allowlist
 * (`SKILLS_HTTP_HANDLER_ALLOWLIST`) are called, checked at install and again at every call.
 */
import { ExecutionFailure } from "../../errors.js";
import { parseJsonOutput } from "../execution/execution-attempt.js";
import type { HandlerContext, HttpHandlerSpec, SkillHandler } from "../types.js";
import { signWebhook } from "./webhook-signing.js";

/** Name under which the executor runs every HTTP-handler skill. */
export const HTTP_HANDLER_NAME = "http-handler";

/** Characters of a non-2xx answer's body kept in the error message. */
export const ERROR_BODY_CHARS = 1_000;

/** Headers of a handler request besides the Standard Webhooks ones. */
export const HANDLER_HEADERS = {
  executionId: "skillgate-execution-id",
  sessionId: "skillgate-session-id",
  attempt: "skillgate-attempt",
  skill: "skillgate-skill",
} as const;

/** Options of {@link createHttpHandler}. */
export interface HttpHandlerOptions {
  /** fetch of operator upstreams (not the public-only guard: endpoints may be private). */
  fetch: typeof fetch;
  /** Allowed origins (`scheme://host[:port]`), from `SKILLS_HTTP_HANDLER_ALLOWLIST`. */
  allowlist: readonly string[];
  /** Largest answer body in bytes; a longer one fails the execution (`response_too_large`). */
  maxResponseBytes: number;
  /** The stored signing secret of a skill, or null when it has none. */
  secretFor: (skillId: string) => Promise<string | null>;
  /** Clock in ms. */
  clock?: () => number;
}

/**
 * True when `url` is an absolute http(s) URL whose origin is on `allowlist` (origins compared
 * after URL normalisation, so `HTTP://Example.com:80` matches `http://example.com`).
 */
export function originAllowed(url: string, allowlist: readonly string[]): boolean {
  let origin: string;
  try {
    const u = new URL(url);
    if (u.protocol !== "http:" && u.protocol !== "https:") return false;
    if (u.username || u.password) return false;
    origin = u.origin;
  } catch {
    return false;
  }
  return allowlist.some((entry) => {
    try {
      return new URL(entry).origin === origin;
    } catch {
      return false;
    }
  });
}

/**
 * Seconds of a `Retry-After` header (delta-seconds or an HTTP date), or undefined when absent
 * or unreadable (RFC 9110 §10.2.3).
 */
export function parseRetryAfter(value: string | null, nowMs: number): number | undefined {
  if (value === null || value.trim() === "") return undefined;
  const v = value.trim();
  if (/^\d+$/.test(v)) return Number(v);
  const at = Date.parse(v);
  if (Number.isNaN(at)) return undefined;
  return Math.max(0, Math.ceil((at - nowMs) / 1000));
}

/**
 * Reads a body of at most `maxBytes` bytes as UTF-8 text; stops reading and returns null as soon
 * as it is longer.
 */
export async function readCapped(res: Response, maxBytes: number): Promise<string | null> {
  if (!res.body) return "";
  const reader = res.body.getReader();
  const chunks: Uint8Array[] = [];
  let size = 0;
  for (;;) {
    const { done, value } = await reader.read();
    if (done) break;
    size += value.byteLength;
    if (size > maxBytes) {
      await reader.cancel().catch(() => {});
      return null;
    }
    chunks.push(value);
  }
  const all = new Uint8Array(size);
  let at = 0;
  for (const c of chunks) {
    all.set(c, at);
    at += c.byteLength;
  }
  return new TextDecoder().decode(all);
}

function specOf(ctx: HandlerContext): HttpHandlerSpec {
  const spec = ctx.skill.handler;
  if (spec?.type !== "http") {
    throw new ExecutionFailure(`Skill ${ctx.skill.name} has no HTTP handler`, {
      code: "handler_misconfigured",
    });
  }
  return spec;
}

/**
 * Builds the handler of every HTTP-handler skill. Output: the answer's JSON, or its text when it
 * is not JSON (null for an empty body). Errors (ExecutionFailure): `url_not_allowed` when the
 * origin left the allowlist; `secret_missing` (fail closed); `http_error` with the status and at
 * most {@link ERROR_BODY_CHARS} characters of the body, retryable for 429 and 5xx with the
 * answer's Retry-After; `endpoint_unreachable` (retryable) when the request fails;
 * `response_too_large`; `redirect_refused` for 3xx (redirects are not followed).
 */
export function createHttpHandler(opts: HttpHandlerOptions): SkillHandler {
  const clock = opts.clock ?? Date.now;
  return async (input, ctx) => {
    const spec = specOf(ctx);
    if (!originAllowed(spec.url, opts.allowlist)) {
      throw new ExecutionFailure(
        `The origin of ${spec.url} is not on SKILLS_HTTP_HANDLER_ALLOWLIST`,
        { code: "url_not_allowed" },
      );
    }
    const secret = await opts.secretFor(ctx.skill.id);
    if (!secret) {
      throw new ExecutionFailure(`Skill ${ctx.skill.name} has no signing secret`, {
        code: "secret_missing",
      });
    }
    const body = JSON.stringify(input ?? null);
    const timestampS = Math.floor(clock() / 1000);
    const headers: Record<string, string> = {
      "content-type": "application/json",
      accept: "application/json",
      "webhook-id": ctx.executionId,
      "webhook-timestamp": String(timestampS),
      "webhook-signature": await signWebhook(secret, ctx.executionId, timestampS, body),
      [HANDLER_HEADERS.executionId]: ctx.executionId,
      [HANDLER_HEADERS.attempt]: String(ctx.attempt),
      [HANDLER_HEADERS.skill]: `${ctx.skill.name}@${ctx.skill.version}`,
    };
    if (ctx.sessionId) headers[HANDLER_HEADERS.sessionId] = ctx.sessionId;
    let res: Response;
    try {
      res = await opts.fetch(spec.url, {
        method: spec.method,
        headers,
        body,
        redirect: "manual",
        signal: ctx.signal,
      });
    } catch (err) {
      if (ctx.signal.aborted) throw err;
      throw new ExecutionFailure(`HTTP handler endpoint unreachable: ${(err as Error).message}`, {
        code: "endpoint_unreachable",
        retryable: true,
      });
    }
    if (res.status >= 300 && res.status < 400) {
      await res.body?.cancel().catch(() => {});
      throw new ExecutionFailure(
        `HTTP handler answered ${res.status} (redirects are not followed)`,
        { code: "redirect_refused" },
      );
    }
    const text = await readCapped(res, opts.maxResponseBytes);
    if (!res.ok) {
      const excerpt = (text ?? "").slice(0, ERROR_BODY_CHARS);
      const retryable = res.status === 429 || res.status >= 500;
      throw new ExecutionFailure(
        `HTTP handler answered ${res.status}${excerpt ? `: ${excerpt}` : ""}`,
        {
          code: "http_error",
          retryable,
          retryAfterS: retryable
            ? parseRetryAfter(res.headers.get("retry-after"), clock())
            : undefined,
          output: { status: res.status, body: excerpt },
        },
      );
    }
    if (text === null) {
      throw new ExecutionFailure(
        `HTTP handler answer is longer than ${opts.maxResponseBytes} bytes (SKILLS_HTTP_HANDLER_MAX_RESPONSE_BYTES)`,
        { code: "response_too_large" },
      );
    }
    if (text.trim() === "") return null;
    return parseJsonOutput(text);
  };
}
