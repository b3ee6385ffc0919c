/**
 * The `skillgate` CLI against a running local server: every command, `--json` output parsed,
 * and exit codes (docs/cli.md#exit-codes).
 */
import { execFile } from "node:child_process";
import { writeFileSync } from "node:fs";
import { join } from "node:path";
import { afterEach, beforeEach, describe, expect, it } from "vitest";
import { MGMT_TOKEN, startTestApp, type TestApp, tempDir } from "../support/app.js";
import { skillMd, startFakeGithubRaw, startFakeSkillsSh } from "../support/fakes/catalogs.js";

const BIN = join(process.cwd(), "cli", "skillgate.mjs");

interface Run {
  code: number;
  stdout: string;
  stderr: string;
}

let t: TestApp;
let tmp: { dir: string; cleanup(): void };

beforeEach(async () => {
  t = await startTestApp();
  tmp = tempDir("skillgate-cli-");
});
afterEach(async () => {
  await t.close();
  tmp.cleanup();
});

function cli(args: string[], token: string | null = MGMT_TOKEN, url = t.url): Promise<Run> {
  const env: Record<string, string> = { ...process.env, SKILLGATE_URL: url } as Record<
    string,
    string
  >;
  if (token) env.SKILLGATE_TOKEN = token;
  else delete env.SKILLGATE_TOKEN;
  return new Promise((resolve) => {
    execFile(process.execPath, [BIN, ...args], { env, timeout: 60_000 }, (err, stdout, stderr) => {
      const code = err ? (typeof err.code === "number" ? err.code : 1) : 0;
      resolve({ code, stdout, stderr });
    });
  });
}

async function json<T = any>(args: string[], token: string = MGMT_TOKEN): Promise<T> {
  const r = await cli(["--json", ...args], token);
  expect(r.code, r.stderr).toBe(0);
  return JSON.parse(r.stdout) as T;
}

describe("skillgate CLI", () => {
  it("manages keys: create, list, revoke, with tables and JSON", async () => {
    const created = await json(["keys", "create", "ci-key"]);
    expect(created.key).toMatch(/^sg_/);
    const list = await json(["keys", "list"]);
    expect(list.data.map((k: { name: string }) => k.name)).toContain("ci-key");
    const table = await cli(["keys", "list"]);
    expect(table.code).toBe(0);
    expect(table.stdout).toMatch(/^NAME\s+ID/);
    expect(table.stdout).toContain("ci-key");
    const revoked = await json(["keys", "revoke", created.apiKey.id]);
    expect(revoked.apiKey.revokedAt).not.toBeNull();
    // The revoked key no longer authenticates: exit code 3 with a hint.
    const denied = await cli(["executions", "list"], created.key);
    expect(denied.code).toBe(3);
    expect(denied.stderr).toContain("SKILLGATE_TOKEN");
  });

  it("shows and sets a key's limits with keys limits, keeping the other overrides", async () => {
    const created = await json(["keys", "create", "limited"]);
    const id = created.apiKey.id as string;
    await t.api.put("/api/settings", { defaultLimits: { concurrentSandboxRuns: 2 } });
    const set = await json(["keys", "limits", id, "--executions-per-minute", "30"]);
    expect(set.limits.limits).toEqual({
      executionsPerMinute: 30,
      concurrentSandboxRuns: 2,
      dailySandboxSeconds: null,
    });
    const more = await json(["keys", "limits", id, "--daily-sandbox-seconds", "none"]);
    expect(more.limits.overrides).toEqual({ executionsPerMinute: 30, dailySandboxSeconds: null });
    const back = await json(["keys", "limits", id, "--executions-per-minute", "default"]);
    expect(back.limits.overrides).toEqual({ dailySandboxSeconds: null });
    const shown = await cli(["keys", "limits", id]);
    expect(shown.code).toBe(0);
    expect(shown.stdout).toMatch(/concurrent sandbox runs:\s+2 \(default\)/);
    expect(shown.stdout).toMatch(/daily sandbox seconds:\s+none\n/);
    const bad = await cli(["keys", "limits", id, "--executions-per-minute", "-3"]);
    expect(bad.code).toBe(2);
    expect(bad.stderr).toContain("non-negative integer");
    expect((await json(["keys", "limits", id, "--reset"])).limits.overrides).toEqual({});
  });

  it("installs from JSON and SKILL.md, lists, shows, switches mode, deletes", async () => {
    const jsonFile = join(tmp.dir, "skill.json");
    writeFileSync(
      jsonFile,
      JSON.stringify({
        name: "cli-echo",
        version: "1.2.0",
        handlerCode: "echo-handler",
        schema: { input: { type: "object", properties: { msg: { type: "string" } } } },
      }),
    );
    const installed = await json(["skills", "install", jsonFile, "--policy", "hybrid"]);
    expect(installed.skill).toMatchObject({ name: "cli-echo", version: "1.2.0", policy: "hybrid" });
    const mdFile = join(tmp.dir, "SKILL.md");
    writeFileSync(
      mdFile,
      "---\nname: pdf-notes\ndescription: How to take notes from PDFs\n---\n# PDF notes\nRead, then summarise.\n",
    );
    const md = await json(["skills", "install", mdFile]);
    expect(md.skill).toMatchObject({ name: "pdf-notes", handlerCode: "skill-instructions" });

    const list = await json(["skills", "list", "-q", "cli-"]);
    expect(list.data.map((s: { name: string }) => s.name)).toEqual(["cli-echo"]);
    const shown = await json(["skills", "show", "cli-echo"]);
    expect(shown.skill.id).toBe(installed.skill.id);
    expect((await cli(["skills", "show", "cli-echo"])).stdout).toMatch(/policy:\s+hybrid/);

    expect((await json(["skills", "disable", "cli-echo"])).skill.mode).toBe("off");
    expect((await json(["skills", "enable", "cli-echo@1.2.0"])).skill.mode).toBe("on");
    expect((await json(["skills", "mode", "cli-echo", "auto"])).skill.mode).toBe("auto");
    expect((await cli(["skills", "mode", "cli-echo", "sideways"])).code).toBe(2);

    expect(await json(["skills", "delete", "pdf-notes"])).toEqual({ deleted: md.skill.id });
    const missing = await cli(["skills", "show", "pdf-notes"]);
    expect(missing.code).toBe(4);
    const dup = await cli(["skills", "install", jsonFile]);
    expect(dup.code).toBe(5);
    expect(dup.stderr).toContain("skill_exists");
  });

  it("installs a SKILL.md through the API, which validates it: a broken one is refused with its code", async () => {
    const good = join(tmp.dir, "good-notes.md");
    writeFileSync(
      good,
      "---\nname: cli-md-notes\ndescription: Notes from PDFs\nmetadata:\n  version: 2.1.0\n---\nRead, then summarise.\n",
    );
    const installed = await json(["skills", "install", good, "--mode", "on", "--policy", "manual"]);
    expect(installed.skill).toMatchObject({
      name: "cli-md-notes",
      version: "2.1.0",
      mode: "on",
      policy: "manual",
      handlerCode: "skill-instructions",
      instructions: "Read, then summarise.",
    });
    const bad = join(tmp.dir, "bad-notes.md");
    writeFileSync(bad, "---\nname: Not A Valid Name\ndescription: x\n---\nbody\n");
    const refused = await cli(["skills", "install", bad]);
    expect(refused.code).toBe(2);
    expect(refused.stderr).toContain("invalid_skill_md");
    const list = await json(["skills", "list", "-q", "cli-md-"]);
    expect(list.data.map((s: { name: string }) => s.name)).toEqual(["cli-md-notes"]);
  });

  it("sends every id as one encoded path segment: a traversal id reaches no other endpoint", async () => {
    const skill = (
      await t.api.post("/api/skills/install", {
        name: "cli-target",
        version: "1.0.0",
        handlerCode: "echo-handler",
      })
    ).body.skill;
    // Unencoded, this DELETE would go to /api/skills/<id> and remove the skill.
    const revoke = await cli(["keys", "revoke", `../skills/${skill.id}`]);
    expect(revoke.code, revoke.stderr).toBe(4);
    expect(revoke.stderr).toContain("api_key_not_found");
    expect((await t.api.get(`/api/skills/${skill.id}`)).status).toBe(200);
    // Unencoded, this POST would go to /api/skills/<id>/secret/rotate.
    const reject = await cli(["executions", "reject", `../../skills/${skill.id}/secret/rotate?x=`]);
    expect(reject.code, reject.stderr).toBe(4);
    expect(reject.stderr).toContain("execution_not_found");
    // Dot segments are resolved by any URL parser before sending: refused as usage errors.
    for (const id of ["..", "."]) {
      const dots = await cli(["executions", "approve", id]);
      expect(dots.code).toBe(2);
      expect(dots.stderr).toContain("Not a valid id");
    }
    const show = await cli(["skills", "show", `${skill.id}/../../keys`]);
    expect(show.code).toBe(4);
  });

  it("prints no control characters from the server: escape sequences are stripped or escaped", async () => {
    const hostile = "Reverses \u001b]0;owned\u0007text\u001b[2J\r\u009b31m\u202eevil\u0008!";
    const res = await t.api.post("/api/skills/install", {
      name: "cli-hostile",
      version: "1.0.0",
      description: hostile,
      handlerCode: "echo-handler",
    });
    expect(res.status).toBe(201);
    // biome-ignore lint/suspicious/noControlCharactersInRegex: the test looks for control characters
    const RAW_CONTROLS = /[\u0000-\u0008\u000b-\u001f\u007f-\u009f\u202a-\u202e]/;
    const shown = await cli(["skills", "show", "cli-hostile"]);
    expect(shown.code, shown.stderr).toBe(0);
    expect(shown.stdout).toContain("Reverses ]0;ownedtext[2J31mevil!");
    expect(shown.stdout).not.toMatch(RAW_CONTROLS);
    const asJson = await cli(["--json", "skills", "show", "cli-hostile"]);
    expect(asJson.stdout).not.toMatch(RAW_CONTROLS);
    // Escaped, not lost: the JSON still holds the exact description.
    expect(JSON.parse(asJson.stdout).skill.description).toBe(hostile);
    // An error message from the server is stripped too.
    const missing = await cli(["executions", "show", "no\u001b[31msuch"]);
    expect(missing.code).toBe(4);
    expect(missing.stderr).not.toMatch(RAW_CONTROLS);
  });

  it("runs skills, lists, shows, approves, rejects and watches executions", async () => {
    await t.api.post("/api/skills/install", {
      name: "cli-run",
      version: "1.0.0",
      handlerCode: "echo-handler",
      schema: { input: { type: "object", properties: { n: { type: "integer" } } } },
    });
    const inputFile = join(tmp.dir, "input.json");
    writeFileSync(inputFile, '{"n": 5}');
    const ran = await json(["exec", "cli-run", "--input", `@${inputFile}`, "--session", "s-1"]);
    expect(ran.execution).toMatchObject({ status: "success", output: { n: 5 }, sessionId: "s-1" });
    const human = await cli(["exec", "cli-run", "--input", '{"n":6}']);
    expect(human.code).toBe(0);
    expect(human.stdout).toMatch(/status:\s+success/);
    expect((await cli(["exec", "cli-run", "--input", "{bad"])).code).toBe(2);
    expect((await cli(["exec", "no-such-skill"])).code).toBe(4);

    const list = await json(["executions", "list", "--skill", "cli-run"]);
    expect(list.total).toBe(2);
    const shown = await json(["executions", "show", ran.execution.id]);
    expect(shown.execution.input).toEqual({ n: 5 });
    expect((await cli(["executions", "show", "00000000-0000-0000-0000-000000000000"])).code).toBe(
      4,
    );

    const key = await t.api.createKey("cli-approver");
    const { body } = await t.api.post("/api/skills/install", {
      name: "cli-hybrid",
      version: "1.0.0",
      handlerCode: "echo-handler",
      policy: "hybrid",
      apiKeyId: key.id,
    });
    const skill = (await t.services.registry.snapshot()).getById(body.skill.id)!;
    const ctx = { apiKeyId: key.id, sessionId: null };
    const a = await t.services.executor.requestApproval(skill, { v: 1 }, ctx);
    const b = await t.services.executor.requestApproval(skill, { v: 2 }, ctx);
    const pending = await json(["executions", "list", "--approval", "required"], key.key);
    expect(pending.total).toBe(2);
    const approved = await json(["executions", "approve", a.id], key.key);
    expect(approved.execution).toMatchObject({ status: "success", approval: "approved" });
    expect((await cli(["executions", "approve", a.id])).code).toBe(5);
    const rejected = await json(["executions", "reject", b.id, "--reason", "no"]);
    expect(rejected.execution).toMatchObject({ status: "error", approval: "rejected" });

    // watch: prints the execution created after it started, then stops (--count 1).
    const watching = cli(["--json", "executions", "watch", "--interval", "200", "--count", "1"]);
    const later = setTimeout(() => {
      void t.api.post("/api/skills/executions", { skillName: "cli-run", input: { n: 9 } });
    }, 2500);
    const watched = await watching;
    clearTimeout(later);
    expect(watched.code, watched.stderr).toBe(0);
    const event = JSON.parse(watched.stdout.trim().split("\n")[0]!);
    expect(event).toMatchObject({ skillName: "cli-run", input: { n: 9 } });
  });

  it("gets and sets settings, and reports usage, auth and connection errors", async () => {
    expect((await json(["settings", "get"])).settings).toMatchObject({ skillsEnabled: true });
    const set = await json(["settings", "set", "activeProvider", "skillssh"]);
    expect(set.settings.activeProvider).toBe("skillssh");
    expect((await cli(["settings", "set", "skillsEnabled", "maybe"])).code).toBe(2);
    const custom = await json(["settings", "set", "customSkillExecution", "false"]);
    expect(custom.settings.customSkillExecution).toBe(false);
    expect((await json(["settings", "get"])).settings.customSkillExecution).toBe(false);
    expect((await cli(["settings", "set", "customSkillExecution", "off"])).code).toBe(2);
    await json(["settings", "set", "customSkillExecution", "true"]);
    expect((await cli(["settings", "set", "colour", "blue"])).code).toBe(2);
    const noToken = await cli(["settings", "get"], null);
    expect(noToken.code).toBe(3);
    expect(noToken.stderr).toContain("SKILLGATE_TOKEN");
    const key = await t.api.createKey("plain");
    expect((await cli(["settings", "get"], key.key)).code).toBe(3);
    expect((await cli(["--url", "http://127.0.0.1:9", "settings", "get"])).code).toBe(6);
    expect((await cli(["no-such-command"])).code).toBe(2);
    expect((await cli(["catalog", "install", "just-a-name"])).code).toBe(2);
  });

  it("searches the active catalog and installs from it", async () => {
    const sh = await startFakeSkillsSh([
      { source: "acme/skills", skillId: "pdf-tools", name: "pdf-tools", installs: 12 },
    ]);
    const gh = await startFakeGithubRaw({
      "acme/skills": {
        defaultBranch: "main",
        branches: {
          main: {
            "skills/pdf-tools/SKILL.md": skillMd(
              { name: "pdf-tools", description: "Merge PDFs" },
              "# PDF tools",
            ),
          },
        },
      },
    });
    const app = await startTestApp({
      env: { SKILLSSH_BASE_URL: sh.url, GITHUB_RAW_BASE_URL: gh.url },
    });
    try {
      const run = (args: string[]) => cli(["--json", ...args], MGMT_TOKEN, app.url);
      expect((await run(["settings", "set", "activeProvider", "skillssh"])).code).toBe(0);
      const found = await run(["catalog", "search", "pdf"]);
      expect(found.code, found.stderr).toBe(0);
      expect(JSON.parse(found.stdout).data[0]).toMatchObject({ skillId: "pdf-tools" });
      const installed = await run(["catalog", "install", "acme/skills/pdf-tools"]);
      expect(installed.code, installed.stderr).toBe(0);
      expect(JSON.parse(installed.stdout).skill).toMatchObject({
        name: "pdf-tools",
        sourceProvider: "skillssh",
      });
      const missing = await run(["catalog", "install", "acme/skills/nope"]);
      expect(missing.code).toBe(4);
    } finally {
      await app.close();
      await sh.close();
      await gh.close();
    }
  });
});
