/**
 * Gemini mixed turns replayed with call ids the client added: `@ai-sdk/google` gives every call
 * an id of its own (and sends it back), and a `@google/genai` caller may add ids too. The proxy
 * still finds the turn it handed out (by the turn's position and its first client call's name
 * and arguments), puts the owned call back with its `thoughtSignature` on the very part it came
 * with, and keeps the client's ids on the client's calls. The fake provider checks what Gemini 3
 * checks: as many function responses as calls, response ids matching call ids, and the
 * signature it issued still on the turn's first call.
 */
import { createGoogleGenerativeAI } from "@ai-sdk/google";
import { GoogleGenAI } from "@google/genai";
import { generateText, jsonSchema, stepCountIs, streamText, tool } from "ai";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { checkGemini } from "../support/fakes/llm-upstream.js";
import type { Obj } from "../support/proxy-fixtures.js";
import { sseOf, wantsStream } from "../support/proxy-sse.js";
import { type ProxyStand, startProxyStand, tempOf, WEATHER } from "../support/proxy-stand.js";

let s: ProxyStand;
beforeAll(async () => {
  s = await startProxyStand({ PROXY_MAX_ROUNDS: "3" });
});
afterAll(() => s.close());

const isObj = (v: unknown): v is Obj => typeof v === "object" && v !== null && !Array.isArray(v);
const objs = (v: unknown): Obj[] => (Array.isArray(v) ? v.filter(isObj) : []);
const SIGNATURE = "c2lnbmF0dXJlLW9mLXRoZS1vd25lZC1jYWxs";

/** The model turn the fake answers first: an owned call (signed) then a client call, no ids. */
function mixedTurn(ids: boolean): Obj {
  return {
    candidates: [
      {
        index: 0,
        finishReason: "STOP",
        content: {
          role: "model",
          parts: [
            {
              functionCall: {
                ...(ids ? { id: "g-own" } : {}),
                name: WEATHER,
                args: { city: "Lima" },
              },
              thoughtSignature: SIGNATURE,
            },
            {
              functionCall: {
                ...(ids ? { id: "g-client" } : {}),
                name: "Bash",
                args: { command: "ls", flags: ["-l", "-a"] },
              },
            },
          ],
        },
      },
    ],
    usageMetadata: { promptTokenCount: 3, candidatesTokenCount: 2, totalTokenCount: 5 },
    responseId: "gem-mixed",
    modelVersion: "gemini-3-pro-preview",
  };
}

/** Why Gemini 3 would refuse the replayed conversation in `body`, or null. */
function refusal(body: Obj): string | null {
  const counted = checkGemini(body);
  if (counted) return counted;
  for (const c of objs(body.contents)) {
    const calls = objs(c.parts).filter((p) => isObj(p.functionCall));
    if (calls.length === 0) continue;
    if (calls[0]!.thoughtSignature !== SIGNATURE)
      return "Function call is missing a thought_signature in functionCall parts.";
  }
  return null;
}

/** The fake Gemini 3: a mixed turn first, then the final text once both calls are answered. */
function gemini3(ids: boolean): void {
  s.script((req, body) => {
    const answered = objs(body.contents).some((c) =>
      objs(c.parts).some((p) => isObj(p.functionResponse)),
    );
    let answer: Obj;
    if (!answered) answer = mixedTurn(ids);
    else {
      const problem = refusal(body);
      if (problem)
        return {
          kind: "json",
          status: 400,
          body: { error: { code: 400, message: problem, status: "INVALID_ARGUMENT" } },
        };
      answer = {
        candidates: [
          {
            index: 0,
            finishReason: "STOP",
            content: { role: "model", parts: [{ text: "Lima is warm; two files." }] },
          },
        ],
        usageMetadata: { promptTokenCount: 9, candidatesTokenCount: 4, totalTokenCount: 13 },
        responseId: "gem-final",
        modelVersion: "gemini-3-pro-preview",
      };
    }
    return wantsStream(req.url, body)
      ? { kind: "sse", events: sseOf("gemini", answer) }
      : { kind: "json", body: answer };
  });
}

/** What the upstream received in the replayed turn: the model turn's calls and the responses. */
function replayed(): { calls: Obj[]; responses: Obj[] } {
  const last = s.requests().at(-1)!.body;
  const contents = objs(last.contents);
  const model = contents.find((c) => c.role === "model")!;
  const calls = objs(model.parts).filter((p) => isObj(p.functionCall));
  const responses = contents
    .flatMap((c) => objs(c.parts))
    .filter((p) => isObj(p.functionResponse))
    .map((p) => p.functionResponse as Obj);
  return { calls, responses };
}

function expectRestored(clientId: string): void {
  const { calls, responses } = replayed();
  expect(calls.map((p) => (p.functionCall as Obj).name)).toEqual([WEATHER, "Bash"]);
  expect(calls[0]!.thoughtSignature).toBe(SIGNATURE);
  expect((calls[1]!.functionCall as Obj).id).toBe(clientId);
  expect(responses.map((r) => r.name)).toEqual([WEATHER, "Bash"]);
  expect(JSON.stringify(responses[0]!.response)).toContain(String(tempOf("Lima")));
  expect(responses[1]!.id).toBe(clientId);
}

const bash = tool({
  description: "Runs a shell command",
  inputSchema: jsonSchema<{ command: string; flags: string[] }>({
    type: "object",
    properties: {
      command: { type: "string" },
      flags: { type: "array", items: { type: "string" } },
    },
    required: ["command", "flags"],
  }),
  execute: async ({ command, flags }) => `${command} ${flags.join(" ")}: a.txt b.txt`,
});

describe("@ai-sdk/google (ids of its own on every call)", () => {
  const google = () =>
    createGoogleGenerativeAI({ baseURL: `${s.app.url}/v1beta`, apiKey: s.key.key });

  it("generateText: the owned call of the mixed turn is restored with its signature", async () => {
    gemini3(false);
    const result = await generateText({
      model: google()("gemini-3-pro-preview"),
      prompt: "Weather in Lima, and list the files",
      tools: { Bash: bash },
      stopWhen: stepCountIs(3),
    });
    expect(result.text).toBe("Lima is warm; two files.");
    expect(s.requests()).toHaveLength(2);
    const clientCall = result.steps[0]!.toolCalls[0]!;
    expect(clientCall.toolName).toBe("Bash");
    expectRestored(clientCall.toolCallId);
  });

  it("streamText: the same through the streaming endpoint", async () => {
    gemini3(false);
    const result = streamText({
      model: google()("gemini-3-pro-preview"),
      prompt: "Weather in Lima, and list the files",
      tools: { Bash: bash },
      stopWhen: stepCountIs(3),
    });
    expect(await result.text).toBe("Lima is warm; two files.");
    const steps = await result.steps;
    expect(s.requests()).toHaveLength(2);
    expectRestored(steps[0]!.toolCalls[0]!.toolCallId);
  });
});

describe("@google/genai (the caller adds or keeps ids)", () => {
  async function replay(ids: boolean, clientId: (received: string | undefined) => string) {
    gemini3(ids);
    const ai = new GoogleGenAI({ apiKey: s.key.key, httpOptions: { baseUrl: s.app.url } });
    const question = { role: "user", parts: [{ text: "Weather in Lima, and list the files" }] };
    const first = await ai.models.generateContent({
      model: "gemini-3-pro-preview",
      contents: [question],
      config: { tools: [{ functionDeclarations: [{ name: "Bash" }] }] },
    });
    const calls = first.functionCalls ?? [];
    expect(calls.map((c) => c.name)).toEqual(["Bash"]);
    const id = clientId(calls[0]!.id);
    // The caller replays only its own call, with an id, and without the signature.
    const final = await ai.models.generateContent({
      model: "gemini-3-pro-preview",
      contents: [
        question,
        { role: "model", parts: [{ functionCall: { ...calls[0]!, id } }] },
        {
          role: "user",
          parts: [{ functionResponse: { id, name: "Bash", response: { output: "a.txt" } } }],
        },
      ],
      config: { tools: [{ functionDeclarations: [{ name: "Bash" }] }] },
    });
    expect(final.text).toBe("Lima is warm; two files.");
    expectRestored(id);
  }

  it("an id added by the caller to a call that had none", async () => {
    await replay(false, (received) => {
      expect(received).toBeUndefined();
      return "caller-chosen-id";
    });
  });

  it("the provider's own id, kept by the caller", async () => {
    await replay(true, (received) => {
      expect(received).toBe("g-client");
      return received!;
    });
  });
});
