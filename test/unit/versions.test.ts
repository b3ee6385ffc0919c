import { describe, expect, it } from "vitest";
import {
  isStrictVersion,
  parseSkillRef,
  resolveVersion,
} from "../../workers/src/skills/registry/versions.js";

describe("resolveVersion", () => {
  const versions = ["1.0.0", "1.2.0", "2.0.0"];
  it.each([
    [">=1.1.0", "2.0.0"],
    ["<2.0.0", "1.2.0"],
    ["==1.0.0", "1.0.0"],
    ["^1.0.0", "1.2.0"],
    ["~1.0.0", "1.0.0"],
    [">1.0.0", "2.0.0"],
    ["<=1.2.0", "1.2.0"],
    ["1.2.0", "1.2.0"],
    ["3.0.0", null],
    ["not a range", null],
  ])("%s → %s", (constraint, expected) => {
    expect(resolveVersion(versions, constraint)).toBe(expected);
  });

  it("accepts only strict MAJOR.MINOR.PATCH versions", () => {
    expect(isStrictVersion("1.0.0")).toBe(true);
    expect(isStrictVersion("1.0")).toBe(false);
    expect(isStrictVersion("v1.0.0")).toBe(false);
    expect(isStrictVersion("1.0.0-beta")).toBe(false);
  });

  it("splits skill references", () => {
    expect(parseSkillRef("fmt")).toEqual({ name: "fmt", constraint: null });
    expect(parseSkillRef("fmt@>=1.1.0")).toEqual({ name: "fmt", constraint: ">=1.1.0" });
  });
});
