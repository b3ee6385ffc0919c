/**
 * The tool resolver of a registry snapshot (docs/tool-names.md,
 * docs/registry.md#visibility-and-shadowing): one place that turns a written name into a skill,
 * ordering versions by semver (1.10.0 above 1.9.0), letting a key's own copy shadow the global
 * one, and telling a missing version of a known skill from a client's own tool.
 */
import { describe, expect, it } from "vitest";
import { toolResolverFor } from "../../workers/src/skills/registry/tool-resolver.js";
import { skill, snapshot } from "./injection-fixtures.js";

const v190 = skill({ name: "fmt", version: "1.9.0" });
const v1100 = skill({ name: "fmt", version: "1.10.0" });
const v200off = skill({ name: "fmt", version: "2.0.0", mode: "off" });
const own1100 = skill({ name: "fmt", version: "1.10.0", apiKeyId: "key-a" });
const builtin = skill({ name: "web_search", sourceProvider: "builtin" });
const aliases = new Map([["omniroute_web_search", "web_search"]]);

describe("tool resolver", () => {
  const resolver = toolResolverFor(snapshot([v190, v1100, v200off, own1100, builtin]));

  it("orders versions by semver and skips inactive ones for the competing version", () => {
    expect(resolver.winner("fmt", null)).toBe(v1100);
    expect(resolver.isWinner(v190, null)).toBe(false);
    expect(resolver.potentialWinners()).toEqual(expect.arrayContaining([v1100, own1100, builtin]));
  });

  it("lets a key's own copy win a tie, and only for that key", () => {
    expect(resolver.winner("fmt", "key-a")).toBe(own1100);
    expect(resolver.winner("fmt", "key-b")).toBe(v1100);
    expect(resolver.resolveName("fmt@1.10.0", "key-a")).toBe(own1100);
    expect(resolver.resolveName("fmt@1.10.0", null)).toBe(v1100);
  });

  it("resolves every written form: direct tool name, name@version, constraint, bare", () => {
    expect(resolver.resolveName("fmt_v1_9_0", null)).toBe(v190);
    expect(resolver.resolveName("fmt@^1.0.0", null)).toBe(v1100);
    expect(resolver.resolveName("fmt@>=2.0.0", null)).toBe(v200off);
    expect(resolver.resolveName("fmt", null)).toBe(v1100);
    expect(resolver.resolveName(resolver.toolName(v1100), null)).toBe(v1100);
  });

  it("claims a model's call by its rules, or names the missing version", () => {
    expect(resolver.resolveCall("omniroute_web_search", null, { builtinAliases: aliases })).toEqual(
      { skill: builtin },
    );
    expect(resolver.resolveCall("fmt_v1_10_0", "key-a")).toEqual({ skill: own1100 });
    const missing = resolver.resolveCall("fmt@3.0.0", null);
    expect(missing?.missing?.requested).toBe("3.0.0");
    expect(missing?.missing?.versions.map((s) => s.version)).toEqual(["2.0.0", "1.10.0", "1.9.0"]);
    // A versioned-looking name of a skill nobody registered is the client's own tool.
    expect(resolver.resolveCall("other_v1_0_0", null)).toBeUndefined();
    // A bare custom name is Skillgate's only when the client says it injected it.
    expect(resolver.resolveCall("fmt", null)).toBeUndefined();
    const injected = new Map([["fmt", v1100]]);
    expect(resolver.resolveCall("fmt", null, { injected })).toEqual({ skill: v1100 });
    // A builtin's bare name stays the client's when `injected` does not list it.
    expect(resolver.resolveCall("web_search", null, { injected })).toBeUndefined();
    expect(resolver.resolveCall("web_search", null)).toEqual({ skill: builtin });
  });

  it("is built once per snapshot generation", () => {
    const snap = snapshot([v190]);
    expect(toolResolverFor(snap)).toBe(toolResolverFor(snap));
    expect(toolResolverFor(snapshot([v190]))).not.toBe(toolResolverFor(snap));
  });
});
