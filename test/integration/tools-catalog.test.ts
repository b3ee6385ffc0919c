/**
 * Catalog installs through inject/intercept: a skills.sh install by key K is injected into K's requests
 * (and no other key's), and the model's call to it runs: it returns the SKILL.md body.
 */
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import {
  INSTRUCTION_HANDLER,
  instructionHandler,
} from "../../workers/src/skills/builtins/instructions.js";
import { startTestApp, type TestApp } from "../support/app.js";
import { skillMd, startFakeGithubRaw, startFakeSkillsSh } from "../support/fakes/catalogs.js";
import type { FakeServer } from "../support/fakes/http.js";

const BODY = "# Invoice tools\n\nRead the totals line first, then the VAT lines.";
let t: TestApp;
let sh: FakeServer;
let gh: FakeServer;
let keyK: { key: string; id: string };
let keyOther: { key: string; id: string };

beforeAll(async () => {
  sh = await startFakeSkillsSh([
    { source: "acme/skills", skillId: "invoice-reader", name: "invoice-reader", installs: 40 },
  ]);
  gh = await startFakeGithubRaw({
    "acme/skills": {
      defaultBranch: "main",
      branches: {
        main: {
          "skills/invoice-reader/SKILL.md": skillMd(
            { name: "invoice-reader", description: "Read totals from invoices" },
            BODY,
          ),
        },
      },
    },
  });
  t = await startTestApp({ env: { SKILLSSH_BASE_URL: sh.url, GITHUB_RAW_BASE_URL: gh.url } });
  if (!t.services.executor.hasHandler(INSTRUCTION_HANDLER))
    t.services.executor.registerHandler(INSTRUCTION_HANDLER, instructionHandler);
  keyK = await t.api.createKey("K");
  keyOther = await t.api.createKey("other");
  expect((await t.api.put("/api/settings", { activeProvider: "skillssh" })).status).toBe(200);
  const res = await t.api
    .as(keyK.key)
    .post("/api/skills/skillssh/install", { source: "acme/skills", skillId: "invoice-reader" });
  expect(res.status).toBe(201);
});
afterAll(async () => {
  await t.close();
  await sh.close();
  await gh.close();
});

const request = {
  model: "claude-sonnet-4-5",
  max_tokens: 512,
  messages: [
    { role: "user", content: "Use invoice-reader on the attached invoice and give me the totals." },
  ],
};

describe("a key's catalog install over inject / intercept", () => {
  it("K's catalog install is injected for K only", async () => {
    const forK = await t.api
      .as(keyK.key)
      .post("/api/skills/inject", { format: "anthropic", request });
    const mine = forK.body.injected.find((i: { name: string }) => i.name === "invoice-reader");
    expect(mine).toMatchObject({
      mode: "auto",
      toolName: expect.stringMatching(/^invoice-reader_v\d+_\d+_\d+$/),
      ranker: "bm25",
    });
    expect(mine.score).toBeGreaterThan(0);
    const forOther = await t.api
      .as(keyOther.key)
      .post("/api/skills/inject", { format: "anthropic", request });
    expect(forOther.body.injected.map((i: { name: string }) => i.name)).not.toContain(
      "invoice-reader",
    );
  });

  it("the model's call to it returns the SKILL.md body", async () => {
    const forK = await t.api
      .as(keyK.key)
      .post("/api/skills/inject", { format: "anthropic", request });
    const toolName = forK.body.injected.find(
      (i: { name: string }) => i.name === "invoice-reader",
    ).toolName;
    const response = {
      id: "msg_c5",
      type: "message",
      role: "assistant",
      model: "claude-sonnet-4-5",
      content: [{ type: "tool_use", id: "toolu_c5", name: toolName, input: { task: "totals" } }],
      stop_reason: "tool_use",
    };
    const res = await t.api
      .as(keyK.key)
      .post("/api/skills/intercept", { format: "anthropic", response });
    expect(res.body.toolResults[0]).toMatchObject({ status: "success", callId: "toolu_c5" });
    const block = res.body.messages[0].content[0];
    expect(block.type).toBe("tool_result");
    expect(block.content).toContain("Read the totals line first");
  });
});
