/**
 * Hostile programs against a real sandbox host and real Docker (docs/sandbox.md#how-a-run-ends). Time checks are loose bounds that prove a kill happened, not speed targets.
 */
import type { SandboxRunRequest } from "@skillgate/sandbox-protocol";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { ExecutionFailure } from "../../workers/src/errors.js";
import {
  LOCAL_IMAGES,
  requireDocker,
  SKIP_DOCKER,
  sandboxTestRuntimes,
  startTestHost,
  type TestHost,
} from "./helpers.js";

const ABSENT_IMAGE = "skillgate-local/absent:0";
const CANARY = `canary-${Date.now()}-do-not-leak`;

// Every case runs under each container runtime the engine has (runc; runsc, gVisor, in CI).
const RUNTIMES = await sandboxTestRuntimes();

describe.each(RUNTIMES)("sandbox host against real Docker under %s", (runtime) => {
  describe.skipIf(SKIP_DOCKER)(`(${runtime})`, () => {
    let t: TestHost;

    beforeAll(async () => {
      await requireDocker();
      process.env.SKILLGATE_TEST_CANARY = CANARY;
      t = await startTestHost(`hostile-${runtime}`, {
        SANDBOX_RUNTIME: runtime,
        SKILLS_ALLOWED_SANDBOX_IMAGES: [...Object.values(LOCAL_IMAGES), ABSENT_IMAGE].join(","),
        SANDBOX_ENV_ALLOWLIST: "TZ",
      });
    });

    afterAll(async () => {
      delete process.env.SKILLGATE_TEST_CANARY;
      if (!t) return;
      await t.close();
      expect(await t.containers()).toEqual([]);
    });

    const run = (req: SandboxRunRequest) => t.client.run(req);
    const py = (code: string, timeoutMs = 10_000) => run({ language: "python", code, timeoutMs });

    it("runs python and node programs from stdin", async () => {
      const p = await py("print(6*7)");
      expect(p).toMatchObject({
        exitCode: 0,
        stdout: "42\n",
        stderr: "",
        timedOut: false,
        oomKilled: false,
      });
      expect(p.image).toBe(LOCAL_IMAGES.python);
      const n = await run({
        language: "node",
        code: "console.log(6*7); console.error('e')",
        timeoutMs: 10_000,
      });
      expect(n).toMatchObject({ exitCode: 0, stdout: "42\n", stderr: "e\n" });
    });

    it("passes shell arguments as argv, never through a shell", async () => {
      const r = await run({
        language: "shell",
        command: "echo",
        args: ["a; id", "$(id)", "`id`"],
        timeoutMs: 5000,
      });
      expect(r.exitCode).toBe(0);
      expect(r.stdout).toBe("a; id $(id) `id`\n");
    });

    it("an endless loop ends as timedOut, container gone", async () => {
      // One CPU: at the default 0.1 CPU a loaded machine can spend the whole limit starting
      // Python under runsc, before the first line is printed.
      const r = await run({
        language: "python",
        code: "print('started', flush=True)\nwhile True: pass",
        cpuLimit: 1000,
        timeoutMs: 3000,
      });
      expect(r.timedOut).toBe(true);
      expect(r.stdout).toBe("started\n");
      expect(r.exitCode).not.toBe(0);
      expect(await t.containers()).toEqual([]);
    });

    it("a 10 MB flood is cut at SKILLS_MAX_SANDBOX_OUTPUT_CHARS and flagged truncated", async () => {
      // One 10 MB write(2) under runc. Debian's gVisor (20221219) delivers only the first 64 KiB
      // of a single write that large to the attached stdout (docs/sandbox.md#runtimes), so under
      // runsc the same 10 MB goes out in 100 KB writes.
      const r = await py(
        runtime === "runsc"
          ? "import sys\nfor _ in range(100): sys.stdout.write('x' * 100_000)\nsys.stdout.flush()"
          : "import sys\nsys.stdout.write('x' * 10_000_000)\nsys.stdout.flush()",
      );
      expect(t.config.maxOutputChars).toBe(100_000);
      expect(r.stdout.length).toBe(100_000);
      expect(r.stdoutTruncated).toBe(true);
      expect(r.truncated).toBe(true);
      expect(r.stderrTruncated).toBe(false);
    });

    it("allocating 1 GB under a 64 MB limit is reported as oomKilled, not as a time limit", async () => {
      // The OOM comes only after the program has touched the whole limit. At the default 0.1 CPU
      // touching 256 MB takes about 8 s under runc and more than 10 s under runsc (ptrace page
      // faults) on a 2-core machine, so a loaded machine ended it by its time limit first. A small
      // limit, one CPU and a time limit far above the ~2 s it takes make the OOM kill the only end.
      const r = await run({
        language: "python",
        code: "b = bytearray(10**9)\nprint('survived')",
        memoryLimit: 64,
        cpuLimit: 1000,
        timeoutMs: 30_000,
      });
      expect(r).toMatchObject({ oomKilled: true, timedOut: false });
      expect(r.exitCode).not.toBe(0);
      expect(r.stdout).not.toContain("survived");
    });

    it("contains a fork bomb (pids limit) and stays healthy", async () => {
      const bomb = [
        "import os, time",
        "print('bombing', flush=True)",
        "while True:",
        "    try:",
        "        os.fork()",
        "    except OSError:",
        "        time.sleep(0.01)",
      ].join("\n");
      const r = await py(bomb, 3000);
      // Ends by its time limit with its output kept: under runsc, gVisor's kernel refuses the
      // forks (RLIMIT_NPROC) before its own helpers reach the pids limit, which would kill the
      // whole sandbox (exit 2, output lost).
      expect(r.timedOut).toBe(true);
      expect(r.stdout).toBe("bombing\n");
      const health = await t.client.health();
      expect(health).toMatchObject({ ok: true, docker: true, running: 0, queued: 0 });
      expect((await py("print('after')")).stdout).toBe("after\n");
    });

    it("refuses writes to the read-only root but allows /tmp and /workspace", async () => {
      const r = await py(
        [
          "import os",
          "for p in ['/etc/evil', '/usr/bin/evil']:",
          "    try:",
          "        open(p, 'w').write('x'); print('wrote', p)",
          "    except OSError as e:",
          "        print('refused', p, e.strerror)",
          "for p in ['/tmp/ok', '/workspace/ok']:",
          "    open(p, 'w').write('x'); print('wrote', p)",
        ].join("\n"),
      );
      expect(r.exitCode).toBe(0);
      // gVisor's kernel checks the permission before the read-only mount: the unprivileged user
      // gets EACCES there, EROFS under runc; either way nothing is written.
      const refused =
        runtime === "runsc" ? "(Read-only file system|Permission denied)" : "Read-only file system";
      expect(r.stdout).toMatch(new RegExp(`refused /etc/evil ${refused}`));
      expect(r.stdout).toMatch(new RegExp(`refused /usr/bin/evil ${refused}`));
      expect(r.stdout).toContain("wrote /tmp/ok");
      expect(r.stdout).toContain("wrote /workspace/ok");
      expect(r.stdout).not.toContain("wrote /etc/evil");
    });

    it("cannot execute a binary copied into /tmp (noexec)", async () => {
      const r = await run({
        language: "shell",
        command: "sh",
        args: ["-c", "cp /bin/busybox /tmp/bb && chmod 755 /tmp/bb && /tmp/bb echo pwned"],
        timeoutMs: 5000,
      });
      expect(r.exitCode).not.toBe(0);
      expect(r.stdout).not.toContain("pwned");
      expect(r.stderr).toMatch(/Permission denied/);
    });

    it("has no network egress with the network off, even when the call asks for it", async () => {
      const code = [
        "import socket",
        "for target in [('1.1.1.1', 80), ('8.8.8.8', 53)]:",
        "    try:",
        "        socket.create_connection(target, timeout=3); print('connected', target[0])",
        "    except OSError as e:",
        "        print('blocked', target[0], e.errno)",
        "try:",
        "    socket.getaddrinfo('example.com', 80); print('resolved')",
        "except OSError:",
        "    print('dns blocked')",
      ].join("\n");
      const r = await run({ language: "python", code, timeoutMs: 10_000, networkEnabled: true });
      expect(r.exitCode).toBe(0);
      expect(r.stdout).toContain("blocked 1.1.1.1");
      expect(r.stdout).toContain("blocked 8.8.8.8");
      expect(r.stdout).toContain("dns blocked");
      expect(r.stdout).not.toContain("connected");
    });

    it("leaks no host environment or secret into the container (env, /proc/1/environ, cmdline)", async () => {
      const code = [
        "import os",
        "print(sorted(os.environ))",
        "for f in ['/proc/1/environ', '/proc/1/cmdline', '/proc/self/environ']:",
        "    print(open(f, 'rb').read().replace(b'\\0', b' ').decode())",
      ].join("\n");
      const r = await run({ language: "python", code, timeoutMs: 10_000, env: { TZ: "UTC" } });
      expect(r.exitCode).toBe(0);
      const names = JSON.parse(r.stdout.split("\n")[0]!.replace(/'/g, '"')) as string[];
      const allowed = [
        "HOME",
        "HOSTNAME",
        "LANG",
        "PATH",
        "PYTHONDONTWRITEBYTECODE",
        "PYTHONUNBUFFERED",
        "TZ",
      ];
      expect(names.every((n) => allowed.includes(n))).toBe(true);
      expect(names).toContain("TZ");
      expect(r.stdout).not.toContain(t.secret);
      expect(r.stdout).not.toContain(CANARY);
      expect(r.stdout).not.toContain("SANDBOX_SECRET");
      await expect(
        run({
          language: "python",
          code: "print(1)",
          timeoutMs: 5000,
          env: { AWS_SECRET_ACCESS_KEY: "x" },
        }),
      ).rejects.toMatchObject({ code: "invalid_input" });
    });

    it("a child left sleeping after the main process exits does not keep the run or container", async () => {
      const r = await py(
        "import subprocess\nsubprocess.Popen(['sleep', '300'])\nprint('parent done')",
        20_000,
      );
      expect(r).toMatchObject({ exitCode: 0, stdout: "parent done\n", timedOut: false });
      expect(await t.containers()).toEqual([]);
    });

    it("returns binary output decoded safely (invalid bytes replaced)", async () => {
      const r = await py("import sys\nsys.stdout.buffer.write(bytes(range(256)))");
      expect(r.exitCode).toBe(0);
      expect(r.stdout).toContain("\uFFFD");
      expect(r.stdout).toContain(" !\"#$%&'()*+,-./0123456789");
      expect(JSON.parse(JSON.stringify(r.stdout))).toBe(r.stdout);
    });

    it("takes 200 KB of code on stdin", async () => {
      const code = `x = '${"a".repeat(200_000)}'\nprint(len(x))`;
      expect(code.length).toBeGreaterThan(200_000);
      const r = await py(code);
      expect(r).toMatchObject({ exitCode: 0, stdout: "200000\n" });
      const n = await run({
        language: "node",
        code: `const x = "${"b".repeat(200_000)}"; console.log(x.length)`,
        timeoutMs: 10_000,
      });
      expect(n).toMatchObject({ exitCode: 0, stdout: "200000\n" });
    });

    it("rejects an image off the allowlist and names an allowlisted image that is missing", async () => {
      const notAllowed = await run({
        language: "python",
        code: "print(1)",
        timeoutMs: 5000,
        image: "evil/miner:1",
      }).catch((e: unknown) => e);
      expect(notAllowed).toBeInstanceOf(ExecutionFailure);
      expect(notAllowed).toMatchObject({ code: "image_not_allowed", retryable: false });
      const missing = await run({
        language: "python",
        code: "print(1)",
        timeoutMs: 5000,
        image: ABSENT_IMAGE,
      }).catch((e: unknown) => e);
      expect(missing).toMatchObject({ code: "image_unavailable" });
      expect((missing as Error).message).toContain(ABSENT_IMAGE);
    });

    it("kill(runId) stops a running program at once", async () => {
      const runId = `kill-${Date.now()}`;
      // "Running" is the host's acknowledgement as the client read it (its `onStarted` hook,
      // docs/sandbox.md#at-most-once), not a pause: a kill that lands before it ends the run as
      // "killed before it started" (409), however long the container took to start.
      let acknowledged!: () => void;
      const started = new Promise<void>((r) => (acknowledged = r));
      const pending = t.client.run(
        { language: "python", code: "import time\ntime.sleep(30)", timeoutMs: 30_000, runId },
        undefined,
        { onStarted: () => acknowledged() },
      );
      await Promise.race([
        started,
        pending.then(() => {
          throw new Error("the run ended before its start was acknowledged");
        }),
      ]);
      await t.client.kill(runId);
      const r = await pending;
      expect(r.exitCode).toBe(137);
      expect(r.signal).toBe("SIGKILL");
      expect(r.timedOut).toBe(false);
    });

    it("stays healthy after every hostile case", async () => {
      expect(await t.client.health()).toMatchObject({ ok: true, running: 0, queued: 0 });
      expect(await t.containers()).toEqual([]);
    });
  });
});
