/**
 * Fake search providers speaking the documented wire formats: SearXNG's JSON API
 * (`GET /search?q=&format=json` → `{ query, number_of_results, results: [{ url, title, content,
 * engine }], answers, suggestions }`, 403 when the format is not `json`) and Brave Search
 * (`GET /res/v1/web/search?q=&count=` with `X-Subscription-Token` → `{ type: "search", query,
 * web: { type: "search", results: [{ title, url, description }] } }`). `mode` switches to failure
 * answers: HTTP 429, 500, a malformed payload, or text that is not JSON.
 */
import { type FakeServer, sendJson, startFakeServer } from "./http.js";

/** Failure modes shared by the fakes. */
export type FakeMode = "ok" | "empty" | "429" | "500" | "malformed" | "notjson";

/** A fake provider whose mode can be switched between calls. */
export interface FakeSearch extends FakeServer {
  mode: FakeMode;
}

function hits(q: string, n: number) {
  const slug = q.toLowerCase().replace(/[^a-z0-9]+/g, "-");
  return Array.from({ length: n }, (_, i) => ({
    url: `https://example.org/${slug}/${i + 1}`,
    title: `Result ${i + 1} for ${q}`,
    text: `About <strong>${q}</strong> &amp; more, item ${i + 1}.`,
  }));
}

function failure(mode: FakeMode, res: Parameters<typeof sendJson>[0]): boolean {
  if (mode === "429") sendJson(res, 429, { error: "Too Many Requests" }, { "retry-after": "30" });
  else if (mode === "500") sendJson(res, 500, { error: "upstream exploded" });
  else if (mode === "notjson") {
    res.writeHead(200, { "content-type": "application/json" });
    res.end("<html>not json</html>");
  } else return false;
  return true;
}

/** Exposes `state.mode` as a read-write `mode` property of the server. */
export function withMode<T extends object>(
  server: T,
  state: { mode: FakeMode },
): T & { mode: FakeMode } {
  Object.defineProperty(server, "mode", {
    get: () => state.mode,
    set: (m: FakeMode) => {
      state.mode = m;
    },
    enumerable: true,
  });
  return server as T & { mode: FakeMode };
}

/** Starts a fake SearXNG instance returning 12 results per query. */
export async function startFakeSearxng(): Promise<FakeSearch> {
  const state = { mode: "ok" as FakeMode };
  const server = await startFakeServer((req, res) => {
    const url = new URL(req.url, "http://fake");
    if (url.pathname !== "/search") return sendJson(res, 404, { error: "not found" });
    if (url.searchParams.get("format") !== "json") {
      res.writeHead(403, { "content-type": "text/html" });
      return res.end("<h1>403 Forbidden</h1>");
    }
    if (failure(state.mode, res)) return;
    const q = url.searchParams.get("q") ?? "";
    if (state.mode === "malformed") return sendJson(res, 200, { query: q, results: "nope" });
    const list = state.mode === "empty" ? [] : hits(q, 12);
    sendJson(res, 200, {
      query: q,
      number_of_results: list.length,
      results: list.map((h) => ({
        url: h.url,
        title: h.title,
        content: h.text,
        engine: "fake",
        score: 1,
      })),
      answers: [],
      corrections: [],
      infoboxes: [],
      suggestions: [],
      unresponsive_engines: [],
    });
  });
  return withMode(server, state);
}

/** Starts a fake Brave Search API accepting `token`; returns `count` results (max 20). */
export async function startFakeBrave(token: string): Promise<FakeSearch> {
  const state = { mode: "ok" as FakeMode };
  const server = await startFakeServer((req, res) => {
    const url = new URL(req.url, "http://fake");
    if (url.pathname !== "/res/v1/web/search") return sendJson(res, 404, { error: "not found" });
    if (req.headers["x-subscription-token"] !== token) {
      return sendJson(res, 422, {
        type: "ErrorResponse",
        error: {
          code: "SUBSCRIPTION_TOKEN_INVALID",
          status: 422,
          detail: "The provided subscription token is invalid.",
        },
      });
    }
    if (failure(state.mode, res)) return;
    const q = url.searchParams.get("q") ?? "";
    if (state.mode === "malformed")
      return sendJson(res, 200, { type: "weird", web: { results: 5 } });
    if (state.mode === "empty")
      return sendJson(res, 200, { type: "search", query: { original: q } });
    const count = Math.min(Number(url.searchParams.get("count") ?? 20), 20);
    sendJson(res, 200, {
      type: "search",
      query: { original: q, more_results_available: true },
      web: {
        type: "search",
        results: hits(q, count).map((h) => ({
          title: h.title,
          url: h.url,
          description: h.text,
          type: "search_result",
        })),
      },
    });
  });
  return withMode(server, state);
}
