/**
 * The dockerode implementation of the engine seam (sandbox-host/src/dockerode-client.ts) against
 * the real Docker engine: a container's streams and exit status, and the engine's race answers
 * settled in one place — a kill after the exit (409) or after the removal (404) answers false,
 * inspect of a removed container undefined, a second remove is not an error, a create with a
 * missing image fails `not_found`.
 */
import { randomBytes } from "node:crypto";
import { PassThrough } from "node:stream";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { LABEL_SANDBOX } from "../../sandbox-host/src/container.js";
import { EngineError } from "../../sandbox-host/src/docker-client.js";
import { DockerodeClient } from "../../sandbox-host/src/dockerode-client.js";
import { docker, LOCAL_IMAGES, requireDocker, SKIP_DOCKER } from "./helpers.js";

const instance = `test-seam-${process.pid}-${randomBytes(3).toString("hex")}`;

function collect(): { sink: PassThrough; text: () => string } {
  const sink = new PassThrough();
  const chunks: Buffer[] = [];
  sink.on("data", (c: Buffer) => chunks.push(c));
  return { sink, text: () => Buffer.concat(chunks).toString("utf8") };
}

describe.skipIf(SKIP_DOCKER)("DockerodeClient on the real engine", () => {
  const engine = new DockerodeClient(docker);

  beforeAll(requireDocker);
  afterAll(async () => {
    for (const c of await engine.listByLabel(LABEL_SANDBOX, instance)) await engine.remove(c.id);
  });

  /** A labelled busybox container running `sh -c script` with stdin open. */
  function create(script: string): Promise<string> {
    return engine.createContainer({
      Image: LOCAL_IMAGES.shell,
      Cmd: ["sh", "-c", script],
      Labels: { [LABEL_SANDBOX]: instance },
      AttachStdin: true,
      AttachStdout: true,
      AttachStderr: true,
      OpenStdin: true,
      StdinOnce: true,
      HostConfig: { NetworkMode: "none", AutoRemove: false },
    });
  }

  it("lists the engine's container runtimes as docker info does", async () => {
    const info = (await docker.info()) as { Runtimes?: Record<string, unknown> };
    const listed = await engine.runtimes();
    expect(listed).toContain("runc");
    expect(listed.sort()).toEqual(Object.keys(info.Runtimes ?? {}).sort());
  });

  it("passes stdin in and stdout/stderr out, and reports the exit status", async () => {
    const id = await create('read line; echo "out:$line"; echo err >&2; exit 3');
    const out = collect();
    const err = collect();
    const io = await engine.attach(id, out.sink, err.sink);
    const exit = engine.wait(id);
    await engine.start(id);
    io.write(Buffer.from("hello\n"));
    io.end();
    expect(await exit).toBe(3);
    await io.ended;
    expect(out.text()).toBe("out:hello\n");
    expect(err.text()).toBe("err\n");
    expect(await engine.inspect(id)).toEqual({ running: false, exitCode: 3, oomKilled: false });
    const listed = await engine.listByLabel(LABEL_SANDBOX, instance);
    expect(listed.map((c) => c.id)).toContain(id);
    io.destroy();
    await engine.remove(id);
  });

  it("settles the engine's races: kill after exit or removal, inspect and remove when gone", async () => {
    const id = await create("exit 0");
    const out = collect();
    const io = await engine.attach(id, out.sink, out.sink);
    const exit = engine.wait(id);
    await engine.start(id);
    io.end();
    expect(await exit).toBe(0);
    expect(await engine.kill(id, "SIGKILL")).toBe(false);
    io.destroy();
    await engine.remove(id);
    expect(await engine.kill(id, "SIGTERM")).toBe(false);
    expect(await engine.inspect(id)).toBeUndefined();
    await expect(engine.remove(id)).resolves.toBeUndefined();
  });

  it("delivers a kill to a running container", async () => {
    const id = await create("sleep 30");
    const out = collect();
    const io = await engine.attach(id, out.sink, out.sink);
    const exit = engine.wait(id);
    await engine.start(id);
    expect(await engine.kill(id, "SIGKILL")).toBe(true);
    expect(await exit).toBe(137);
    io.destroy();
    await engine.remove(id);
  });

  it("reports a missing image as not_found, on create and on imageExists", async () => {
    const missing = `skillgate-test/absent-${randomBytes(4).toString("hex")}:none`;
    expect(await engine.imageExists(missing)).toBe(false);
    expect(await engine.imageExists(LOCAL_IMAGES.shell)).toBe(true);
    const err = await engine.createContainer({ Image: missing, Cmd: ["true"] }).then(
      () => undefined,
      (e: unknown) => e,
    );
    expect(err).toBeInstanceOf(EngineError);
    expect((err as EngineError).kind).toBe("not_found");
  });
});
