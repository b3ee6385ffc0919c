/**
 * `previous_response_id` continues a proxied Responses conversation, against a provider that
 * stores responses as the OpenAI API does (test/support/fakes/responses-store.ts):
 * - after an answer that took several rounds, streamed or not, the id the client holds (the
 *   `response.completed` id, and in a stream also the `response.created` id) continues it;
 * - in a mixed turn the client answers only its own call and names the response: the owned call's
 *   output is supplied, so the provider finds every call answered.
 * Clients: the OpenAI Agents SDK (`previousResponseId`, streamed and not) and the openai SDK.
 */
import { Agent, OpenAIProvider, Runner, tool } from "@openai/agents";
import OpenAI from "openai";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { z } from "zod";
import { functionCall, message, responsesStore } from "../support/fakes/responses-store.js";
import type { Obj } from "../support/proxy-fixtures.js";
import { type ProxyStand, startProxyStand, tempOf, WEATHER } from "../support/proxy-stand.js";

let s: ProxyStand;
beforeAll(async () => {
  s = await startProxyStand({ PROXY_MAX_ROUNDS: "4" });
});
afterAll(() => s.close());

const textOf = (item: Obj): string =>
  typeof item.content === "string"
    ? item.content
    : (Array.isArray(item.content) ? (item.content as Obj[]) : [])
        .map((c) => String(c.text ?? ""))
        .join("");

/**
 * The model: for the last user message "… in <City> …" it calls the weather skill (and the
 * client's `Bash` when the message mentions files), then answers with what the outputs said.
 */
function weatherModel(conversation: Obj[]): Obj[] {
  let last = -1;
  conversation.forEach((item, i) => {
    if (item.role === "user") last = i;
  });
  const question = last >= 0 ? textOf(conversation[last]!) : "";
  const city = /in (\p{L}+)/u.exec(question)?.[1] ?? "nowhere";
  const outputs = conversation.slice(last + 1).filter((i) => i.type === "function_call_output");
  if (outputs.length === 0)
    return [
      functionCall(WEATHER, { city }),
      ...(/files/.test(question) ? [functionCall("Bash", { command: "ls" })] : []),
    ];
  const temp = outputs.some((o) => String(o.output).includes(String(tempOf(city))));
  return [message(`${city}: ${temp ? tempOf(city) : "?"}°C after ${outputs.length} output(s)`)];
}

function useStore() {
  const store = responsesStore(weatherModel);
  s.script(store.script);
  return store;
}

const runner = () =>
  new Runner({
    modelProvider: new OpenAIProvider({
      baseURL: `${s.app.url}/v1`,
      apiKey: s.key.key,
      useResponses: true,
    }),
    tracingDisabled: true,
  });

const bash = tool({
  name: "Bash",
  description: "Runs a shell command",
  parameters: z.object({ command: z.string() }),
  execute: async ({ command }) => `${command}: a.txt b.txt`,
});

const agent = () =>
  new Agent({ name: "helper", instructions: "Help.", model: "gpt-test", tools: [bash] });

async function agentRun(input: string, stream: boolean, previousResponseId?: string) {
  const r = runner();
  if (stream) {
    const result = await r.run(agent(), input, { stream: true, previousResponseId });
    await result.completed;
    return { text: String(result.finalOutput), id: result.lastResponseId };
  }
  const result = await r.run(agent(), input, { previousResponseId });
  return { text: String(result.finalOutput), id: result.lastResponseId };
}

describe("OpenAI Agents SDK", () => {
  for (const stream of [false, true]) {
    const how = stream ? "streamed" : "not streamed";
    it(`previousResponseId continues an answer that took two rounds (${how})`, async () => {
      const store = useStore();
      const first = await agentRun("Weather in Paris?", stream);
      expect(first.text).toBe(`Paris: ${tempOf("Paris")}°C after 1 output(s)`);
      // The id to continue from is the last round's.
      expect(first.id).toBe(store.answered()[1]);
      const next = await agentRun("And the weather in Rome?", stream, first.id);
      expect(next.text).toBe(`Rome: ${tempOf("Rome")}°C after 1 output(s)`);
      expect(store.answered()).toHaveLength(4);
    });

    it(`a mixed turn continued with previousResponseId gets the owned output back (${how})`, async () => {
      const store = useStore();
      const first = await agentRun("Weather in Oslo?", stream);
      const next = await agentRun("Weather in Lima, and the files?", stream, first.id);
      // The client ran Bash and sent only its output; the provider saw both outputs.
      expect(next.text).toBe(`Lima: ${tempOf("Lima")}°C after 2 output(s)`);
      const last = s.requests().at(-1)!.body;
      expect(last.previous_response_id).toBe(store.answered().at(-2));
      const outputs = (last.input as Obj[]).filter((i) => i.type === "function_call_output");
      expect(outputs).toHaveLength(2);
    });
  }
});

describe("openai SDK", () => {
  const client = () => new OpenAI({ baseURL: `${s.app.url}/v1`, apiKey: s.key.key, maxRetries: 0 });

  it("the response.created id of a streamed multi-round answer continues it too", async () => {
    useStore();
    const stream = client().responses.stream({ model: "gpt-test", input: "Weather in Kyiv?" });
    let createdId: string | undefined;
    stream.on("response.created", (e) => {
      createdId = e.response.id;
    });
    const done = await stream.finalResponse();
    expect(createdId).toBeDefined();
    expect(createdId).not.toBe(done.id);
    const next = await client().responses.create({
      model: "gpt-test",
      previous_response_id: createdId!,
      input: "And the weather in Baku?",
    });
    expect(next.output_text).toBe(`Baku: ${tempOf("Baku")}°C after 1 output(s)`);
  });

  it("a mixed turn: previous_response_id plus the client's own function_call_output", async () => {
    useStore();
    const tools = [
      {
        type: "function" as const,
        name: "Bash",
        parameters: { type: "object", properties: {} },
        strict: false,
      },
    ];
    const first = await client().responses.create({
      model: "gpt-test",
      input: "Weather in Lima, and the files?",
      tools,
    });
    const calls = first.output.flatMap((o) => (o.type === "function_call" ? [o] : []));
    expect(calls.map((c) => c.name)).toEqual(["Bash"]);
    const next = await client().responses.create({
      model: "gpt-test",
      previous_response_id: first.id,
      input: [{ type: "function_call_output", call_id: calls[0]!.call_id, output: "a.txt" }],
      tools,
    });
    expect(next.output_text).toBe(`Lima: ${tempOf("Lima")}°C after 2 output(s)`);
  });
});
