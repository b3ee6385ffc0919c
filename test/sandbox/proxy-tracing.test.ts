/**
 * The sandbox host joins the proxy's trace (docs/sandbox.md#tracing, docs/deployment.md#opentelemetry),
 * with real components: the app on real HTTP, a scripted provider, a real sandbox host on real
 * Docker, and one local OTLP/HTTP receiver both export to. A proxied request with two rounds and
 * one owned `eval_code` call is one trace: the proxy's root span, a `chat` span per round, the
 * call's `execute_tool` span, and the host's `sandbox.run` span as the child of that
 * `execute_tool` span (the API's signed request carried it in `traceparent`). No code, output,
 * question, answer or secret is in what either service exported. A run request whose
 * `traceparent` is malformed still runs, and its span starts a trace of its own.
 */
import { randomUUID } from "node:crypto";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { type OtlpReceiver, type OtlpSpan, startOtlpReceiver } from "../support/otlp-receiver.js";
import { ask } from "../support/proxy-clients.js";
import { textTurn, toolResults, toolTurn } from "../support/proxy-fixtures.js";
import { type ProxyStand, startProxyStand } from "../support/proxy-stand.js";
import {
  LOCAL_IMAGES,
  requireDocker,
  SKIP_DOCKER,
  signedFetch,
  startTestHost,
  type TestHost,
} from "./helpers.js";

const QUESTION = "Private question: what is six times seven, computed?";
const ANSWER = "it-is-forty-two";
/** The program the model asks for: its text and its output must reach no span. */
const CODE = "print('hidden-output-' + str(6 * 7))";
const OUTPUT = "hidden-output-42";
/** OTLP `SpanKind` values. */
const KIND = { internal: 1, server: 2, client: 3 } as const;

describe.skipIf(SKIP_DOCKER)("the sandbox host in the proxy's trace", () => {
  let receiver: OtlpReceiver;
  let host: TestHost;
  let s: ProxyStand;
  beforeAll(async () => {
    await requireDocker();
    receiver = await startOtlpReceiver();
    host = await startTestHost("trace", { OTEL_EXPORTER_OTLP_ENDPOINT: receiver.url });
    s = await startProxyStand(
      {
        OTEL_EXPORTER_OTLP_ENDPOINT: receiver.url,
        OTEL_SERVICE_NAME: "skillgate-test",
        // A model's eval_code call runs without approval (docs/policies.md#model-calls-on-every-door).
        SKILLS_ALLOW_MODEL_COMMANDS: "true",
      },
      { sandbox: host.client },
    );
    const listed = await s.app.api.get("/api/skills?source=builtin&q=eval_code");
    const id = listed.body.data.find((x: { name: string }) => x.name === "eval_code").id;
    const put = await s.app.api.put(`/api/skills/${id}`, { policy: "auto" });
    expect(put.body.skill.policy).toBe("auto");
  });
  afterAll(async () => {
    await s?.close();
    await host?.close();
    await receiver?.close();
  });

  it("one trace: root, two rounds, the eval_code call and, under it, the host's run", async () => {
    s.script((_req, body, n) =>
      toolResults("openai-chat", body).length === 0
        ? {
            kind: "json",
            body: toolTurn(
              "openai-chat",
              [{ id: "call-eval-1", name: "eval_code", args: { language: "python", code: CODE } }],
              n,
            ),
          }
        : { kind: "json", body: textTurn("openai-chat", ANSWER, n) },
    );
    const requestId = `trace-sandbox-${randomUUID()}`;
    const answer = await ask("openai-chat", s.app.url, s.key.key, QUESTION, {
      headers: { "x-request-id": requestId },
    });
    expect(answer.text).toBe(ANSWER);
    // The program really ran on the host: its output went back to the model in round 2.
    const second = s.requests()[1]!.body;
    expect(toolResults("openai-chat", second)[0]!.text).toContain(OUTPUT);
    await s.app.services.tracing?.flush();
    await host.host.tracing?.flush();

    const root = receiver.spans.find((x) => x.attributes["skillgate.request_id"] === requestId);
    expect(root).toBeDefined();
    expect(root!.name).toBe("proxy openai-chat");
    expect(root!.service).toBe("skillgate-test");
    expect(root!.parentSpanId ?? "").toBe("");
    expect(root!.attributes).toMatchObject({
      "skillgate.rounds": 2,
      "http.response.status_code": 200,
    });
    const inTrace = receiver.spans.filter((x) => x.traceId === root!.traceId);

    const rounds = inTrace
      .filter((x) => x.attributes["gen_ai.operation.name"] === "chat")
      .sort(
        (a, b) => Number(a.attributes["skillgate.round"]) - Number(b.attributes["skillgate.round"]),
      );
    expect(
      rounds.map((r) => [r.parentSpanId, r.name, r.kind, r.attributes["skillgate.round"]]),
    ).toEqual([
      [root!.spanId, "chat gpt-test", KIND.client, 1],
      [root!.spanId, "chat gpt-test", KIND.client, 2],
    ]);
    for (const r of rounds)
      expect(r.attributes).toMatchObject({
        "gen_ai.provider.name": "openai",
        "gen_ai.request.model": "gpt-test",
      });

    const tools = inTrace.filter((x) => x.attributes["gen_ai.operation.name"] === "execute_tool");
    expect(tools).toHaveLength(1);
    const tool = tools[0]!;
    expect(tool).toMatchObject({
      name: "execute_tool eval_code",
      kind: KIND.internal,
      parentSpanId: root!.spanId,
    });
    expect(tool.service).toBe("skillgate-test");
    expect(tool.attributes).toMatchObject({
      "gen_ai.tool.name": "eval_code",
      "gen_ai.tool.call.id": "call-eval-1",
      "skillgate.round": 1,
    });
    expect(String(tool.attributes["skillgate.execution.id"])).toMatch(/^[0-9a-f-]{36}$/);

    const runs = inTrace.filter((x) => x.name === "sandbox.run");
    expect(runs).toHaveLength(1);
    const run = runs[0]!;
    // The host's span is the child of the API span that made the call.
    expect(run.parentSpanId).toBe(tool.spanId);
    expect(run.kind).toBe(KIND.server);
    expect(run.service).toBe("skillgate-sandbox-host");
    expect(run.attributes).toMatchObject({
      "skillgate.sandbox.kind": "python",
      "skillgate.sandbox.runtime": "runc",
      "skillgate.sandbox.image": LOCAL_IMAGES.python,
      "skillgate.sandbox.instance": host.config.instance,
      "process.exit.code": 0,
      "skillgate.sandbox.timed_out": false,
      "skillgate.sandbox.oom_killed": false,
      "skillgate.sandbox.truncated": false,
      "skillgate.sandbox.pooled": false,
    });
    expect(String(run.attributes["skillgate.sandbox.run_id"])).toMatch(/^[0-9a-f-]{36}$/);
    expect(run.attributes["skillgate.sandbox.queue_wait_ms"]).toBeGreaterThanOrEqual(0);
    expect(run.attributes["skillgate.sandbox.duration_ms"]).toBeGreaterThanOrEqual(0);
    expect(run.attributes["error.type"]).toBeUndefined();

    // Exactly these five spans make the trace.
    expect(inTrace).toHaveLength(5);

    // No program text, output, conversation text or secret in anything either service exported.
    const exported = receiver.bodies.join("\n");
    for (const text of [
      CODE,
      "6 * 7",
      OUTPUT,
      "hidden-output",
      QUESTION,
      ANSWER,
      s.key.key,
      host.secret,
      "sk-configured-openai",
    ])
      expect(exported).not.toContain(text);
  });

  it("a malformed traceparent on a signed run is ignored: the run succeeds and its span starts a trace", async () => {
    const runId = randomUUID();
    const res = await signedFetch(host.host.url, "/v1/run", {
      secret: host.secret,
      body: JSON.stringify({ runId, language: "python", code: "print(1)" }),
      headers: { traceparent: "00-not-a-trace-context-zz", tracestate: "=,broken" },
    });
    expect(res.status).toBe(200);
    expect(res.body).toMatchObject({ runId, exitCode: 0, stdout: "1\n" });
    await host.host.tracing?.flush();
    const span = receiver.spans.find(
      (x: OtlpSpan) => x.attributes["skillgate.sandbox.run_id"] === runId,
    );
    expect(span).toBeDefined();
    expect(span!.name).toBe("sandbox.run");
    expect(span!.parentSpanId ?? "").toBe("");
    expect(span!.traceId).toMatch(/^[0-9a-f]{32}$/);
    expect(span!.traceId).not.toBe("0".repeat(32));
    // It is alone in its trace: nothing of the proxy's trace was joined.
    expect(receiver.spans.filter((x) => x.traceId === span!.traceId)).toHaveLength(1);
  });
});
