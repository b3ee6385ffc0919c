/**
 * The access log's pieces (docs/proxy.md#observability): a client's model name cannot break or
 * forge a log line, and a request's routing observation classifies the upstream's failure.
 */
import { describe, expect, it } from "vitest";
import {
  accessLogLine,
  cleanModel,
  type RequestMeasure,
  routingObservation,
} from "../../workers/src/services/gateway/access-log.js";

const measure = (m: Partial<RequestMeasure> = {}): RequestMeasure => ({
  apiKeyId: "k1",
  format: "gemini",
  model: "gemini-2.5-flash",
  rounds: 1,
  ownedCalls: 0,
  upstreamCalls: 1,
  upstreamStatus: 200,
  status: 200,
  totalMs: 12.4,
  upstreamMs: 10.6,
  skillsMs: 0,
  ...m,
});

describe("the access log line", () => {
  it("cleans a model name that would break or forge a line, and cuts it", () => {
    expect(cleanModel("gpt-4.1\n[skillgate] proxy access key=admin")).toBe(
      "gpt-4.1__skillgate__proxy_access_key_admin",
    );
    expect(cleanModel("x".repeat(1000))).toHaveLength(128);
    expect(cleanModel("")).toBeNull();
    expect(cleanModel({ model: "a" })).toBeNull();
    expect(cleanModel("models/gemini-2.5-flash:001")).toBe("models/gemini-2.5-flash:001");
  });

  it("writes every field, with - for what is unknown", () => {
    expect(accessLogLine(measure({ apiKeyId: null, model: null, upstreamStatus: null }))).toBe(
      "proxy access key=- format=gemini model=- rounds=1 owned_calls=0 upstream_calls=1 upstream_status=- status=200 total_ms=12 upstream_ms=11 skills_ms=0",
    );
  });
});

describe("the routing observation", () => {
  it.each([
    [429, 429, "rate_limit"],
    [401, 401, "auth"],
    [503, 503, "server_error"],
    [400, 400, "invalid_request"],
    [null, 502, "server_error"],
    [null, 504, "timeout"],
  ])("classifies upstream %s (client %s) as %s", (upstreamStatus, status, errorClass) => {
    expect(routingObservation(measure({ upstreamStatus, status }))).toEqual({
      provider: "gemini",
      model: "gemini-2.5-flash",
      status: "error",
      errorClass,
      latencyMs: 11,
      task: null,
    });
  });

  it("records nothing without an upstream call, a model, or a client that stayed", () => {
    expect(routingObservation(measure({ upstreamCalls: 0 }))).toBeNull();
    expect(routingObservation(measure({ model: null }))).toBeNull();
    expect(routingObservation(measure({ status: 499 }))).toBeNull();
    expect(routingObservation(measure())).toMatchObject({ status: "success", errorClass: null });
  });
});
