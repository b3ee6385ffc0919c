/**
 * A full data disk is told truthfully (docs/execution.md#a-full-disk): the database lives on a
 * small tmpfs that the test fills; writes then answer 503 `storage_full` (never 500) and leave
 * nothing half-written, `/api/health` reports the disk state, and once space is freed everything
 * works again. Needs root (mount).
 */
import { execFileSync } from "node:child_process";
import { closeSync, mkdirSync, openSync, rmdirSync, rmSync, writeSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { MGMT_TOKEN, startTestApp, type TestApp } from "../support/app.js";
import { expectApiAvailable, startHealthProbe } from "../support/health-probe.js";
import { callTool, connectMcp } from "../support/mcp.js";

const MOUNT = join(tmpdir(), `skillgate-full-disk-${process.pid}`);
const FILLER = join(MOUNT, "filler");

/** Writes zeros into `path` until the filesystem refuses (ENOSPC). */
function fillDisk(path: string): void {
  const fd = openSync(path, "a");
  const chunk = Buffer.alloc(64 * 1024);
  try {
    for (;;) writeSync(fd, chunk);
  } catch (err) {
    if ((err as NodeJS.ErrnoException).code !== "ENOSPC") throw err;
  } finally {
    closeSync(fd);
  }
  // The last partial chunks.
  const small = openSync(path, "a");
  try {
    for (;;) writeSync(small, Buffer.alloc(512));
  } catch (err) {
    if ((err as NodeJS.ErrnoException).code !== "ENOSPC") throw err;
  } finally {
    closeSync(small);
  }
}

const skill = (name: string) => ({
  name,
  version: "1.0.0",
  description: `echoes its input (${name})`,
  schema: { input: { type: "object" } },
  handlerCode: "echo-handler",
  mode: "on",
});

describe("a full data disk", () => {
  let t: TestApp | undefined;
  beforeAll(async () => {
    mkdirSync(MOUNT, { recursive: true });
    execFileSync("mount", ["-t", "tmpfs", "-o", "size=24m", "tmpfs", MOUNT]);
    t = await startTestApp({ libsqlUrl: `file:${join(MOUNT, "test.db")}` });
  }, 60_000);
  afterAll(async () => {
    await t?.close();
    try {
      // Lazy: the embedded driver may still hold the file for a moment after close.
      execFileSync("umount", ["-l", MOUNT]);
      rmdirSync(MOUNT);
    } catch {
      // left for the next run's mount
    }
  });

  it("writes answer 503 storage_full with nothing half-written; health says so; freeing space recovers", async () => {
    const app = t!;
    expect((await app.api.post("/api/skills/install", skill("before-full"))).status).toBe(201);
    const before = await app.api.post("/api/skills/executions", {
      skillName: "before-full",
      input: { n: 1 },
    });
    expect(before.status).toBe(200);
    const historyBefore = (await app.api.get("/api/skills/executions?limit=200")).body.total;

    fillDisk(FILLER);
    const probe = startHealthProbe(app.url);
    try {
      // Many rows' worth of writes: whatever free pages the database still had are used up.
      const big = "x".repeat(200_000);
      const answers = [];
      for (let i = 0; i < 20; i++) {
        answers.push(
          await app.api.post("/api/skills/executions", {
            skillName: "before-full",
            input: { n: i, big },
          }),
        );
      }
      const statuses = answers.map((a) => a.status);
      expect(statuses).not.toContain(500);
      const refused = answers.filter((a) => a.status === 503);
      expect(refused.length).toBeGreaterThan(0);
      for (const r of refused) {
        expect(r.body.error.code).toBe("storage_full");
        expect(r.headers.get("retry-after")).toMatch(/^\d+$/);
      }
      // A model's call over MCP is told the same, as a tool error (never an internal error).
      const mcp = await connectMcp(app.url, MGMT_TOKEN);
      try {
        const viaMcp = await callTool(mcp, "before-full_v1_0_0", { n: 99, big });
        expect(viaMcp.isError).toBe(true);
        expect(viaMcp.structuredContent).toMatchObject({ status: "error", executionId: null });
        expect(viaMcp.structuredContent.error).toMatch(/^storage_full: /);
      } finally {
        await mcp.close();
      }
      // An install is refused the same way and leaves no skill behind.
      const install = await app.api.post("/api/skills/install", skill("during-full"));
      expect(install.status).toBe(503);
      expect(install.body.error.code).toBe("storage_full");
      const skills = await app.api.get("/api/skills?limit=200");
      expect(skills.body.data.map((s: { name: string }) => s.name).includes("during-full")).toBe(
        false,
      );

      // Health tells: anonymous callers see it is not ok, management sees why.
      const anon = await fetch(`${app.url}/api/health`);
      expect(((await anon.json()) as { status: string }).status).toBe("degraded");
      const health = await app.api.get("/api/health");
      expect(health.body.status).toBe("degraded");
      expect(health.body.details.database).toMatchObject({ ok: false, writable: false });
      expect(health.body.details.database.error).toMatch(/full|space/i);

      // Every execution that was recorded is terminal, and those refused left no row behind.
      const rows = (await app.api.get("/api/skills/executions?limit=200")).body;
      for (const row of rows.data as { status: string }[])
        expect(["success", "error", "timeout"]).toContain(row.status);
      const succeeded = answers.filter((a) => a.status === 200).length;
      expect(rows.total).toBe(historyBefore + succeeded);
      // Health kept answering all along (200 degraded), without a freeze; the bound is generous
      // for a slow shared machine but catches a multi-second stall.
      const seen = await probe.stop();
      expectApiAvailable(seen);
    } finally {
      await probe.stop();
      rmSync(FILLER, { force: true });
    }

    // Space again: writes work and health is ok once more.
    const after = await app.api.post("/api/skills/install", skill("after-full"));
    expect(after.status).toBe(201);
    const run = await app.api.post("/api/skills/executions", {
      skillName: "after-full",
      input: { n: 2 },
    });
    expect(run.status).toBe(200);
    expect(run.body.execution.output).toEqual({ n: 2 });
    const healthy = await app.api.get("/api/health");
    expect(healthy.body.details.database).toMatchObject({ ok: true, writable: true });
  }, 120_000);

  it("a run whose terminal write the full disk refused is written with its real outcome once there is space", async () => {
    const app = t!;
    let started!: () => void;
    const running = new Promise<void>((r) => {
      started = r;
    });
    let release!: () => void;
    const released = new Promise<void>((r) => {
      release = r;
    });
    app.services.executor.registerHandler("held-echo", async (input) => {
      started();
      await released;
      return input;
    });
    const name = `held-${process.pid}`;
    const installed = await app.api.post("/api/skills/install", {
      ...skill(name),
      handlerCode: "held-echo",
    });
    expect(installed.status).toBe(201);
    const filler = `filler-${process.pid}`;
    expect((await app.api.post("/api/skills/install", skill(filler))).status).toBe(201);
    const big = "y".repeat(200_000);
    const answer = app.api.post("/api/skills/executions", { skillName: name, input: { big } });
    await running;
    fillDisk(FILLER);
    try {
      // Use up whatever free pages the database still had, until a write is refused.
      let refused = false;
      for (let i = 0; i < 40 && !refused; i++) {
        const r = await app.api.post("/api/skills/executions", {
          skillName: filler,
          input: { i, big },
        });
        refused = r.status === 503;
      }
      expect(refused).toBe(true);
      release();
      const res = await answer;
      expect([res.status, res.body.error?.code]).toEqual([503, "storage_full"]);
      const row = async () =>
        (
          await app.client.execute({
            sql: "select status, output from skill_executions where skill_name = ?",
            args: [name],
          })
        ).rows[0];
      // The program ran; its outcome waits in memory, the row still says running.
      expect((await row())!.status).toBe("running");
    } finally {
      release();
      rmSync(FILLER, { force: true });
    }
    expect(await app.services.executions.flushDeferredFinishes()).toBe(1);
    const ended = await app.api.get(
      `/api/skills/executions?skill=${encodeURIComponent(name)}&limit=5`,
    );
    expect(ended.body.data).toHaveLength(1);
    expect(ended.body.data[0]).toMatchObject({ status: "success" });
    // Written once: a second flush has nothing left.
    expect(await app.services.executions.flushDeferredFinishes()).toBe(0);
  }, 120_000);
});
