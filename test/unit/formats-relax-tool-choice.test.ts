/**
 * `relaxToolChoice` of each wire format: a forcing choice becomes the format's "auto" (keeping
 * what "auto" keeps), any other choice leaves the request as it is, and the input is not mutated.
 */
import { describe, expect, it } from "vitest";
import { getFormatAdapter } from "../../workers/src/formats/index.js";
import type { JsonObject, WireFormat } from "../../workers/src/formats/types.js";

const relax = (format: WireFormat, request: JsonObject) =>
  getFormatAdapter(format).relaxToolChoice(request);

describe("OpenAI Chat and Responses", () => {
  for (const format of ["openai-chat", "openai-responses"] as const) {
    it(`${format}: required and named choices become auto`, () => {
      expect(relax(format, { tool_choice: "required" }).tool_choice).toBe("auto");
      expect(relax(format, { tool_choice: { type: "function", name: "x" } }).tool_choice).toBe(
        "auto",
      );
      expect(relax(format, { tool_choice: { type: "custom", custom: { name: "x" } } })).toEqual({
        tool_choice: "auto",
      });
    });

    it(`${format}: auto, none and no choice are left as they are`, () => {
      for (const request of [{ tool_choice: "auto" }, { tool_choice: "none" }, { model: "m" }])
        expect(relax(format, request)).toBe(request);
    });
  }

  it("Chat allowed_tools keeps its list with mode auto; the input is not mutated", () => {
    const request = {
      tool_choice: {
        type: "allowed_tools",
        allowed_tools: { mode: "required", tools: [{ type: "function", function: { name: "a" } }] },
      },
    };
    const copy = structuredClone(request);
    expect(relax("openai-chat", request).tool_choice).toEqual({
      type: "allowed_tools",
      allowed_tools: { mode: "auto", tools: [{ type: "function", function: { name: "a" } }] },
    });
    expect(request).toEqual(copy);
  });

  it("Responses allowed_tools keeps its list with mode auto", () => {
    const choice = {
      type: "allowed_tools",
      mode: "required",
      tools: [{ type: "function", name: "a" }],
    };
    expect(relax("openai-responses", { tool_choice: choice }).tool_choice).toEqual({
      ...choice,
      mode: "auto",
    });
    const auto = { tool_choice: { ...choice, mode: "auto" } };
    expect(relax("openai-responses", auto)).toBe(auto);
  });
});

describe("Anthropic", () => {
  it("any and tool become auto, keeping disable_parallel_tool_use", () => {
    expect(relax("anthropic", { tool_choice: { type: "any" } }).tool_choice).toEqual({
      type: "auto",
    });
    expect(
      relax("anthropic", {
        tool_choice: { type: "tool", name: "x", disable_parallel_tool_use: true },
      }).tool_choice,
    ).toEqual({ type: "auto", disable_parallel_tool_use: true });
  });

  it("auto and none are left as they are", () => {
    for (const request of [{ tool_choice: { type: "auto" } }, { tool_choice: { type: "none" } }])
      expect(relax("anthropic", request)).toBe(request);
  });
});

describe("Gemini", () => {
  it("mode ANY becomes AUTO without allowed function names, in the REST shape", () => {
    const request = {
      toolConfig: { functionCallingConfig: { mode: "ANY", allowedFunctionNames: ["x"] } },
    };
    expect(relax("gemini", request)).toEqual({
      toolConfig: { functionCallingConfig: { mode: "AUTO" } },
    });
  });

  it("snake_case and the SDK's config shape are relaxed too", () => {
    expect(
      relax("gemini", {
        tool_config: { function_calling_config: { mode: "any", allowed_function_names: ["x"] } },
      }),
    ).toEqual({ tool_config: { function_calling_config: { mode: "AUTO" } } });
    expect(
      relax("gemini", { config: { toolConfig: { functionCallingConfig: { mode: "ANY" } } } }),
    ).toEqual({ config: { toolConfig: { functionCallingConfig: { mode: "AUTO" } } } });
  });

  it("AUTO, NONE and VALIDATED are left as they are", () => {
    for (const mode of ["AUTO", "NONE", "VALIDATED"]) {
      const request = { toolConfig: { functionCallingConfig: { mode } } };
      expect(relax("gemini", request)).toBe(request);
    }
  });
});
