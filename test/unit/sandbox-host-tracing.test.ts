/**
 * The sandbox host's `sandbox.run` spans (docs/sandbox.md#tracing) on a real host (real HTTP,
 * signed requests, the OpenTelemetry SDK exporting to a real OTLP/HTTP receiver on 127.0.0.1)
 * over a stand-in engine (test/support/stand-in-engine.ts): the API's sandbox client carries the
 * current trace context in `traceparent`, and the host's span is its child; a malformed or
 * invalid `traceparent` is ignored (the run runs, its span starts a trace of its own); the sampled
 * flag never turns the span off; an unsigned request makes no span; without an endpoint the host
 * has no tracing at all. The same path runs on real Docker in test/sandbox/proxy-tracing.test.ts.
 */
import { randomUUID } from "node:crypto";
import { ROOT_CONTEXT, TraceFlags, trace } from "@opentelemetry/api";
import { TraceState } from "@opentelemetry/core";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { parseHostConfig } from "../../sandbox-host/src/config.js";
import { type SandboxHost, startSandboxHost } from "../../sandbox-host/src/server.js";
import { parentContext } from "../../sandbox-host/src/tracing.js";
import { createSandboxClient, type SandboxClient } from "../../workers/src/sandbox/client.js";
import { runInTraceContext } from "../../workers/src/telemetry/trace-context.js";
import { signedFetch } from "../sandbox/helpers.js";
import { type OtlpReceiver, type OtlpSpan, startOtlpReceiver } from "../support/otlp-receiver.js";
import { StandInEngine } from "../support/stand-in-engine.js";

const SECRET = "unit-test-secret-0123456789abcdef";
const TRACE_ID = "4bf92f3577b34da6a3ce929d0e0e4736";
const SPAN_ID = "00f067aa0ba902b7";
const CODE = "console.log('program text that must stay private')";

let receiver: OtlpReceiver;
let host: SandboxHost;
let client: SandboxClient;
beforeAll(async () => {
  receiver = await startOtlpReceiver();
  const config = parseHostConfig({
    SANDBOX_SECRET: SECRET,
    SANDBOX_HOST: "127.0.0.1",
    SANDBOX_PORT: "0",
    SANDBOX_INSTANCE: `unit-trace-${process.pid}-${randomUUID().slice(0, 8)}`,
    OTEL_EXPORTER_OTLP_ENDPOINT: receiver.url,
  });
  const engine = new StandInEngine();
  for (const image of Object.values(config.images)) engine.images.add(image);
  host = await startSandboxHost(config, { docker: engine, log: () => {} });
  client = createSandboxClient({ baseUrl: host.url, secret: SECRET });
});
afterAll(async () => {
  await host?.close();
  await receiver?.close();
});

/** The host's span of run `runId`, once exported. */
async function spanOf(runId: string): Promise<OtlpSpan | undefined> {
  await host.tracing?.flush();
  return receiver.spans.find((s) => s.attributes["skillgate.sandbox.run_id"] === runId);
}

/** A signed `POST /v1/run` of a node program with `headers` added after signing. */
async function signedRun(runId: string, headers: Record<string, string>) {
  return signedFetch(host.url, "/v1/run", {
    secret: SECRET,
    body: JSON.stringify({ runId, language: "node", code: CODE }),
    headers,
  });
}

describe("the host's sandbox.run span", () => {
  it("is the child of the span the API's client ran in, with tracestate carried", async () => {
    const parent = trace.setSpanContext(ROOT_CONTEXT, {
      traceId: TRACE_ID,
      spanId: SPAN_ID,
      traceFlags: TraceFlags.SAMPLED,
      traceState: new TraceState("vendor=value"),
    });
    const runId = randomUUID();
    const result = await runInTraceContext(parent, () =>
      client.run({ runId, language: "node", code: CODE }),
    );
    expect(result).toMatchObject({ runId, exitCode: 0 });
    const span = await spanOf(runId);
    expect(span).toMatchObject({
      name: "sandbox.run",
      kind: 2,
      traceId: TRACE_ID,
      parentSpanId: SPAN_ID,
      service: "skillgate-sandbox-host",
    });
    expect(span!.attributes).toMatchObject({
      "skillgate.sandbox.kind": "node",
      "skillgate.sandbox.runtime": "runc",
      "skillgate.sandbox.image": "node:22-alpine",
      "process.exit.code": 0,
      "skillgate.sandbox.timed_out": false,
      "skillgate.sandbox.oom_killed": false,
    });
    // The stand-in engine echoes the program: neither it nor its output is on the span.
    expect(result.stdout).toContain("program text that must stay private");
    expect(receiver.bodies.join("\n")).not.toContain("must stay private");
  });

  it("starts a trace of its own when the client runs outside any span (no traceparent sent)", async () => {
    const runId = randomUUID();
    expect(await client.run({ runId, language: "node", code: CODE })).toMatchObject({ runId });
    const span = await spanOf(runId);
    expect(span?.name).toBe("sandbox.run");
    expect(span?.parentSpanId ?? "").toBe("");
    expect(span?.traceId).not.toBe(TRACE_ID);
  });

  it("ignores a malformed or invalid traceparent: the run runs and its span starts a trace", async () => {
    const malformed = [
      "garbage",
      "00-xyz-abc-01",
      `00-${"0".repeat(32)}-${SPAN_ID}-01`,
      `00-${TRACE_ID}-${"0".repeat(16)}-01`,
      `00-${TRACE_ID}-${SPAN_ID}-01-extra`,
      `ff-${TRACE_ID}-${SPAN_ID}-01`,
      `00-${TRACE_ID.toUpperCase()}-${SPAN_ID}-01`,
      "x".repeat(4000),
    ];
    for (const traceparent of malformed) {
      const runId = randomUUID();
      const res = await signedRun(runId, { traceparent, tracestate: "=,,bad" });
      expect(res.status, traceparent).toBe(200);
      expect(res.body, traceparent).toMatchObject({ runId, exitCode: 0 });
      const span = await spanOf(runId);
      expect(span?.parentSpanId ?? "", traceparent).toBe("");
      expect(span?.traceId, traceparent).toMatch(/^[0-9a-f]{32}$/);
      expect(span?.traceId, traceparent).not.toBe(TRACE_ID);
    }
  });

  it("is recorded whatever the incoming sampled flag says", async () => {
    const runId = randomUUID();
    const res = await signedRun(runId, { traceparent: `00-${TRACE_ID}-${SPAN_ID}-00` });
    expect(res.status).toBe(200);
    expect(await spanOf(runId)).toMatchObject({ traceId: TRACE_ID, parentSpanId: SPAN_ID });
  });

  it("is not made for a request that fails the signature check", async () => {
    const runId = randomUUID();
    const res = await signedRun(runId, {
      traceparent: `00-${TRACE_ID}-${SPAN_ID}-01`,
      "x-skillgate-signature": "0".repeat(64),
    });
    expect(res.status).toBe(401);
    expect(await spanOf(runId)).toBeUndefined();
  });

  it("names the host's error code on a refused run", async () => {
    const runId = randomUUID();
    const res = await signedFetch(host.url, "/v1/run", {
      secret: SECRET,
      body: JSON.stringify({ runId, language: "node", code: CODE, image: "evil/image:1" }),
    });
    expect(res.status).toBe(422);
    const span = await spanOf(runId);
    expect(span?.attributes["error.type"]).toBe("image_not_allowed");
  });
});

describe("parentContext", () => {
  it("reads a valid traceparent and tracestate, and gives the root context for anything else", () => {
    const ok = trace.getSpanContext(
      parentContext(
        new Headers({ traceparent: `00-${TRACE_ID}-${SPAN_ID}-01`, tracestate: "a=1,b=2" }),
      ),
    );
    expect(ok).toMatchObject({ traceId: TRACE_ID, spanId: SPAN_ID, isRemote: true });
    expect(ok?.traceState?.serialize()).toBe("a=1,b=2");
    for (const traceparent of ["", "00-1-2-01", `00-${"0".repeat(32)}-${SPAN_ID}-01`])
      expect(parentContext(new Headers({ traceparent }))).toBe(ROOT_CONTEXT);
    expect(parentContext(new Headers())).toBe(ROOT_CONTEXT);
  });
});

describe("without an OTLP endpoint", () => {
  it("the host has no tracing", async () => {
    const config = parseHostConfig({
      SANDBOX_SECRET: SECRET,
      SANDBOX_HOST: "127.0.0.1",
      SANDBOX_PORT: "0",
      SANDBOX_INSTANCE: `unit-notrace-${process.pid}-${randomUUID().slice(0, 8)}`,
    });
    expect(config.tracing).toBeUndefined();
    const quiet = await startSandboxHost(config, { docker: new StandInEngine(), log: () => {} });
    try {
      expect(quiet.tracing).toBeNull();
    } finally {
      await quiet.close();
    }
  });
});
