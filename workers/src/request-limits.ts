/**
 * Request limits of the REST API, applied before any body is parsed:
 * - body size per route (`MAX_BODY_BYTES_EXECUTE`, `MAX_BODY_BYTES_INJECT`,
 *   `MAX_BODY_BYTES_INTERCEPT`, `MAX_BODY_BYTES` for every other route): a larger body answers
 *   413 `payload_too_large`, and nothing is written. A declared `Content-Length` over the limit is
 *   refused without reading; every body, declared or chunked, is then read through Hono's
 *   `bodyLimit`, which counts the bytes received and stops at the limit (a declared length is not
 *   trusted: a caller inside workerd can send more than it declares);
 * - nesting depth of a JSON body (`MAX_JSON_DEPTH`): deeper answers 400 `json_too_deep`, checked
 *   on the raw text before validation or any recursive code runs.
 * The numbers are documented in the README's configuration table.
 */
import type { MiddlewareHandler } from "hono";
import { bodyLimit } from "hono/body-limit";
import type { Config } from "./config.js";
import { InvalidInputError, PayloadTooLargeError } from "./errors.js";
import { jsonDepthExceeds } from "./json-depth.js";

type LimitVariable =
  | "MAX_BODY_BYTES"
  | "MAX_BODY_BYTES_EXECUTE"
  | "MAX_BODY_BYTES_INJECT"
  | "MAX_BODY_BYTES_INTERCEPT";

/** Routes with a limit of their own: `METHOD path` → configuration variable. */
const ROUTE_LIMITS: Record<string, LimitVariable> = {
  "POST /api/skills/executions": "MAX_BODY_BYTES_EXECUTE",
  "POST /api/skills/inject": "MAX_BODY_BYTES_INJECT",
  "POST /api/skills/intercept": "MAX_BODY_BYTES_INTERCEPT",
};

/** Media types parsed as JSON (as Hono's validator: `application/json`, `application/*+json`). */
const JSON_MEDIA_TYPE = /^application\/([\w.-]+\+)?json$/i;

/**
 * The body limit of a request, in bytes, and the variable that sets it.
 * @param method HTTP method; @param path request path.
 */
export function bodyLimitFor(
  config: Config,
  method: string,
  path: string,
): { bytes: number; variable: LimitVariable } {
  const variable = ROUTE_LIMITS[`${method.toUpperCase()} ${path}`] ?? "MAX_BODY_BYTES";
  return { bytes: config[variable], variable };
}

function tooLarge(bytes: number, variable: LimitVariable): PayloadTooLargeError {
  return new PayloadTooLargeError(
    `Request body is larger than ${bytes} bytes, the limit of this route (${variable})`,
    { maxBytes: bytes },
  );
}

/**
 * Middleware enforcing the body size and JSON depth limits (see the module docstring).
 * @throws PayloadTooLargeError (413) past the size limit; InvalidInputError `json_too_deep` (400)
 *   past the depth limit.
 */
export function requestLimits(config: Config): MiddlewareHandler {
  const limiters = new Map<LimitVariable, MiddlewareHandler>();
  const limiterFor = (variable: LimitVariable, bytes: number): MiddlewareHandler => {
    let limiter = limiters.get(variable);
    if (!limiter) {
      limiter = bodyLimit({
        maxSize: bytes,
        onError: () => {
          throw tooLarge(bytes, variable);
        },
      });
      limiters.set(variable, limiter);
    }
    return limiter;
  };
  return async (c, next) => {
    if (!c.req.raw.body) return next();
    const { bytes, variable } = bodyLimitFor(config, c.req.method, c.req.path);
    const declared = c.req.raw.headers.get("content-length");
    if (declared !== null) {
      if (Number(declared) > bytes) throw tooLarge(bytes, variable);
      // A declared length is a claim: a caller in the same runtime (a service binding) can send
      // more bytes than it declares. Without it, the limiter counts the bytes actually read.
      const headers = new Headers(c.req.raw.headers);
      headers.delete("content-length");
      c.req.raw = new Request(c.req.raw, { headers });
    }
    // Awaited (not returned) so a refusal thrown synchronously by the limiter is handled at once.
    await limiterFor(variable, bytes)(c, async () => {
      const mediaType = (c.req.header("content-type") ?? "").split(";")[0]!.trim();
      if (JSON_MEDIA_TYPE.test(mediaType)) {
        // Cached by Hono: the validator parses this same text afterwards.
        const text = await c.req.text();
        if (jsonDepthExceeds(text, config.MAX_JSON_DEPTH)) {
          throw new InvalidInputError(
            `JSON body is nested deeper than ${config.MAX_JSON_DEPTH} levels (MAX_JSON_DEPTH)`,
            { maxDepth: config.MAX_JSON_DEPTH },
            "json_too_deep",
          );
        }
      }
      await next();
    });
  };
}
