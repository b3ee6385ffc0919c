/**
 * Request ids (docs/api.md#request-ids): every answer carries `x-request-id`. A client's own id is
 * kept when it is valid — 1 to {@link REQUEST_ID_MAX_CHARS} characters of `A–Z a–z 0–9 _ - =`
 * (Hono's request-id middleware rule) — and replaced by a fresh UUID otherwise. The id is the
 * current request context for everything the request runs (log lines, execution rows).
 */
import type { MiddlewareHandler } from "hono";
import { requestId } from "hono/request-id";
import {
  REQUEST_ID_HEADER,
  REQUEST_ID_MAX_CHARS,
  runInRequestContext,
} from "../telemetry/request-context.js";

/**
 * Middleware: picks the request id, answers it in `x-request-id` on every response (errors,
 * streams and passed-through upstream answers too) and runs the rest of the request in its
 * context.
 */
export function requestIds(): MiddlewareHandler {
  const pick = requestId({ headerName: REQUEST_ID_HEADER, limitLength: REQUEST_ID_MAX_CHARS });
  return (c, next) =>
    pick(c, async () => {
      const id = c.get("requestId") as string;
      await runInRequestContext({ requestId: id }, next);
      if (c.res.headers.get(REQUEST_ID_HEADER) === id) return;
      try {
        c.res.headers.set(REQUEST_ID_HEADER, id);
      } catch {
        // An upstream answer passed on as is has immutable headers: copy it (the body streams on).
        const res = new Response(c.res.body, c.res);
        res.headers.set(REQUEST_ID_HEADER, id);
        c.res = undefined;
        c.res = res;
      }
    });
}
