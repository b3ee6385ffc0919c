import { describe, expect, it } from "vitest";
import { getFormatAdapter, WIRE_FORMATS } from "../../workers/src/formats/index.js";
import type { JsonObject, WireFormat } from "../../workers/src/formats/types.js";
import { injectSkills } from "../../workers/src/skills/injection/injection.js";
import { TOOL_NAME_PATTERN } from "../../workers/src/skills/injection/tool-names.js";
import type { Skill } from "../../workers/src/skills/types.js";
import { skill, snapshot } from "./injection-fixtures.js";

const chat = (text: string, extra: JsonObject = {}): JsonObject => ({
  model: "gpt-4.1",
  messages: [{ role: "user", content: text }],
  ...extra,
});
const inject = (
  skills: Skill[],
  text: string,
  more: Partial<Parameters<typeof injectSkills>[0]> = {},
) =>
  injectSkills({
    format: "openai-chat",
    request: chat(text),
    snapshot: snapshot(skills),
    apiKeyId: "key-a",
    ranker: "keyword",
    ...more,
  });
const names = (r: ReturnType<typeof injectSkills>) =>
  r.injected.map((i) => `${i.name}@${i.version}`);

describe("selection by mode and policy", () => {
  it("on always (score null), off never, manual never, auto by score", () => {
    const r = inject(
      [
        skill({ name: "alwaysOn" }),
        skill({ name: "offOne", mode: "off" }),
        skill({ name: "disabledOne", enabled: false }),
        skill({ name: "manualOn", policy: "manual" }),
        skill({ name: "weatherNow", mode: "auto" }),
        skill({ name: "stockPrice", mode: "auto" }),
      ],
      "weatherNow please, also offOne manualOn disabledOne",
    );
    expect(r.injected).toEqual([
      {
        name: "alwaysOn",
        version: "1.0.0",
        toolName: "alwaysOn_v1_0_0",
        mode: "on",
        score: null,
        ranker: null,
      },
      {
        name: "weatherNow",
        version: "1.0.0",
        toolName: "weatherNow_v1_0_0",
        mode: "auto",
        score: 6,
        ranker: "keyword",
      },
    ]);
    expect((r.request.tools as unknown[]).length).toBe(2);
  });

  it("at most 5 auto skills at score >= 3, highest first, ties by installCount then name; on not counted", () => {
    const autos = [
      skill({ name: "alpha", mode: "auto", tags: ["report"] }), // 3
      skill({ name: "bravo", mode: "auto", tags: ["report"], installCount: 5 }), // 3
      skill({ name: "charlie", mode: "auto", tags: ["report", "weekly"] }), // 6
      skill({ name: "delta", mode: "auto", tags: ["report"] }), // 3
      skill({ name: "echo", mode: "auto", tags: ["report"] }), // 3
      skill({ name: "foxtrot", mode: "auto", tags: ["report"] }), // 3
      skill({ name: "golf", mode: "auto", description: "weekly" }), // 1
    ];
    const r = inject([skill({ name: "pinned" }), ...autos], "the weekly report");
    expect(names(r)).toEqual([
      "pinned@1.0.0",
      "charlie@1.0.0",
      "bravo@1.0.0",
      "alpha@1.0.0",
      "delta@1.0.0",
      "echo@1.0.0",
    ]);
    expect(r.injected.map((i) => i.score)).toEqual([null, 6, 3, 3, 3, 3]);
  });

  it("only the highest active version of a name competes", () => {
    const r = inject(
      [
        skill({ name: "fmt", version: "1.0.0", mode: "auto", tags: ["format", "code"] }),
        skill({ name: "fmt", version: "2.0.0", mode: "auto" }),
        skill({ name: "fmt", version: "3.0.0", mode: "off", tags: ["format", "code"] }),
      ],
      "format this code",
    );
    expect(r.injected).toEqual([]);
    const r2 = inject(
      [skill({ name: "fmt", version: "1.0.0" }), skill({ name: "fmt", version: "1.10.0" })],
      "x",
    );
    expect(names(r2)).toEqual(["fmt@1.10.0"]);
  });
});

describe("visibility per key", () => {
  it("global and own skills only; the key's own shadows a global of the same version", () => {
    const skills = [
      skill({ name: "shared", description: "global copy" }),
      skill({ name: "shared", description: "own copy", apiKeyId: "key-a" }),
      skill({ name: "mine", apiKeyId: "key-a" }),
      skill({ name: "theirs", apiKeyId: "key-b" }),
    ];
    const r = inject(skills, "x");
    expect(names(r)).toEqual(["mine@1.0.0", "shared@1.0.0"]);
    const tool = (r.request.tools as { function: { name: string; description: string } }[])[1]!;
    expect(tool.function.description).toBe("own copy");
    expect(names(inject(skills, "x", { apiKeyId: null }))).toEqual(["shared@1.0.0"]);
  });
  it("a higher global version beats a lower own version", () => {
    const r = inject(
      [
        skill({ name: "fmt", version: "2.0.0" }),
        skill({ name: "fmt", version: "1.0.0", apiKeyId: "key-a" }),
      ],
      "x",
    );
    expect(names(r)).toEqual(["fmt@2.0.0"]);
  });
});

describe("include, exclude, clashes, and nothing at all", () => {
  const v1 = skill({ name: "lookupWeather", version: "1.0.0", mode: "auto" });
  const v2 = skill({ name: "lookupWeather", version: "2.0.0", mode: "auto" });
  it("include puts two versions side by side", () => {
    const r = inject([v1, v2], "hello", {
      include: ["lookupWeather@1.0.0", "lookupWeather_v2_0_0"],
    });
    expect(r.injected.map((i) => i.toolName)).toEqual([
      "lookupWeather_v1_0_0",
      "lookupWeather_v2_0_0",
    ]);
    expect(r.injected.map((i) => i.score)).toEqual([0, 0]);
  });
  it("exclude by name or name@version", () => {
    expect(
      inject([skill({ name: "a" }), skill({ name: "b" })], "x", { exclude: ["a"] }).injected.map(
        (i) => i.name,
      ),
    ).toEqual(["b"]);
    expect(inject([skill({ name: "a" })], "x", { exclude: ["a@1.0.0"] }).injected).toEqual([]);
  });
  it("the client's own tool wins a name clash (emitted or bare name)", () => {
    const ws = skill({ name: "web_search", sourceProvider: "builtin" });
    const weather = skill({ name: "lookupWeather" });
    const other = skill({ name: "other" });
    const request = chat("x", {
      tools: [
        { type: "function", function: { name: "web_search", parameters: { type: "object" } } },
        { type: "function", function: { name: "lookupWeather", parameters: { type: "object" } } },
      ],
    });
    const r = injectSkills({
      format: "openai-chat",
      request,
      snapshot: snapshot([ws, weather, other]),
      apiKeyId: null,
    });
    expect(r.injected.map((i) => i.toolName)).toEqual(["other_v1_0_0"]);
    const none = injectSkills({
      format: "openai-chat",
      request,
      snapshot: snapshot([ws]),
      apiKeyId: null,
    });
    expect(none.request).toBe(request);
  });
  it("tool_choice none or the master switch off inject nothing", () => {
    const snap = snapshot([skill({ name: "a" })]);
    const request = chat("x", { tool_choice: "none" });
    expect(
      injectSkills({ format: "openai-chat", request, snapshot: snap, apiKeyId: null }),
    ).toEqual({ request, injected: [] });
    const off = injectSkills({
      format: "openai-chat",
      request: chat("x"),
      snapshot: snap,
      apiKeyId: null,
      skillsEnabled: false,
    });
    expect(off.injected).toEqual([]);
  });
  it("builtins take part as auto skills under their bare names", () => {
    const ws = skill({
      name: "web_search",
      sourceProvider: "builtin",
      mode: "auto",
      tags: ["search", "web"],
      description: "Search the web",
    });
    const r = inject([ws], "search the web for news");
    expect(r.injected).toEqual([
      {
        name: "web_search",
        version: "1.0.0",
        toolName: "web_search",
        mode: "auto",
        score: 4 + 6 + 3,
        ranker: "keyword",
      },
    ]);
  });
  it("the background reason counts", () => {
    const s = skill({ name: "issueSearch", mode: "auto" });
    expect(inject([s], "hello").injected).toEqual([]);
    // "issues" is not the token "issue": only "search" matches, 2 points, below the threshold.
    expect(
      inject([s], "hello", { backgroundReason: "search issues for the bug" }).injected,
    ).toEqual([]);
    expect(
      inject([s], "hello", { backgroundReason: "search the issue tracker" }).injected[0]?.score,
    ).toBe(4);
  });
});

describe("provider-safe names in every format", () => {
  const long = `w${"x".repeat(63)}`;
  const skills = [
    skill({ name: "lookupWeather" }),
    skill({ name: long }),
    skill({ name: "5h1w", version: "2.1.0" }),
  ];
  const requests: Record<WireFormat, JsonObject> = {
    "openai-chat": chat("hi"),
    "openai-responses": { model: "gpt-4.1", input: "hi" },
    anthropic: {
      model: "claude-sonnet-4-5",
      max_tokens: 100,
      messages: [{ role: "user", content: "hi" }],
    },
    gemini: { contents: [{ role: "user", parts: [{ text: "hi" }] }] },
  };
  it.each(WIRE_FORMATS)("%s", (format) => {
    const r = injectSkills({
      format,
      request: requests[format],
      snapshot: snapshot(skills),
      apiKeyId: null,
    });
    expect(r.injected.map((i) => i.name).sort()).toEqual(["5h1w", "lookupWeather", long].sort());
    for (const i of r.injected) expect(i.toolName).toMatch(TOOL_NAME_PATTERN);
    const declared = JSON.stringify(r.request);
    for (const i of r.injected) expect(declared).toContain(`"${i.toolName}"`);
    expect(getFormatAdapter(format).clientToolNames(r.request).size).toBe(3);
  });
});
