/**
 * The scope table of docs/api.md#scopes agrees with the behaviour: every `GET` route the `read`
 * row names answers a `read`-only key (no 403), and the routes the docs call management-only
 * (`GET /api/skills`, and the `skills:write` routes) answer 403 `management_required` even to a
 * key holding every scope.
 */
import { readFileSync } from "node:fs";
import { join } from "node:path";
import { afterEach, beforeEach, describe, expect, it } from "vitest";
import { startTestApp, type TestApp } from "../support/app.js";

let t: TestApp;
beforeEach(async () => {
  t = await startTestApp();
});
afterEach(async () => {
  await t.close();
});

/** The `GET /api/...` paths of one row of the scope table. */
function documentedGets(scope: string): string[] {
  const doc = readFileSync(join(process.cwd(), "docs", "api.md"), "utf8");
  const row = doc.split("\n").find((l) => l.startsWith(`| \`${scope}\` |`));
  if (!row) throw new Error(`no row for ${scope} in docs/api.md`);
  return [...row.matchAll(/`GET (\/api\/[^`]+)`/g)].map((m) => m[1]!);
}

describe("scope docs match behaviour", () => {
  it("every GET route of the read row answers a read-only key", async () => {
    const skill = await t.api.post("/api/skills/install", {
      name: "scoped-echo",
      version: "1.0.0",
      handlerCode: "echo-handler",
    });
    const run = await t.api.post("/api/skills/executions", {
      skillName: "scoped-echo",
      input: { x: 1 },
    });
    const created = await t.api.post("/api/keys", { name: "reader", scopes: ["read"] });
    const reader = t.api.as(created.body.key);
    const paths = documentedGets("read");
    expect(paths.length).toBeGreaterThan(3);
    const refused: string[] = [];
    for (const doc of paths) {
      const path = doc
        .replace("[/{name}]", "")
        .replace("/api/skills/executions/{id}", `/api/skills/executions/${run.body.execution.id}`)
        .replace("/api/skills/{id}", `/api/skills/${skill.body.skill.id}`);
      const res = await reader.get(
        path.includes("recommendation") ? `${path}?format=openai` : path,
      );
      if (res.status === 403) refused.push(`${doc}: ${res.body.error?.code}`);
    }
    expect(refused).toEqual([]);
  });

  it("GET /api/skills and the skills:write routes need management, whatever the key's scopes", async () => {
    const created = await t.api.post("/api/keys", { name: "all-scopes" });
    const key = t.api.as(created.body.key);
    const list = await key.get("/api/skills");
    expect(list.status).toBe(403);
    expect(list.body.error.code).toBe("management_required");
    const install = await key.post("/api/skills/install", {
      name: "mine",
      version: "1.0.0",
      handlerCode: "echo-handler",
    });
    expect(install.status).toBe(403);
    expect(install.body.error.code).toBe("management_required");
    expect(documentedGets("read")).not.toContain("/api/skills");
  });
});
