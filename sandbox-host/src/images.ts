/**
 * Images: the language → image map, the allowlist and `normalizeImage`, the command each
 * language runs with (program on stdin, never argv), and making sure an image is present
 * (pull when a registry is reachable, else a clear `image_unavailable` error).
 */
import type { SandboxLanguage } from "@skillgate/sandbox-protocol";
import type { DockerClient } from "./docker-client.js";
import { HostError } from "./errors.js";

/** Product default image per language. */
export const DEFAULT_LANGUAGE_IMAGES: Readonly<Record<SandboxLanguage, string>> = {
  node: "node:22-alpine",
  python: "python:3.12-alpine",
  shell: "alpine:3.20",
};

/** Product default allowlist; `SKILLS_ALLOWED_SANDBOX_IMAGES` adds to it. */
export const DEFAULT_ALLOWED_IMAGES: readonly string[] = [
  "alpine:3.20",
  "node:22-alpine",
  "python:3.12-alpine",
];

const COMPONENT = /^[a-z0-9]+(?:(?:[._]|__|-+)[a-z0-9]+)*$/;
const DOMAIN = /^(?:localhost|[A-Za-z0-9-]+(?:\.[A-Za-z0-9-]+)*)(?::\d{1,5})?$/;
const TAG = /^[A-Za-z0-9_][A-Za-z0-9_.-]{0,127}$/;
const DIGEST = /^sha256:[a-f0-9]{64}$/;

/**
 * Canonical form of an image reference, so that `python:3.12-alpine`,
 * `docker.io/library/python:3.12-alpine` and `index.docker.io/library/python:3.12-alpine` compare
 * equal: Docker Hub's domain and `library/` are dropped, a missing tag becomes `:latest`.
 * Input: a reference `[domain[:port]/]path[:tag][@sha256:…]`. Output: the normalised string.
 * @throws Error naming the reference when it is not a valid image reference.
 */
export function normalizeImage(ref: string): string {
  const input = ref.trim();
  let rest = input;
  let digest = "";
  const at = rest.indexOf("@");
  if (at >= 0) {
    digest = rest.slice(at + 1);
    rest = rest.slice(0, at);
    if (!DIGEST.test(digest)) throw new Error(`Invalid image digest in "${input}"`);
  }
  let tag = "";
  const lastSlash = rest.lastIndexOf("/");
  const colon = rest.lastIndexOf(":");
  if (colon > lastSlash) {
    tag = rest.slice(colon + 1);
    rest = rest.slice(0, colon);
    if (!TAG.test(tag)) throw new Error(`Invalid image tag in "${input}"`);
  }
  const parts = rest.split("/");
  let domain = "";
  const first = parts[0] ?? "";
  if (parts.length > 1 && (first.includes(".") || first.includes(":") || first === "localhost")) {
    domain = first;
    parts.shift();
    if (!DOMAIN.test(domain)) throw new Error(`Invalid registry in "${input}"`);
  }
  if (parts.length === 0 || !parts.every((p) => COMPONENT.test(p))) {
    throw new Error(`Invalid image name "${input}"`);
  }
  if (domain === "docker.io" || domain === "index.docker.io" || domain === "registry-1.docker.io") {
    domain = "";
  }
  if (!domain && parts.length === 2 && parts[0] === "library") parts.shift();
  const name = [domain, ...parts].filter(Boolean).join("/");
  if (digest) return tag ? `${name}:${tag}@${digest}` : `${name}@${digest}`;
  return `${name}:${tag || "latest"}`;
}

/**
 * Resolves the image of a run: the request's explicit image, else the language's image, checked
 * against the allowlist. Output: the normalised image.
 * @throws HostError 422 `image_not_allowed` for an invalid or unlisted image.
 */
export function resolveImage(
  language: SandboxLanguage,
  requested: string | undefined,
  images: Readonly<Record<SandboxLanguage, string>>,
  allowed: ReadonlySet<string>,
): string {
  if (requested === undefined) return images[language];
  let image: string;
  try {
    image = normalizeImage(requested);
  } catch (err) {
    throw new HostError(422, "image_not_allowed", (err as Error).message);
  }
  if (!allowed.has(image)) {
    throw new HostError(422, "image_not_allowed", `Image ${image} is not on the sandbox allowlist`);
  }
  return image;
}

/**
 * Python under gVisor: reads the whole program from stdin in one go, then runs it as `__main__`
 * with the file name `<stdin>`. With unbuffered stdio (`-u`, `PYTHONUNBUFFERED`) `python3 -`
 * parses stdin one byte per read, and each read is a trapped system call under gVisor's ptrace
 * platform: a 200 KB program took over 8 s to load that way (docs/sandbox.md#runtimes).
 */
const PYTHON_STDIN_LOADER =
  'import sys; exec(compile(sys.stdin.buffer.read(), "<stdin>", "exec"), {"__name__": "__main__", "__builtins__": __builtins__})';

/**
 * Command that reads the program from stdin for a language (`node -`, `python3 -u -`, or under
 * `runsc` a one-line loader that reads stdin at once); for `shell` the caller's `command` +
 * `args` as argv. Output: the container's `Cmd`.
 */
export function commandFor(
  language: SandboxLanguage,
  command?: string,
  args?: string[],
  runtime: "runc" | "runsc" = "runc",
): string[] {
  if (language === "node") return ["node", "-"];
  if (language === "python")
    return runtime === "runsc"
      ? ["python3", "-u", "-c", PYTHON_STDIN_LOADER]
      : ["python3", "-u", "-"];
  return [command ?? "", ...(args ?? [])];
}

/** Environment every container gets (no host variables, no secrets). */
export const BASE_ENV: Readonly<Record<string, string>> = {
  HOME: "/workspace",
  LANG: "C.UTF-8",
  PYTHONUNBUFFERED: "1",
  PYTHONDONTWRITEBYTECODE: "1",
};

/** Remembers which images are present so that a run does not inspect its image every time. */
export class ImageStore {
  private readonly present = new Map<string, number>();
  private readonly inflight = new Map<string, Promise<void>>();

  /**
   * @param docker the Docker engine seam.
   * @param pullTimeoutMs time allowed for pulling a missing image, in ms.
   * @param log receives one line per failed pull (no secrets).
   * @param ttlMs how long a positive check is trusted, in ms.
   */
  constructor(
    private readonly docker: DockerClient,
    private readonly pullTimeoutMs: number,
    private readonly log: (line: string) => void,
    private readonly ttlMs = 60_000,
  ) {}

  /**
   * Makes sure `image` (normalised, allowlisted) exists locally, pulling it when it is missing
   * (one pull per image at a time).
   * @throws HostError 503 `image_unavailable` naming the image when it is absent and cannot be
   *   pulled; 503 `docker_unavailable` when the engine does not answer.
   */
  async ensure(image: string): Promise<void> {
    const seen = this.present.get(image);
    if (seen !== undefined && Date.now() - seen < this.ttlMs) return;
    let pending = this.inflight.get(image);
    if (!pending) {
      pending = this.check(image).finally(() => this.inflight.delete(image));
      this.inflight.set(image, pending);
    }
    await pending;
  }

  private async check(image: string): Promise<void> {
    let exists: boolean;
    try {
      exists = await this.docker.imageExists(image);
    } catch (err) {
      throw new HostError(
        503,
        "docker_unavailable",
        `Docker engine error while checking ${image}`,
        undefined,
        { cause: err },
      );
    }
    if (exists) {
      this.present.set(image, Date.now());
      return;
    }
    try {
      await this.docker.pullImage(image, this.pullTimeoutMs);
      if (!(await this.docker.imageExists(image))) throw new Error("image missing after the pull");
      this.present.set(image, Date.now());
    } catch (err) {
      this.present.delete(image);
      // The engine's message can name internal hosts (registry mirrors, resolvers): it goes to the
      // host's log, not to callers.
      const reason = (err as Error).message?.split("\n")[0] ?? "pull failed";
      this.log(`pull of ${image} failed: ${reason}`);
      throw new HostError(
        503,
        "image_unavailable",
        `Image ${image} is not available on the sandbox host and could not be pulled; load it, or build the local images (npm run sandbox:images) and point SANDBOX_IMAGE_* and SKILLS_ALLOWED_SANDBOX_IMAGES at them`,
      );
    }
  }

  /** Forgets a positive check (e.g. after a create failed with "no such image"). */
  forget(image: string): void {
    this.present.delete(image);
  }
}
