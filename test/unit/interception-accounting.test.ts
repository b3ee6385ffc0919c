/**
 * Every tool call of a response is accounted for exactly once, in all four wire formats: only
 * the replayed choice / candidate counts, calls without ids are answered or passed through under
 * synthetic ids that the returned response carries, calls sharing an id are paired by position,
 * and a version that does not exist gets a tool error instead of passing through.
 */
import { describe, expect, it } from "vitest";
import type { JsonObject, WireFormat } from "../../workers/src/formats/types.js";
import {
  type InterceptResult,
  interceptToolCalls,
} from "../../workers/src/skills/interception/interception.js";
import { fakeExecutor, skill, snapshot } from "./injection-fixtures.js";

const FORMATS: WireFormat[] = ["openai-chat", "openai-responses", "anthropic", "gemini"];
const TOOL = "lookupWeather_v1_0_0";
const weather = skill({ name: "lookupWeather", version: "1.0.0" });

/** One call of a test response; `id: undefined` leaves the id field out. */
interface CallSpec {
  name: string;
  args: JsonObject;
  id?: string;
}
const idField = (key: string, id: string | undefined) => (id === undefined ? {} : { [key]: id });

/** The response of `format` whose replayed turn holds `calls` (and `others` in a second choice / candidate). */
function responseWith(format: WireFormat, calls: CallSpec[], others: CallSpec[] = []) {
  switch (format) {
    case "openai-chat": {
      const choice = (index: number, list: CallSpec[]) => ({
        index,
        finish_reason: "tool_calls",
        message: {
          role: "assistant",
          content: null,
          tool_calls: list.map((c) => ({
            ...idField("id", c.id),
            type: "function",
            function: { name: c.name, arguments: JSON.stringify(c.args) },
          })),
        },
      });
      const choices = [choice(0, calls), ...(others.length ? [choice(1, others)] : [])];
      return { id: "chatcmpl-1", object: "chat.completion", choices };
    }
    case "openai-responses":
      return {
        id: "resp_1",
        output: calls.map((c, i) => ({
          type: "function_call",
          id: `fc_${i}`,
          ...idField("call_id", c.id),
          name: c.name,
          arguments: JSON.stringify(c.args),
          status: "completed",
        })),
      };
    case "anthropic":
      return {
        id: "msg_1",
        role: "assistant",
        content: calls.map((c) => ({
          type: "tool_use",
          ...idField("id", c.id),
          name: c.name,
          input: c.args,
        })),
      };
    case "gemini": {
      const candidate = (index: number, list: CallSpec[]) => ({
        index,
        content: {
          role: "model",
          parts: list.map((c) => ({
            functionCall: { name: c.name, args: c.args, ...idField("id", c.id) },
          })),
        },
      });
      return {
        candidates: [candidate(0, calls), ...(others.length ? [candidate(1, others)] : [])],
      };
    }
  }
}

/** The call ids of the returned response's replayed turn, read from the wire shape. */
function replayedIds(format: WireFormat, response: JsonObject): (string | undefined)[] {
  const r = response as {
    choices?: { message: { tool_calls: { id?: string }[] } }[];
    output?: { type: string; call_id?: string }[];
    content?: { type: string; id?: string }[];
    candidates?: { content: { parts: { functionCall: { id?: string } }[] } }[];
  };
  if (format === "openai-chat") return r.choices![0]!.message.tool_calls.map((t) => t.id);
  if (format === "openai-responses")
    return r.output!.filter((i) => i.type === "function_call").map((i) => i.call_id);
  if (format === "anthropic")
    return r.content!.filter((b) => b.type === "tool_use").map((b) => b.id);
  return r.candidates![0]!.content.parts.map((p) => p.functionCall.id);
}

/** The call ids the follow-up answers, in order (Gemini: the echoed ids, possibly absent). */
function answeredIds(format: WireFormat, r: InterceptResult): (string | undefined)[] {
  const m = r.messages as JsonObject[];
  if (format === "openai-chat") return m.map((x) => x.tool_call_id as string);
  if (format === "openai-responses") return m.map((x) => x.call_id as string);
  if (format === "anthropic")
    return m.flatMap((x) => (x.content as { tool_use_id: string }[]).map((b) => b.tool_use_id));
  return m.flatMap((x) =>
    (x.parts as { functionResponse: { id?: string } }[]).map((p) => p.functionResponse.id),
  );
}

/**
 * Every call of the replayed turn is answered or passed through exactly once, under the id the
 * returned response carries, and no id is empty.
 */
function expectAccounted(format: WireFormat, r: InterceptResult, count: number): string[] {
  const wire = replayedIds(format, r.response);
  expect(wire).toHaveLength(count);
  // A Gemini turn is never rewritten: a call without an id, or repeating an earlier call's id,
  // is reported as `fc_<index>`.
  const ids = wire.map((id, i) =>
    format === "gemini" && (!id || wire.indexOf(id) < i) ? `fc_${i}` : id!,
  );
  for (const id of ids) expect(id).toMatch(/^\S+$/);
  expect(new Set(ids).size).toBe(count);
  expect([...r.toolResults.map((t) => t.callId), ...r.passThrough].sort()).toEqual([...ids].sort());
  for (const id of answeredIds(format, r)) if (id !== undefined) expect(id).not.toBe("");
  return ids;
}

describe("alternatives (several choices / candidates)", () => {
  it.each(["openai-chat", "gemini"] as const)(
    "%s: only the first alternative's calls run and are answered",
    async (format) => {
      const fake = fakeExecutor();
      const r = await interceptToolCalls({
        format,
        apiKeyId: null,
        response: responseWith(
          format,
          [
            { name: TOOL, args: { city: "Paris" }, id: "c0" },
            { name: "Bash", args: { cmd: "ls" }, id: "c1" },
          ],
          [{ name: TOOL, args: { city: "Oslo" }, id: "alt" }],
        ),
        snapshot: snapshot([weather]),
        executor: fake.executor,
      });
      expect(fake.calls.map((c) => c.input)).toEqual([{ city: "Paris" }]);
      expect(r.toolResults.map((t) => t.callId)).toEqual(["c0"]);
      expect(r.passThrough).toEqual(["c1"]);
      expect(answeredIds(format, r)).toEqual(["c0"]);
      expect(JSON.stringify(r.messages)).not.toContain("Oslo");
      expectAccounted(format, r, 2);
    },
  );
});

describe("calls without ids", () => {
  it.each(FORMATS)(
    "%s: empty id, no id (owned) and no id (client tool) are all accounted for",
    async (format) => {
      const fake = fakeExecutor();
      const r = await interceptToolCalls({
        format,
        apiKeyId: null,
        response: responseWith(format, [
          { name: TOOL, args: { city: "Paris" }, id: "" },
          { name: TOOL, args: { city: "Rome" } },
          { name: "Bash", args: { cmd: "ls" } },
        ]),
        snapshot: snapshot([weather]),
        executor: fake.executor,
      });
      const ids = expectAccounted(format, r, 3);
      expect(r.toolResults.map((t) => [t.callId, t.status])).toEqual([
        [ids[0], "success"],
        [ids[1], "success"],
      ]);
      expect(r.passThrough).toEqual([ids[2]]);
      if (format === "gemini") {
        // Nothing to echo: Gemini pairs results with calls by order, and the turn is not rewritten.
        expect(answeredIds(format, r)).toEqual([undefined, undefined]);
      } else {
        expect(answeredIds(format, r)).toEqual([ids[0], ids[1]]);
      }
      expect(fake.calls.map((c) => c.input)).toEqual([{ city: "Paris" }, { city: "Rome" }]);
    },
  );
});

describe("calls sharing one id", () => {
  it.each(FORMATS)("%s: results are paired by position, never crossed", async (format) => {
    const fake = fakeExecutor();
    const dup = "call|x.1";
    const r = await interceptToolCalls({
      format,
      apiKeyId: null,
      response: responseWith(format, [
        { name: TOOL, args: { city: "Paris" }, id: dup },
        { name: TOOL, args: { city: "Rome" }, id: dup },
        { name: "Bash", args: { cmd: "ls" }, id: dup },
      ]),
      snapshot: snapshot([weather]),
      executor: fake.executor,
    });
    const ids = expectAccounted(format, r, 3);
    const cities = r.toolResults.map((t) => (t.output as { input: { city: string } }).input.city);
    expect(cities).toEqual(["Paris", "Rome"]);
    expect(r.toolResults.map((t) => t.callId)).toEqual([ids[0], ids[1]]);
    expect(r.passThrough).toEqual([ids[2]]);
    if (format === "anthropic") for (const id of ids) expect(id).toMatch(/^[a-zA-Z0-9_-]+$/);
    if (format === "gemini") expect(answeredIds(format, r)).toEqual([dup, dup]);
    else expect(answeredIds(format, r)).toEqual([ids[0], ids[1]]);
    if (format === "openai-responses") {
      const out = r.response.output as { type: string; id: string; output?: string }[];
      expect(out.map((i) => i.type)).toEqual([
        "function_call",
        "function_call_output",
        "function_call",
        "function_call_output",
        "function_call",
      ]);
      expect(JSON.parse(out[1]!.output!).input.city).toBe("Paris");
      expect(JSON.parse(out[3]!.output!).input.city).toBe("Rome");
      for (const item of out) expect(item.id).toMatch(/^[A-Za-z0-9_-]+$/);
      expect(new Set(out.map((i) => i.id)).size).toBe(out.length);
    }
  });
});
