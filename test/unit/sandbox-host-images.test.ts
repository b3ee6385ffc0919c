/**
 * Images of the sandbox host (sandbox-host/src/images.ts): reference normalisation (so spellings
 * of one Docker Hub image compare equal), the allowlist check, the command per language, and the
 * image store (present, pulled, unavailable) against a stand-in engine. No Docker needed.
 */
import { describe, expect, it } from "vitest";
import { HostError } from "../../sandbox-host/src/errors.js";
import {
  commandFor,
  ImageStore,
  normalizeImage,
  resolveImage,
} from "../../sandbox-host/src/images.js";
import { StandInEngine } from "../support/stand-in-engine.js";

describe("normalizeImage", () => {
  it("drops Docker Hub's domain and library/ and adds :latest", () => {
    for (const ref of [
      "python:3.12-alpine",
      "docker.io/library/python:3.12-alpine",
      "index.docker.io/library/python:3.12-alpine",
      "registry-1.docker.io/library/python:3.12-alpine",
      "  python:3.12-alpine ",
    ]) {
      expect(normalizeImage(ref)).toBe("python:3.12-alpine");
    }
    expect(normalizeImage("alpine")).toBe("alpine:latest");
    expect(normalizeImage("docker.io/someone/tool")).toBe("someone/tool:latest");
  });

  it("keeps other registries, ports, nested paths and digests", () => {
    expect(normalizeImage("ghcr.io/org/team/img:1.0")).toBe("ghcr.io/org/team/img:1.0");
    expect(normalizeImage("localhost:5000/img")).toBe("localhost:5000/img:latest");
    const digest = `sha256:${"a".repeat(64)}`;
    expect(normalizeImage(`alpine@${digest}`)).toBe(`alpine@${digest}`);
    expect(normalizeImage(`alpine:3.20@${digest}`)).toBe(`alpine:3.20@${digest}`);
    expect(normalizeImage("skillgate-local/busybox:latest")).toBe("skillgate-local/busybox:latest");
  });

  it("refuses references that are not image references, naming them", () => {
    for (const ref of ["", "Alpine", "alpine:", "alpine@sha256:123", "a b", "reg.io:x/img", "-x"]) {
      expect(() => normalizeImage(ref)).toThrow(/^Invalid (image|registry)/);
      expect(() => normalizeImage(ref)).toThrow(`"${ref.trim()}"`);
    }
  });
});

describe("resolveImage and commandFor", () => {
  const images = { node: "node:22-alpine", python: "python:3.12-alpine", shell: "alpine:3.20" };
  const allowed = new Set(Object.values(images));

  it("uses the language's image unless the request names an allowlisted one", () => {
    expect(resolveImage("shell", undefined, images, allowed)).toBe("alpine:3.20");
    expect(resolveImage("shell", "docker.io/library/node:22-alpine", images, allowed)).toBe(
      "node:22-alpine",
    );
    let err: unknown;
    try {
      resolveImage("shell", "alpine:3.19", images, allowed);
    } catch (e) {
      err = e;
    }
    expect(err).toBeInstanceOf(HostError);
    expect(err).toMatchObject({ status: 422, code: "image_not_allowed" });
  });

  it("reads node and python programs from stdin and passes shell argv through", () => {
    expect(commandFor("node")).toEqual(["node", "-"]);
    expect(commandFor("python")).toEqual(["python3", "-u", "-"]);
    expect(commandFor("shell", "ls", ["-la", "; rm -rf /"])).toEqual(["ls", "-la", "; rm -rf /"]);
  });
});

describe("ImageStore against a stand-in engine", () => {
  it("checks a present image once within its time to live", async () => {
    const engine = new StandInEngine();
    engine.images.add("alpine:3.20");
    const store = new ImageStore(engine, 1000, () => {});
    let checks = 0;
    const imageExists = engine.imageExists.bind(engine);
    engine.imageExists = (image) => {
      checks++;
      return imageExists(image);
    };
    await store.ensure("alpine:3.20");
    await store.ensure("alpine:3.20");
    expect(checks).toBe(1);
    store.forget("alpine:3.20");
    await store.ensure("alpine:3.20");
    expect(checks).toBe(2);
  });

  it("pulls a missing image once for concurrent callers", async () => {
    const engine = new StandInEngine();
    engine.pullable.add("alpine:3.20");
    const store = new ImageStore(engine, 1000, () => {});
    await Promise.all([store.ensure("alpine:3.20"), store.ensure("alpine:3.20")]);
    expect(engine.calls.filter((c) => c === "pull alpine:3.20")).toHaveLength(1);
    expect(engine.images.has("alpine:3.20")).toBe(true);
  });

  it("answers 503 image_unavailable naming the image when the pull fails", async () => {
    const engine = new StandInEngine();
    const logged: string[] = [];
    const store = new ImageStore(engine, 1000, (line) => logged.push(line));
    const err = await store.ensure("ghcr.io/org/missing:1").then(
      () => undefined,
      (e: unknown) => e,
    );
    expect(err).toBeInstanceOf(HostError);
    expect(err).toMatchObject({ status: 503, code: "image_unavailable" });
    expect((err as Error).message).toContain("ghcr.io/org/missing:1");
    expect((err as Error).message).not.toContain("pull access denied");
    expect(logged).toEqual([
      "pull of ghcr.io/org/missing:1 failed: pull access denied for ghcr.io/org/missing:1",
    ]);
  });

  it("answers 503 docker_unavailable when the engine does not answer", async () => {
    const engine = new StandInEngine();
    engine.down = true;
    const store = new ImageStore(engine, 1000, () => {});
    const err = await store.ensure("alpine:3.20").then(
      () => undefined,
      (e: unknown) => e,
    );
    expect(err).toMatchObject({ status: 503, code: "docker_unavailable" });
  });
});
