import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { storedJson } from "../../workers/src/skills/execution/stored-json.js";
import { startTestApp, type TestApp } from "../support/app.js";

const INPUT_CAP = 4096;
const OUTPUT_CAP = 2048;
const utf8 = (text: string) => new TextEncoder().encode(text).length;

let t: TestApp;
beforeAll(async () => {
  t = await startTestApp({
    env: {
      SKILLS_MAX_STORED_INPUT_BYTES: String(INPUT_CAP),
      SKILLS_MAX_STORED_OUTPUT_BYTES: String(OUTPUT_CAP),
    },
  });
  for (const [name, policy] of [
    ["echo-capped", "auto"],
    ["echo-approval", "hybrid"],
  ] as const) {
    const res = await t.api.post("/api/skills/install", {
      name,
      version: "1.0.0",
      description: "Echoes its input",
      schema: { input: { type: "object" } },
      handlerCode: "echo-handler",
      policy,
    });
    expect(res.status).toBe(201);
  }
});
afterAll(() => t.close());

async function row(id: string) {
  const res = await t.client.execute({
    sql: "select input, output, input_truncated, output_truncated from skill_executions where id = ?",
    args: [id],
  });
  return res.rows[0]!;
}

describe("what an execution row keeps", () => {
  it("keeps a prefix of an input and output over their caps, flags them, and answers the whole output", async () => {
    const text = "é".repeat(5_000); // 10,000 bytes of UTF-8
    const res = await t.api.post("/api/skills/executions", {
      skillName: "echo-capped",
      input: { text },
    });
    expect(res.status).toBe(200);
    const answered = res.body.execution;
    expect(answered).toMatchObject({ status: "success", inputTruncated: false });
    expect(answered.outputTruncated).toBe(false);
    expect(answered.output.text).toBe(text);
    expect(answered.input.text).toBe(text);

    const stored = await row(answered.id);
    expect([stored.input_truncated, stored.output_truncated]).toEqual([1, 1]);
    expect(utf8(String(stored.input))).toBeLessThanOrEqual(INPUT_CAP);
    expect(utf8(String(stored.output))).toBeLessThanOrEqual(OUTPUT_CAP);

    const read = (await t.api.get(`/api/skills/executions/${answered.id}`)).body.execution;
    expect(read).toMatchObject({ inputTruncated: true, outputTruncated: true });
    expect(typeof read.input).toBe("string");
    expect(read.input.startsWith('{"text":"éé')).toBe(true);
    expect(JSON.stringify(text).includes(read.input.slice(9))).toBe(true);
    expect(read.output.startsWith('{"text":"éé')).toBe(true);
    expect(utf8(JSON.stringify(read.output))).toBeLessThanOrEqual(OUTPUT_CAP);

    const page = await t.api.get("/api/skills/executions?skill=echo-capped");
    const listed = page.body.data.find((e: { id: string }) => e.id === answered.id);
    expect(listed).toMatchObject({ inputTruncated: true, outputTruncated: true });
  });

  it("keeps values under the caps whole and unflagged", async () => {
    const input = { text: "short", n: [1, 2, 3] };
    const res = await t.api.post("/api/skills/executions", { skillName: "echo-capped", input });
    const read = (await t.api.get(`/api/skills/executions/${res.body.execution.id}`)).body
      .execution;
    expect(read).toMatchObject({ input, output: input, inputTruncated: false });
    expect(read.outputTruncated).toBe(false);
  });

  it("refuses to hold an input over the cap for approval: the tool call gets an error and nothing is stored", async () => {
    const key = await t.api.createKey("approval-cap");
    const before = await t.client.execute("select count(*) as n from skill_executions");
    const res = await t.api.as(key.key).post("/api/skills/intercept", {
      format: "openai-chat",
      response: {
        choices: [
          {
            index: 0,
            finish_reason: "tool_calls",
            message: {
              role: "assistant",
              content: null,
              tool_calls: [
                {
                  id: "call_big",
                  type: "function",
                  function: {
                    name: "echo-approval_v1_0_0",
                    arguments: JSON.stringify({ text: "x".repeat(INPUT_CAP) }),
                  },
                },
              ],
            },
          },
        ],
      },
    });
    expect(res.status).toBe(200);
    expect(res.body.toolResults[0]).toMatchObject({ callId: "call_big", status: "error" });
    expect(res.body.toolResults[0].error).toContain("awaiting approval");
    const after = await t.client.execute("select count(*) as n from skill_executions");
    expect(Number(after.rows[0]!.n)).toBe(Number(before.rows[0]!.n));

    const small = await t.api.as(key.key).post("/api/skills/intercept", {
      format: "openai-chat",
      response: {
        choices: [
          {
            index: 0,
            finish_reason: "tool_calls",
            message: {
              role: "assistant",
              content: null,
              tool_calls: [
                {
                  id: "call_small",
                  type: "function",
                  function: { name: "echo-approval_v1_0_0", arguments: '{"text":"ok"}' },
                },
              ],
            },
          },
        ],
      },
    });
    expect(small.body.toolResults[0].status).toBe("pending_approval");
  });
});

describe("storedJson", () => {
  it.each([
    ["ascii", { a: "x".repeat(5_000) }],
    ["quotes", '"'.repeat(5_000)],
    ["two-byte", "é".repeat(5_000)],
    ["astral", "😀".repeat(3_000)],
    ["control", "\u0001".repeat(5_000)],
  ])("cuts %s text within the cap at a character boundary", (_label, value) => {
    const stored = storedJson(value, 1024);
    expect(stored.truncated).toBe(true);
    expect(utf8(stored.text)).toBeLessThanOrEqual(1024);
    expect(utf8(stored.text)).toBeGreaterThan(900);
    const prefix = JSON.parse(stored.text) as string;
    expect(JSON.stringify(value).startsWith(prefix)).toBe(true);
    expect(prefix).not.toMatch(/[\uD800-\uDBFF]$/);
  });

  it("stores values within the cap as their JSON", () => {
    expect(storedJson({ a: 1 }, 1024)).toEqual({ text: '{"a":1}', truncated: false });
    expect(storedJson(undefined, 1024)).toEqual({ text: "null", truncated: false });
    expect(storedJson("é".repeat(511), 1024)).toEqual({
      text: JSON.stringify("é".repeat(511)),
      truncated: false,
    });
  });
});
