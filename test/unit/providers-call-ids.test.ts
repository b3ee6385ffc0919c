/**
 * Call accounting in the wire-format modules: only the replayed choice / candidate is read, every
 * call gets a unique non-empty id (synthesised where the provider's is missing, empty or
 * repeated), the returned response carries the ids the follow-up answers, and outcomes are
 * paired with calls by position.
 */
import { describe, expect, it } from "vitest";
import { anthropic } from "../../workers/src/formats/anthropic/index.js";
import { gemini } from "../../workers/src/formats/gemini/index.js";
import { openaiChat } from "../../workers/src/formats/openai-chat/index.js";
import { openaiResponses } from "../../workers/src/formats/openai-responses/index.js";
import type { CallOutcome, ExtractedCall, JsonObject } from "../../workers/src/formats/types.js";
import { uniqueCallIds } from "../../workers/src/formats/wire.js";
import { chatResponse, json } from "./providers-fixtures.js";

const SKILL = "lookupWeather_v1_0_0";
const SAFE_ID = /^[A-Za-z0-9_-]+$/;
const ok = (call: ExtractedCall, output: unknown): CallOutcome => ({
  call,
  status: "success",
  output,
  executionId: `ex-${call.index}`,
});

describe("uniqueCallIds", () => {
  it("keeps good ids and synthesises the rest without collisions", () => {
    expect(uniqueCallIds(["a", "", undefined, "a", 7, "p0"], "p", "")).toEqual([
      "a",
      "p1",
      "p2",
      "p3",
      "p4",
      "p0",
    ]);
    // `p0` is taken by a later call, so the first call's synthesised id moves aside.
    expect(uniqueCallIds([undefined, "p0"], "p", "")).toEqual(["p0_2", "p0"]);
    expect(uniqueCallIds([null, "x"], "call_", "abc12345")).toEqual(["call_abc12345_0", "x"]);
  });
  it("computes the seed only when an id has to be made", () => {
    let seeded = 0;
    const seed = () => {
      seeded++;
      return "s";
    };
    expect(uniqueCallIds(["a", "b"], "c_", seed)).toEqual(["a", "b"]);
    expect(seeded).toBe(0);
    expect(uniqueCallIds(["a", ""], "c_", seed)).toEqual(["a", "c_s_1"]);
    expect(seeded).toBe(1);
  });
});

/** A Chat response whose `choices[0]` holds `calls` (raw tool_call entries). */
function chatWith(calls: JsonObject[], extraChoices: JsonObject[] = []): JsonObject {
  const res = json(chatResponse(SKILL));
  const choices = res.choices as { message: { tool_calls: unknown[] } }[];
  choices[0]!.message.tool_calls = calls;
  return { ...res, choices: [...choices, ...extraChoices] };
}
const fn = (name: string, args: object, id?: string): JsonObject => ({
  ...(id === undefined ? {} : { id }),
  type: "function",
  function: { name, arguments: JSON.stringify(args) },
});

describe("Chat Completions", () => {
  it("empty and missing ids get stable synthetic ids that the replayed turn carries", () => {
    const res = chatWith([
      fn(SKILL, { city: "Paris" }, ""),
      fn(SKILL, { city: "Rome" }),
      fn("Bash", { cmd: "ls" }),
    ]);
    const before = JSON.stringify(res);
    const calls = openaiChat.extractCalls(res);
    const ids = calls.map((c) => c.callId);
    expect(ids).toHaveLength(3);
    for (const id of ids) expect(id).toMatch(/^call_[0-9a-z]{8}_[0-2]$/);
    expect(new Set(ids).size).toBe(3);
    expect(calls.map((c) => c.providerId)).toEqual(["", undefined, undefined]);
    expect(openaiChat.extractCalls(res).map((c) => c.callId)).toEqual(ids);

    const spliced = openaiChat.splice(res, [ok(calls[0]!, 1), ok(calls[1]!, 2)]);
    expect(JSON.stringify(res)).toBe(before);
    const replayed = openaiChat.replayTurn(spliced)[0] as { tool_calls: { id: string }[] };
    expect(replayed.tool_calls.map((tc) => tc.id)).toEqual(ids);
    expect(openaiChat.replayTurn(res)).toEqual(openaiChat.replayTurn(spliced));
    // Intercepting the returned response again finds the same ids and changes nothing.
    expect(openaiChat.extractCalls(spliced).map((c) => c.callId)).toEqual(ids);
    expect(openaiChat.splice(spliced, [])).toBe(spliced);
    const followUp = openaiChat.followUp([ok(calls[0]!, 1), ok(calls[1]!, 2)]) as {
      tool_call_id: string;
    }[];
    expect(followUp.map((m) => m.tool_call_id)).toEqual([ids[0], ids[1]]);
  });
  it("synthetic ids differ between responses, so a conversation never repeats one", () => {
    const a = openaiChat.extractCalls(chatWith([fn(SKILL, { city: "Paris" })]));
    const b = openaiChat.extractCalls(chatWith([fn(SKILL, { city: "Oslo" })]));
    expect(a[0]!.callId).not.toBe(b[0]!.callId);
  });
  it("a repeated id: the first keeps it, the second gets its own", () => {
    const res = chatWith([
      fn(SKILL, { city: "Paris" }, "call_x"),
      fn(SKILL, { city: "Rome" }, "call_x"),
    ]);
    const calls = openaiChat.extractCalls(res);
    expect(calls[0]!.callId).toBe("call_x");
    expect(calls[1]!.callId).not.toBe("call_x");
    expect(calls[1]!.input).toEqual({ city: "Rome" });
    const spliced = openaiChat.splice(res, []);
    const tcs = (spliced.choices as { message: { tool_calls: { id: string }[] } }[])[0]!.message
      .tool_calls;
    expect(tcs.map((t) => t.id)).toEqual([calls[0]!.callId, calls[1]!.callId]);
  });
  it("only choices[0] is read, written or replayed", () => {
    const other = {
      index: 1,
      finish_reason: "tool_calls",
      message: { role: "assistant", content: null, tool_calls: [fn(SKILL, { city: "Oslo" })] },
    };
    const res = chatWith([fn(SKILL, { city: "Paris" })], [other]);
    const calls = openaiChat.extractCalls(res);
    expect(calls.map((c) => c.input)).toEqual([{ city: "Paris" }]);
    const spliced = openaiChat.splice(res, []);
    expect((spliced.choices as unknown[])[1]).toEqual(other);
    expect(openaiChat.replayTurn(res)).toHaveLength(1);
  });
  it("a call with no function name and a custom call stay the client's; custom calls replay as custom", () => {
    const res = chatWith([
      { id: "c1", type: "function", function: { arguments: "{}" } },
      { id: "c2", type: "custom", custom: { name: "apply_patch", input: "*** patch" } },
    ]);
    const calls = openaiChat.extractCalls(res);
    expect(calls.map((c) => [c.callId, c.name, c.clientOnly])).toEqual([
      ["c1", "", true],
      ["c2", "apply_patch", true],
    ]);
    const turn = openaiChat.replayTurn(res)[0] as { tool_calls: unknown[] };
    expect(turn.tool_calls[1]).toEqual({
      id: "c2",
      type: "custom",
      custom: { name: "apply_patch", input: "*** patch" },
    });
  });
});

const fcItem = (callId: string | undefined, city: string, id: string): JsonObject => ({
  type: "function_call",
  id,
  ...(callId === undefined ? {} : { call_id: callId }),
  name: SKILL,
  arguments: JSON.stringify({ city }),
  status: "completed",
});

describe("Responses", () => {
  it("a repeated call_id: outputs paired by position, item ids unique and safe", () => {
    const res = {
      output: [
        fcItem("call|x.1", "Paris", "fc_1"),
        fcItem("call|x.1", "Rome", "fc_2"),
        { type: "message", id: "fco_call_x_1", role: "assistant", content: [] },
      ],
    };
    const calls = openaiResponses.extractCalls(res);
    expect(calls[0]!.callId).toBe("call|x.1");
    expect(calls[1]!.callId).not.toBe("call|x.1");
    const out = openaiResponses.splice(res, [ok(calls[0]!, "P"), ok(calls[1]!, "R")]).output as {
      type: string;
      id: string;
      call_id?: string;
      output?: string;
    }[];
    expect(out.map((i) => [i.type, i.call_id, i.output])).toEqual([
      ["function_call", "call|x.1", undefined],
      ["function_call_output", "call|x.1", "P"],
      ["function_call", calls[1]!.callId, undefined],
      ["function_call_output", calls[1]!.callId, "R"],
      ["message", undefined, undefined],
    ]);
    const ids = out.map((i) => i.id);
    expect(new Set(ids).size).toBe(ids.length);
    for (const item of out.filter((i) => i.type === "function_call_output")) {
      expect(item.id).toMatch(SAFE_ID);
      expect(item.id.startsWith("fc")).toBe(true);
      expect(item.id.length).toBeLessThanOrEqual(64);
    }
  });
  it("a missing call_id is synthesised and written into the call item", () => {
    const res = {
      id: "resp_1",
      output: [fcItem(undefined, "Paris", "fc_1"), fcItem("", "Rome", "fc_2")],
    };
    const calls = openaiResponses.extractCalls(res);
    for (const c of calls) expect(c.callId).toMatch(/^call_[0-9a-z]{8}_[01]$/);
    const replay = openaiResponses.replayTurn(res) as { call_id: string }[];
    expect(replay.map((i) => i.call_id)).toEqual(calls.map((c) => c.callId));
    const follow = openaiResponses.followUp([ok(calls[1]!, "R")]) as { call_id: string }[];
    expect(follow[0]!.call_id).toBe(calls[1]!.callId);
  });
  it("computer, shell and apply_patch calls are accounted for as the client's", () => {
    const res = {
      output: [
        { type: "computer_call", id: "cu_1", call_id: "call_c", action: { type: "click" } },
        { type: "local_shell_call", id: "lsh_1", call_id: "call_l", action: {} },
        { type: "web_search_call", id: "ws_1", status: "completed" },
      ],
    };
    expect(openaiResponses.extractCalls(res).map((c) => [c.callId, c.clientOnly])).toEqual([
      ["call_c", true],
      ["call_l", true],
    ]);
  });
});

const toolUse = (id: string | undefined, city: string): JsonObject => ({
  type: "tool_use",
  ...(id === undefined ? {} : { id }),
  name: SKILL,
  input: { city },
});

describe("Anthropic", () => {
  it("missing, empty and repeated tool_use ids become unique safe ids in the replayed turn", () => {
    const res = {
      id: "msg_1",
      content: [
        { type: "text", text: "Checking." },
        toolUse(undefined, "Paris"),
        toolUse("", "Rome"),
        toolUse("toolu_a", "Oslo"),
        toolUse("toolu_a", "Lima"),
      ],
    };
    const calls = anthropic.extractCalls(res);
    const ids = calls.map((c) => c.callId);
    expect(new Set(ids).size).toBe(4);
    for (const id of ids) expect(id).toMatch(SAFE_ID);
    expect(ids[2]).toBe("toolu_a");
    const [turn] = anthropic.replayTurn(res) as { content: { type: string; id?: string }[] }[];
    expect(turn!.content.filter((b) => b.type === "tool_use").map((b) => b.id)).toEqual(ids);
    expect(turn!.content[0]).toEqual({ type: "text", text: "Checking." });
    const [msg] = anthropic.followUp(calls.map((c) => ok(c, c.input))) as {
      content: { tool_use_id: string; content: string }[];
    }[];
    expect(msg!.content.map((b) => [b.tool_use_id, JSON.parse(b.content).city])).toEqual([
      [ids[0], "Paris"],
      [ids[1], "Rome"],
      [ids[2], "Oslo"],
      [ids[3], "Lima"],
    ]);
    expect(anthropic.splice(res, [])).toEqual({ ...res, content: turn!.content });
  });
  it("an id with characters Anthropic refuses is replaced in the replayed turn", () => {
    const res = { content: [toolUse("call|x.1", "Paris"), toolUse("toolu_ok", "Rome")] };
    const calls = anthropic.extractCalls(res);
    expect(calls[0]!.providerId).toBe("call|x.1");
    expect(calls[0]!.callId).toMatch(/^toolu_[0-9a-z]{8}_0$/);
    expect(calls[1]!.callId).toBe("toolu_ok");
    const [turn] = anthropic.replayTurn(res) as { content: { id: string }[] }[];
    expect(turn!.content.map((b) => b.id)).toEqual([calls[0]!.callId, "toolu_ok"]);
  });
  it("a response with good ids is returned as is", () => {
    const res = { content: [toolUse("toolu_1", "Paris")] };
    expect(anthropic.splice(res, [])).toBe(res);
  });
});

const geminiCall = (city: string, id?: string) => ({
  functionCall: { name: SKILL, args: { city }, ...(id === undefined ? {} : { id }) },
});

describe("Gemini", () => {
  it("only candidates[0] is read and replayed", () => {
    const res = {
      candidates: [
        { index: 0, content: { role: "model", parts: [geminiCall("Paris")] } },
        { index: 1, content: { role: "model", parts: [geminiCall("Oslo"), geminiCall("Lima")] } },
      ],
    };
    expect(gemini.extractCalls(res).map((c) => [c.callId, c.input])).toEqual([
      ["fc_0", { city: "Paris" }],
    ]);
    expect(gemini.replayTurn(res)).toEqual([res.candidates[0]!.content]);
  });
  it("repeated ids: unique callIds, the provider's id echoed in order, the turn untouched", () => {
    const res = {
      candidates: [
        {
          content: {
            role: "model",
            parts: [geminiCall("Paris", "g"), geminiCall("Rome", "g"), geminiCall("Oslo", "")],
          },
        },
      ],
    };
    const calls = gemini.extractCalls(res);
    expect(calls.map((c) => c.callId)).toEqual(["g", "fc_1", "fc_2"]);
    const [turn] = gemini.followUp(calls.map((c) => ok(c, c.input))) as {
      parts: { functionResponse: { id?: string; response: { output: { city: string } } } }[];
    }[];
    expect(
      turn!.parts.map((p) => [p.functionResponse.id, p.functionResponse.response.output.city]),
    ).toEqual([
      ["g", "Paris"],
      ["g", "Rome"],
      [undefined, "Oslo"],
    ]);
    expect(gemini.splice(res, [])).toBe(res);
  });
});
