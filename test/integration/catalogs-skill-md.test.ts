import { afterAll, beforeAll, describe, expect, it } from "vitest";
import {
  INSTRUCTION_HANDLER,
  instructionHandler,
} from "../../workers/src/skills/builtins/instructions.js";
import { startTestApp, type TestApp } from "../support/app.js";
import { skillMd, startFakeGithubRaw, startFakeSkillsSh } from "../support/fakes/catalogs.js";
import type { FakeServer } from "../support/fakes/http.js";

let t: TestApp;
let sh: FakeServer;
let gh: FakeServer;

beforeAll(async () => {
  sh = await startFakeSkillsSh([]);
  gh = await startFakeGithubRaw({
    "acme/typed": {
      defaultBranch: "main",
      branches: {
        main: {
          "skills/404/SKILL.md": skillMd(
            { name: "404", description: "2024", version: "1.10" },
            "# Not found pages\n\nExplain what a 404 means.",
          ),
          "skills/linked/SKILL.md": "../../common/linked.md",
          "common/linked.md": skillMd(
            { name: "linked", description: "Reached through a symbolic link" },
            "# Linked",
          ),
          "skills/outside/SKILL.md": "../../../acme-other/SKILL.md",
        },
      },
    },
  });
  t = await startTestApp({ env: { SKILLSSH_BASE_URL: sh.url, GITHUB_RAW_BASE_URL: gh.url } });
  if (!t.services.executor.hasHandler(INSTRUCTION_HANDLER)) {
    t.services.executor.registerHandler(INSTRUCTION_HANDLER, instructionHandler);
  }
  expect((await t.api.put("/api/settings", { activeProvider: "skillssh" })).status).toBe(200);
});
afterAll(async () => {
  await t.close();
  await sh.close();
  await gh.close();
});

const install = (skillId: string) =>
  t.api.post("/api/skills/skillssh/install", { source: "acme/typed", skillId });

describe("catalog install: SKILL.md fields and links", () => {
  it("installs `name: 404`, `version: 1.10` as the name 404 at 1.10.0, and runs it", async () => {
    const res = await install("404");
    expect(res.status).toBe(201);
    expect(res.body.skill).toMatchObject({ name: "404", version: "1.10.0", description: "2024" });
    const run = await t.api.post("/api/skills/executions", { skillName: "404@1.10.0" });
    expect(run.status).toBe(200);
    expect(run.body.execution.status).toBe("success");
    expect(JSON.stringify(run.body.execution.output)).toContain("Explain what a 404 means.");
  });

  it("follows a SKILL.md that is a symbolic link inside the repository", async () => {
    const res = await install("linked");
    expect(res.status).toBe(201);
    expect(res.body.skill).toMatchObject({ name: "linked", instructions: "# Linked" });
    expect(res.body.skillMd.path).toBe("HEAD/common/linked.md");
  });

  it("refuses a link leaving the repository with 422 skill_md_link, and installs nothing", async () => {
    const res = await install("outside");
    expect([res.status, res.body.error.code]).toEqual([422, "skill_md_link"]);
    expect(res.body.error.message).toContain("symbolic link");
    const rows = await t.client.execute(
      "select count(*) as n from skills where source_ref = 'acme/typed/outside'",
    );
    expect(Number(rows.rows[0]!.n)).toBe(0);
  });
});
