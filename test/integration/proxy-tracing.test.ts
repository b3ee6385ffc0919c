/**
 * OpenTelemetry traces of the proxy (docs/deployment.md#opentelemetry): with
 * `OTEL_EXPORTER_OTLP_ENDPOINT` set, a proxied request with two rounds and one owned call reaches
 * a local OTLP/HTTP receiver (JSON encoding) as one trace: a root span with the request id, a
 * `chat` span per round with the GenAI attributes, an `execute_tool` span for the owned call; no
 * message text or tool arguments in any attribute unless content capture is on.
 */
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { type OtlpReceiver, startOtlpReceiver } from "../support/otlp-receiver.js";
import { ask } from "../support/proxy-clients.js";
import { textTurn, toolResults, toolTurn } from "../support/proxy-fixtures.js";
import { type ProxyStand, startProxyStand, WEATHER } from "../support/proxy-stand.js";

const QUESTION = "Private question: how warm is Reykjavik today?";
const ANSWER = "mild-and-breezy";

let receiver: OtlpReceiver;
let s: ProxyStand;
beforeAll(async () => {
  receiver = await startOtlpReceiver();
  s = await startProxyStand({
    OTEL_EXPORTER_OTLP_ENDPOINT: receiver.url,
    OTEL_SERVICE_NAME: "skillgate-test",
  });
});
afterAll(async () => {
  await s.close();
  await receiver.close();
});

describe("OpenTelemetry traces of the proxy", () => {
  it("exports one trace of a two-round request with one owned call, with GenAI attributes and no content", async () => {
    s.script((_req, body, n) =>
      toolResults("openai-chat", body).length === 0
        ? {
            kind: "json",
            body: toolTurn(
              "openai-chat",
              [{ id: "call-42", name: WEATHER, args: { city: "Reykjavik" } }],
              n,
            ),
          }
        : { kind: "json", body: textTurn("openai-chat", ANSWER, n) },
    );
    const answer = await ask("openai-chat", s.app.url, s.key.key, QUESTION, {
      headers: { "x-request-id": "trace-req-1" },
    });
    expect(answer.text).toBe(ANSWER);
    await s.app.services.tracing?.flush();

    const root = receiver.spans.find((x) => x.attributes["skillgate.request_id"] === "trace-req-1");
    expect(root).toBeDefined();
    expect(root!.name).toBe("proxy openai-chat");
    expect(root!.parentSpanId ?? "").toBe("");
    expect(root!.service).toBe("skillgate-test");
    expect(root!.attributes).toMatchObject({
      "skillgate.format": "openai-chat",
      "skillgate.api_key_id": s.key.id,
      "http.response.status_code": 200,
      "skillgate.rounds": 2,
    });
    const trace = receiver.spans.filter((x) => x.traceId === root!.traceId);
    const children = trace.filter((x) => x.parentSpanId === root!.spanId);
    expect(children).toHaveLength(trace.length - 1);
    const rounds = children
      .filter((x) => x.attributes["gen_ai.operation.name"] === "chat")
      .sort(
        (a, b) => Number(a.attributes["skillgate.round"]) - Number(b.attributes["skillgate.round"]),
      );
    expect(rounds).toHaveLength(2);
    for (const [i, r] of rounds.entries()) {
      expect(r.name).toBe("chat gpt-test");
      expect(r.attributes).toMatchObject({
        "gen_ai.request.model": "gpt-test",
        "gen_ai.provider.name": "openai",
        "skillgate.round": i + 1,
        "http.response.status_code": 200,
      });
      expect(r.attributes["gen_ai.usage.input_tokens"]).toBeGreaterThan(0);
      expect(r.attributes["gen_ai.usage.output_tokens"]).toBeGreaterThan(0);
    }
    const tools = children.filter((x) => x.attributes["gen_ai.operation.name"] === "execute_tool");
    expect(tools).toHaveLength(1);
    expect(tools[0]!.name).toBe(`execute_tool ${WEATHER}`);
    expect(tools[0]!.attributes).toMatchObject({
      "gen_ai.tool.name": WEATHER,
      "gen_ai.tool.call.id": "call-42",
      "skillgate.round": 1,
    });
    expect(String(tools[0]!.attributes["skillgate.execution.id"])).toMatch(/^[0-9a-f-]{36}$/);
    expect(tools[0]!.attributes["gen_ai.tool.call.arguments"]).toBeUndefined();
    expect(trace).toHaveLength(4);

    // No conversation content and no secret anywhere in what was exported.
    const exported = receiver.bodies.join("\n");
    for (const text of [QUESTION, "Reykjavik", ANSWER, s.key.key, "sk-configured-openai"])
      expect(exported).not.toContain(text);
  });
});

describe("content capture (OTEL_INSTRUMENTATION_GENAI_CAPTURE_MESSAGE_CONTENT=true)", () => {
  it("puts an owned call's arguments on its span, and only then", async () => {
    const own = await startOtlpReceiver();
    const stand = await startProxyStand({
      OTEL_EXPORTER_OTLP_TRACES_ENDPOINT: `${own.url}/v1/traces`,
      OTEL_INSTRUMENTATION_GENAI_CAPTURE_MESSAGE_CONTENT: "true",
    });
    try {
      stand.script((_req, body, n) =>
        toolResults("openai-chat", body).length === 0
          ? {
              kind: "json",
              body: toolTurn(
                "openai-chat",
                [{ id: "call-9", name: WEATHER, args: { city: "Reykjavik" } }],
                n,
              ),
            }
          : { kind: "json", body: textTurn("openai-chat", ANSWER, n) },
      );
      expect((await ask("openai-chat", stand.app.url, stand.key.key, QUESTION)).text).toBe(ANSWER);
      await stand.app.services.tracing?.flush();
      const tool = own.spans.find((x) => x.attributes["gen_ai.tool.call.id"] === "call-9");
      expect(tool?.attributes["gen_ai.tool.call.arguments"]).toBe('{"city":"Reykjavik"}');
      expect(tool?.service).toBe("skillgate");
    } finally {
      await stand.close();
      await own.close();
    }
  });
});
