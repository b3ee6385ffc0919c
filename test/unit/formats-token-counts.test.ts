/**
 * What each wire format's adapter reads from a usage object (`tokenCounts`, the fields each
 * provider documents; docs/limits.md#token-budgets), and which formats can defer tools
 * (`deferTools`, Anthropic tool search; docs/proxy.md#anthropic-tool-search).
 */
import { describe, expect, it } from "vitest";
import { getFormatAdapter, WIRE_FORMATS } from "../../workers/src/formats/index.js";

describe("tokenCounts", () => {
  it("OpenAI Chat counts prompt and completion tokens", () => {
    const usage = { prompt_tokens: 12, completion_tokens: 5, total_tokens: 17 };
    expect(getFormatAdapter("openai-chat").tokenCounts(usage)).toEqual({ input: 12, output: 5 });
  });

  it("OpenAI Responses counts input and output tokens", () => {
    const usage = { input_tokens: 30, output_tokens: 7, total_tokens: 37 };
    expect(getFormatAdapter("openai-responses").tokenCounts(usage)).toEqual({
      input: 30,
      output: 7,
    });
  });

  it("Anthropic adds cache writes and cache reads to the input", () => {
    const usage = {
      input_tokens: 10,
      cache_creation_input_tokens: 200,
      cache_read_input_tokens: 3000,
      output_tokens: 40,
    };
    expect(getFormatAdapter("anthropic").tokenCounts(usage)).toEqual({ input: 3210, output: 40 });
  });

  it("Gemini adds thinking tokens to the output", () => {
    const usage = { promptTokenCount: 8, candidatesTokenCount: 4, thoughtsTokenCount: 16 };
    expect(getFormatAdapter("gemini").tokenCounts(usage)).toEqual({ input: 8, output: 20 });
  });

  it("a missing, negative or non-numeric count is 0, fractions are floored, a non-object is zeros", () => {
    for (const format of WIRE_FORMATS) {
      const adapter = getFormatAdapter(format);
      expect(adapter.tokenCounts(undefined)).toEqual({ input: 0, output: 0 });
      expect(adapter.tokenCounts("12")).toEqual({ input: 0, output: 0 });
      expect(adapter.tokenCounts({})).toEqual({ input: 0, output: 0 });
    }
    expect(
      getFormatAdapter("openai-chat").tokenCounts({ prompt_tokens: -3, completion_tokens: "9" }),
    ).toEqual({ input: 0, output: 0 });
    expect(
      getFormatAdapter("anthropic").tokenCounts({ input_tokens: 2.9, output_tokens: 1 }),
    ).toEqual({ input: 2, output: 1 });
  });
});

describe("deferTools", () => {
  it("only Anthropic Messages defers tools", () => {
    expect(WIRE_FORMATS.filter((f) => getFormatAdapter(f).deferTools !== undefined)).toEqual([
      "anthropic",
    ]);
  });

  it("marks the named declarations and appends the search tool once", () => {
    const deferTools = getFormatAdapter("anthropic").deferTools;
    if (!deferTools) throw new Error("anthropic has no deferTools");
    const request = {
      model: "claude",
      tools: [
        { name: "client_tool", input_schema: { type: "object" } },
        { name: "skill_a", input_schema: { type: "object" } },
      ],
    };
    const out = deferTools(request, new Set(["skill_a"]), "bm25");
    expect(out.tools).toEqual([
      { name: "client_tool", input_schema: { type: "object" } },
      { name: "skill_a", input_schema: { type: "object" }, defer_loading: true },
      { type: "tool_search_tool_bm25_20251119", name: "tool_search_tool_bm25" },
    ]);
    expect(request.tools).toHaveLength(2);
    const again = deferTools(out, new Set(["skill_a"]), "regex");
    expect(again.tools).toHaveLength(3);
  });
});
