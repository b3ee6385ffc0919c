/**
 * Configuration of the sandbox host (sandbox-host/src/config.ts), parsed from environment
 * variables: defaults, the secret (required, never echoed), key rotation, images normalised and
 * checked against the allowlist, and clear errors naming the variable.
 */
import { describe, expect, it } from "vitest";
import { HostConfigError, parseHostConfig } from "../../sandbox-host/src/config.js";

const SECRET = "unit-test-secret-0123456789";

function configError(env: Record<string, string | undefined>): HostConfigError {
  try {
    parseHostConfig(env);
  } catch (err) {
    expect(err).toBeInstanceOf(HostConfigError);
    return err as HostConfigError;
  }
  throw new Error("parseHostConfig accepted the configuration");
}

describe("parseHostConfig", () => {
  it("applies the documented defaults", () => {
    const config = parseHostConfig({ SANDBOX_SECRET: SECRET });
    expect(config).toMatchObject({
      host: "127.0.0.1",
      port: 20129,
      instance: "default",
      maxConcurrency: 4,
      maxQueue: 16,
      queueTimeoutMs: 30_000,
      poolSize: 0,
      images: { node: "node:22-alpine", python: "python:3.12-alpine", shell: "alpine:3.20" },
      killGraceMs: 500,
      maxBodyBytes: 1_048_576,
      user: "65534:65534",
      shmBytes: 16 * 1_048_576,
      maxCpuLimit: 1000,
      maxMemoryMb: 1024,
      maxOutputChars: 100_000,
      defaultTimeoutMs: 10_000,
      networkEnabled: false,
      dockerSocket: undefined,
    });
    expect([...config.keys]).toEqual([["k1", SECRET]]);
    expect([...config.envAllowlist].sort()).toEqual(["LANG", "LC_ALL", "TZ"]);
    expect([...config.allowedImages].sort()).toEqual([
      "alpine:3.20",
      "node:22-alpine",
      "python:3.12-alpine",
    ]);
  });

  it("refuses to start without a secret or with a short one, without echoing it", () => {
    expect(configError({}).message).toContain("SANDBOX_SECRET");
    expect(configError({ SANDBOX_SECRET: "   " }).message).toContain("SANDBOX_SECRET");
    const short = configError({ SANDBOX_SECRET: "short-secret" });
    expect(short.message).toContain("SANDBOX_SECRET");
    expect(short.message).not.toContain("short-secret");
  });

  it("accepts a previous secret under its own key id during a rotation", () => {
    const config = parseHostConfig({
      SANDBOX_SECRET: SECRET,
      SANDBOX_KEY_ID: "k2",
      SANDBOX_SECRET_PREVIOUS: `${SECRET}-old`,
      SANDBOX_KEY_ID_PREVIOUS: "k1",
    });
    expect([...config.keys]).toEqual([
      ["k2", SECRET],
      ["k1", `${SECRET}-old`],
    ]);
    expect(
      configError({
        SANDBOX_SECRET: SECRET,
        SANDBOX_SECRET_PREVIOUS: `${SECRET}-old`,
        SANDBOX_KEY_ID_PREVIOUS: "k1",
      }).message,
    ).toContain("SANDBOX_KEY_ID_PREVIOUS");
  });

  it("normalises the language images and requires them on the allowlist", () => {
    const config = parseHostConfig({
      SANDBOX_SECRET: SECRET,
      SANDBOX_IMAGE_SHELL: "docker.io/library/busybox:1.36",
      SKILLS_ALLOWED_SANDBOX_IMAGES: "busybox:1.36, ghcr.io/org/tool:2",
    });
    expect(config.images.shell).toBe("busybox:1.36");
    expect(config.allowedImages.has("ghcr.io/org/tool:2")).toBe(true);
    const unlisted = configError({ SANDBOX_SECRET: SECRET, SANDBOX_IMAGE_NODE: "node:20" });
    expect(unlisted.message).toContain("SANDBOX_IMAGE_NODE");
    expect(unlisted.message).toContain("SKILLS_ALLOWED_SANDBOX_IMAGES");
    expect(
      configError({ SANDBOX_SECRET: SECRET, SKILLS_ALLOWED_SANDBOX_IMAGES: "Not An Image" })
        .message,
    ).toContain("Invalid sandbox image");
  });

  it("parses numbers, booleans and lists, and names an invalid variable", () => {
    const config = parseHostConfig({
      SANDBOX_SECRET: SECRET,
      SANDBOX_PORT: "0",
      SANDBOX_MAX_CONCURRENCY: "8",
      SKILLS_SANDBOX_NETWORK_ENABLED: "yes",
      SANDBOX_ENV_ALLOWLIST: "TZ, MY_VAR,,",
      SANDBOX_DOCKER_SOCKET: " /run/docker.sock ",
      SANDBOX_SHM_MB: "4",
    });
    expect(config).toMatchObject({
      port: 0,
      maxConcurrency: 8,
      networkEnabled: true,
      dockerSocket: "/run/docker.sock",
      shmBytes: 4 * 1_048_576,
    });
    expect([...config.envAllowlist]).toEqual(["TZ", "MY_VAR"]);
    expect(
      parseHostConfig({ SANDBOX_SECRET: SECRET, SKILLS_SANDBOX_NETWORK_ENABLED: "off" })
        .networkEnabled,
    ).toBe(false);
    expect(configError({ SANDBOX_SECRET: SECRET, SANDBOX_MAX_CONCURRENCY: "0" }).message).toContain(
      "SANDBOX_MAX_CONCURRENCY",
    );
    expect(configError({ SANDBOX_SECRET: SECRET, SANDBOX_USER: "root" }).message).toContain(
      "SANDBOX_USER",
    );
    expect(
      configError({ SANDBOX_SECRET: SECRET, SKILLS_SANDBOX_TIMEOUT_MS: "61000" }).message,
    ).toContain("SKILLS_SANDBOX_TIMEOUT_MS");
  });

  it("configures browser runs: defaults, bounds by the host maxima, loopback ports checked", () => {
    const defaults = parseHostConfig({ SANDBOX_SECRET: SECRET });
    expect(defaults.browser).toEqual({
      image: "skillgate-local/browser:latest",
      memoryMb: 768,
      cpuLimit: 1000,
      socketDir: undefined,
      socketVolume: undefined,
      allowLoopbackPorts: new Set(),
    });
    const set = parseHostConfig({
      SANDBOX_SECRET: SECRET,
      SANDBOX_IMAGE_BROWSER: "registry.example.com/browser:2",
      SANDBOX_BROWSER_MEMORY_MB: "2048",
      SANDBOX_MAX_MEMORY_MB: "1024",
      SANDBOX_BROWSER_SOCKET_DIR: "/run/skillgate",
      SANDBOX_BROWSER_ALLOW_LOOPBACK_PORTS: "8080, 9090",
    });
    expect(set.browser).toMatchObject({
      image: "registry.example.com/browser:2",
      memoryMb: 1024,
      socketDir: "/run/skillgate",
      allowLoopbackPorts: new Set([8080, 9090]),
    });
    const err = configError({
      SANDBOX_SECRET: SECRET,
      SANDBOX_BROWSER_ALLOW_LOOPBACK_PORTS: "80,x",
    });
    expect(err.message).toContain("SANDBOX_BROWSER_ALLOW_LOOPBACK_PORTS");
  });

  it("shares the browser sockets through a named volume when one is set", () => {
    const config = parseHostConfig({
      SANDBOX_SECRET: SECRET,
      SANDBOX_BROWSER_SOCKET_DIR: "/run/skillgate-egress",
      SANDBOX_BROWSER_SOCKET_VOLUME: " skillgate-browser-egress ",
    });
    expect(config.browser).toMatchObject({
      socketDir: "/run/skillgate-egress",
      socketVolume: "skillgate-browser-egress",
    });
    expect(
      parseHostConfig({ SANDBOX_SECRET: SECRET, SANDBOX_BROWSER_SOCKET_VOLUME: "" }).browser
        .socketVolume,
    ).toBeUndefined();
  });

  it("refuses a bad socket volume or directory, naming the variable", () => {
    for (const name of ["/var/lib/x", "-leading-dash", "a", "has space", "x:y", "é"]) {
      const err = configError({
        SANDBOX_SECRET: SECRET,
        SANDBOX_BROWSER_SOCKET_DIR: "/run/skillgate-egress",
        SANDBOX_BROWSER_SOCKET_VOLUME: name,
      });
      expect(err.message).toContain("SANDBOX_BROWSER_SOCKET_VOLUME");
      expect(err.message).toContain("Docker volume name");
    }
    const relative = configError({ SANDBOX_SECRET: SECRET, SANDBOX_BROWSER_SOCKET_DIR: "egress" });
    expect(relative.message).toContain("SANDBOX_BROWSER_SOCKET_DIR (must be an absolute path)");
    const long = configError({
      SANDBOX_SECRET: SECRET,
      SANDBOX_BROWSER_SOCKET_DIR: `/${"d".repeat(63)}`,
    });
    expect(long.message).toContain("SANDBOX_BROWSER_SOCKET_DIR (at most 63 bytes");
    const longest = `/${"d".repeat(62)}`;
    expect(
      parseHostConfig({ SANDBOX_SECRET: SECRET, SANDBOX_BROWSER_SOCKET_DIR: longest }).browser
        .socketDir,
    ).toBe(longest);
    // The volume alone does not say where this host sees it.
    const alone = configError({
      SANDBOX_SECRET: SECRET,
      SANDBOX_BROWSER_SOCKET_VOLUME: "skillgate-browser-egress",
    });
    expect(alone.message).toContain(
      "SANDBOX_BROWSER_SOCKET_VOLUME needs SANDBOX_BROWSER_SOCKET_DIR",
    );
  });
});

describe("tracing (the standard OTEL_* variables, docs/sandbox.md#tracing)", () => {
  it("is off without an endpoint, and exports to <endpoint>/v1/traces with one", () => {
    expect(parseHostConfig({ SANDBOX_SECRET: SECRET }).tracing).toBeUndefined();
    expect(
      parseHostConfig({
        SANDBOX_SECRET: SECRET,
        OTEL_EXPORTER_OTLP_ENDPOINT: "http://collector:4318/",
        OTEL_EXPORTER_OTLP_HEADERS: "authorization=Bearer%20t0ken,x-team=a,broken",
      }).tracing,
    ).toEqual({
      url: "http://collector:4318/v1/traces",
      headers: { authorization: "Bearer t0ken", "x-team": "a" },
      serviceName: "skillgate-sandbox-host",
    });
  });

  it("takes the traces endpoint as it is, before the base URL, and the service name", () => {
    expect(
      parseHostConfig({
        SANDBOX_SECRET: SECRET,
        OTEL_EXPORTER_OTLP_ENDPOINT: "http://collector:4318",
        OTEL_EXPORTER_OTLP_TRACES_ENDPOINT: "https://otel.example/custom/traces",
        OTEL_SERVICE_NAME: "sandbox-eu-1",
      }).tracing,
    ).toEqual({
      url: "https://otel.example/custom/traces",
      headers: {},
      serviceName: "sandbox-eu-1",
    });
  });

  it("refuses an endpoint that is not a URL, naming the variable and not its value", () => {
    const err = configError({ SANDBOX_SECRET: SECRET, OTEL_EXPORTER_OTLP_ENDPOINT: "not a url" });
    expect(err.message).toContain("OTEL_EXPORTER_OTLP_ENDPOINT");
    expect(err.message).not.toContain("not a url");
  });
});
