/**
 * A client continues the conversation after `intercept`, with the official SDK of each provider
 * against a fake provider that checks the replayed turn the way the provider does: responses with
 * several alternatives, calls without ids, calls sharing an id. The client replays the `response`
 * intercept returned, appends `messages`, and adds its own results for `passThrough`; the next
 * request must be accepted, and only the first alternative's calls may have run.
 */
import Anthropic from "@anthropic-ai/sdk";
import type { ContentBlockParam, MessageParam } from "@anthropic-ai/sdk/resources/messages";
import { type Content, GoogleGenAI, type Part } from "@google/genai";
import OpenAI from "openai";
import type { ChatCompletionMessageParam } from "openai/resources/chat/completions";
import type { ResponseInputItem } from "openai/resources/responses/responses";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { startTestApp, type TestApp } from "../support/app.js";
import type { FakeServer } from "../support/fakes/http.js";
import { startFakeLlm } from "../support/fakes/llm-upstream.js";

const TOOL = "lookupWeather_v1_0_0";
const args = (city: string) => JSON.stringify({ city });
let t: TestApp;
let llm: FakeServer;
let key: string;

beforeAll(async () => {
  t = await startTestApp();
  t.services.executor.registerHandler("wire-weather", async (input) => ({
    tempC: (input as { city: string }).city.length,
  }));
  const created = await t.api.createKey("wire");
  key = created.key;
  const res = await t.api.post("/api/skills/install", {
    name: "lookupWeather",
    version: "1.0.0",
    description: "Current weather for a city",
    schema: { input: { city: { type: "string", required: true } } },
    handlerCode: "wire-weather",
    apiKeyId: created.id,
  });
  expect(res.status).toBe(201);
  llm = await startFakeLlm({
    chat: {
      id: "chatcmpl-1",
      object: "chat.completion",
      created: 1,
      model: "gpt-4.1",
      choices: [0, 1].map((index) => ({
        index,
        finish_reason: "tool_calls",
        logprobs: null,
        message: {
          role: "assistant",
          content: null,
          refusal: null,
          tool_calls:
            index === 0
              ? [
                  { id: "", type: "function", function: { name: TOOL, arguments: args("Paris") } },
                  { type: "function", function: { name: TOOL, arguments: args("Rome") } },
                  { type: "function", function: { name: "Bash", arguments: '{"cmd":"ls"}' } },
                ]
              : [
                  {
                    id: "call_alt",
                    type: "function",
                    function: { name: TOOL, arguments: args("Oslo") },
                  },
                ],
        },
      })),
    },
    responses: {
      id: "resp_1",
      object: "response",
      created_at: 1,
      status: "completed",
      model: "gpt-4.1",
      output: ["Paris", "Rome", "Bash"].map((what, i) => ({
        type: "function_call",
        id: `fc_${i + 1}`,
        call_id: "call|x.1",
        name: what === "Bash" ? "Bash" : TOOL,
        arguments: what === "Bash" ? '{"cmd":"ls"}' : args(what),
        status: "completed",
      })),
    },
    anthropic: {
      id: "msg_1",
      type: "message",
      role: "assistant",
      model: "claude-sonnet-4-6",
      content: [
        { type: "text", text: "Checking." },
        { type: "tool_use", name: TOOL, input: { city: "Paris" } },
        { type: "tool_use", id: "toolu_d", name: TOOL, input: { city: "Rome" } },
        { type: "tool_use", id: "toolu_d", name: "Bash", input: { cmd: "ls" } },
      ],
      stop_reason: "tool_use",
      stop_sequence: null,
      usage: { input_tokens: 1, output_tokens: 1 },
    },
    gemini: {
      candidates: [
        {
          index: 0,
          content: {
            role: "model",
            parts: [
              { functionCall: { name: TOOL, args: { city: "Paris" } }, thoughtSignature: "c2ln" },
              { functionCall: { name: "Bash", args: { cmd: "ls" } } },
            ],
          },
        },
        {
          index: 1,
          content: {
            role: "model",
            parts: [{ functionCall: { name: TOOL, args: { city: "Oslo" } } }],
          },
        },
      ],
    },
  });
});
afterAll(async () => {
  await llm?.close();
  await t?.close();
});

const asKey = () => t.api.as(key);

async function inject(format: string, request: object) {
  const res = await asKey().post("/api/skills/inject", { format, request });
  expect(res.status).toBe(200);
  return res.body as { request: Record<string, unknown>; injected: { toolName: string }[] };
}

async function intercept(
  format: string,
  response: unknown,
  sessionId: string,
  injected: { toolName: string }[],
) {
  const res = await asKey().post("/api/skills/intercept", {
    format,
    response: JSON.parse(JSON.stringify(response)),
    sessionId,
    injected: injected.map((i) => i.toolName),
  });
  expect(res.status).toBe(200);
  const executions = await asKey().get(`/api/skills/executions?sessionId=${sessionId}`);
  return {
    body: res.body as {
      toolResults: { callId: string; status: string; output: { tempC: number } }[];
      messages: Record<string, unknown>[];
      passThrough: string[];
      response: Record<string, any>;
    },
    ran: executions.body.data.map((e: { input: { city: string } }) => e.input.city).sort(),
  };
}

const bashTool = {
  type: "function" as const,
  function: { name: "Bash", parameters: { type: "object" } },
};

describe("the next request built from intercept's answer is accepted", () => {
  it("Chat Completions, n = 2, ids empty and missing", async () => {
    const openai = new OpenAI({ apiKey: "sk-test", baseURL: `${llm.url}/v1`, maxRetries: 0 });
    const messages: ChatCompletionMessageParam[] = [
      { role: "user", content: "Weather in Paris and Rome?" },
    ];
    const injected = await inject("openai-chat", { model: "gpt-4.1", messages, tools: [bashTool] });
    const first = await openai.chat.completions.create({
      ...(injected.request as { model: string; messages: ChatCompletionMessageParam[] }),
      n: 2,
    });
    const { body, ran } = await intercept("openai-chat", first, "w-chat", injected.injected);
    expect(ran).toEqual(["Paris", "Rome"]);
    expect(body.toolResults.map((r) => r.output.tempC)).toEqual([5, 4]);
    expect(body.passThrough).toHaveLength(1);
    const replayed = body.response.choices[0].message;
    const own = replayed.tool_calls
      .filter((tc: { id: string }) => body.passThrough.includes(tc.id))
      .map((tc: { id: string }) => ({ role: "tool", tool_call_id: tc.id, content: "a.txt" }));
    const next = (assistant: unknown) =>
      openai.chat.completions.create({
        model: "gpt-4.1",
        messages: [
          ...messages,
          assistant,
          ...body.messages,
          ...own,
        ] as ChatCompletionMessageParam[],
      });
    expect((await next(replayed)).choices[0]!.message.content).toBe("done");
    // The turn as the provider sent it cannot be replayed: its calls have no usable ids.
    await expect(next(first.choices[0]!.message)).rejects.toBeInstanceOf(OpenAI.BadRequestError);
  });

  it("Responses, one call_id shared by three calls", async () => {
    const openai = new OpenAI({ apiKey: "sk-test", baseURL: `${llm.url}/v1`, maxRetries: 0 });
    const input: ResponseInputItem[] = [{ role: "user", content: "Weather in Paris and Rome?" }];
    const injected = await inject("openai-responses", { model: "gpt-4.1", input });
    const first = await openai.responses.create(
      injected.request as { model: string; input: ResponseInputItem[] },
    );
    const { body, ran } = await intercept("openai-responses", first, "w-resp", injected.injected);
    expect(ran).toEqual(["Paris", "Rome"]);
    expect(body.toolResults.map((r) => r.output.tempC)).toEqual([5, 4]);
    const own = body.passThrough.map((callId) => ({
      type: "function_call_output" as const,
      call_id: callId,
      output: "a.txt",
    }));
    const next = await openai.responses.create({
      model: "gpt-4.1",
      input: [...input, ...(body.response.output as ResponseInputItem[]), ...own],
    });
    expect(next.output_text).toBe("done");
    await expect(
      openai.responses.create({
        model: "gpt-4.1",
        input: [
          ...input,
          ...(first.output as ResponseInputItem[]),
          ...(body.messages as unknown as ResponseInputItem[]),
          ...own,
        ],
      }),
    ).rejects.toBeInstanceOf(OpenAI.BadRequestError);
  });

  it("Anthropic Messages, tool_use ids missing and repeated", async () => {
    const anthropic = new Anthropic({ apiKey: "sk-ant-test", baseURL: llm.url, maxRetries: 0 });
    const messages: MessageParam[] = [{ role: "user", content: "Weather in Paris and Rome?" }];
    const request = { model: "claude-sonnet-4-6", max_tokens: 256, messages };
    const injected = await inject("anthropic", request);
    const first = await anthropic.messages.create(injected.request as typeof request);
    const { body, ran } = await intercept("anthropic", first, "w-anth", injected.injected);
    expect(ran).toEqual(["Paris", "Rome"]);
    const results = (body.messages[0] as { content: ContentBlockParam[] }).content;
    const own = body.passThrough.map(
      (id): ContentBlockParam => ({ type: "tool_result", tool_use_id: id, content: "a.txt" }),
    );
    const next = (content: unknown) =>
      anthropic.messages.create({
        ...request,
        messages: [
          ...messages,
          { role: "assistant", content: content as ContentBlockParam[] },
          { role: "user", content: [...results, ...own] },
        ],
      });
    const answer = await next(body.response.content);
    expect(answer.content[0]).toMatchObject({ type: "text", text: "done" });
    await expect(next(first.content)).rejects.toBeInstanceOf(Anthropic.BadRequestError);
  });

  it("Gemini, two candidates, calls without ids", async () => {
    const ai = new GoogleGenAI({ apiKey: "g-test", httpOptions: { baseUrl: llm.url } });
    const contents: Content[] = [{ role: "user", parts: [{ text: "Weather in Paris?" }] }];
    const request = { model: "gemini-2.5-flash", contents, config: { candidateCount: 2 } };
    const injected = await inject("gemini", request);
    const first = await ai.models.generateContent(injected.request as typeof request);
    const { body, ran } = await intercept("gemini", first, "w-gem", injected.injected);
    expect(ran).toEqual(["Paris"]);
    expect(body.passThrough).toEqual(["fc_1"]);
    const turn = body.response.candidates[0].content as Content;
    expect(turn.parts![0]!.thoughtSignature).toBe("c2ln");
    const ours = [...((body.messages[0] as { parts: Part[] }).parts ?? [])];
    const parts = turn.parts!.map(
      (part, i): Part =>
        body.passThrough.includes(`fc_${i}`)
          ? { functionResponse: { name: part.functionCall!.name!, response: { output: "a.txt" } } }
          : ours.shift()!,
    );
    const next = await ai.models.generateContent({
      model: "gemini-2.5-flash",
      contents: [...contents, turn, { role: "user", parts }],
    });
    expect(next.text).toBe("done");
  });
});
