/**
 * Skill versions (docs/registry.md#versions): strict `MAJOR.MINOR.PATCH` and constraint
 * resolution with the `semver` package. Constraints: `^`, `~`, `>`, `>=`, `<`, `<=`, `==` and an
 * exact version; the highest matching version wins.
 */
import semver from "semver";

/** A version is `^\d+\.\d+\.\d+$` exactly (no pre-release, no build metadata, no `v`). */
export const VERSION_PATTERN = /^\d+\.\d+\.\d+$/;

/** True when `version` is a strict `MAJOR.MINOR.PATCH` version. */
export function isStrictVersion(version: string): boolean {
  return VERSION_PATTERN.test(version) && semver.valid(version) !== null;
}

/**
 * Turns a constraint into a `semver` range: `==1.2.3` → `1.2.3`; the other operators pass
 * through. Returns null when the constraint is not understood.
 */
export function toSemverRange(constraint: string): string | null {
  const trimmed = constraint.trim();
  if (trimmed === "" || trimmed === "*" || trimmed.toLowerCase() === "latest") return "*";
  const normalised = trimmed.startsWith("==") ? trimmed.slice(2).trim() : trimmed;
  const range = semver.validRange(normalised);
  return range;
}

/**
 * Highest version among `versions` that satisfies `constraint` (docs/registry.md#versions).
 * @param versions strict versions, any order.
 * @param constraint `^1.0.0`, `~1.0.0`, `>1.0.0`, `>=1.1.0`, `<2.0.0`, `<=1.2.0`, `==1.0.0`, `1.0.0`, or empty / `latest` for the highest.
 * @returns the version, or null when none matches or the constraint is invalid.
 */
export function resolveVersion(versions: readonly string[], constraint: string): string | null {
  const range = toSemverRange(constraint);
  if (range === null) return null;
  return semver.maxSatisfying([...versions], range);
}

/**
 * Splits a skill reference into name and constraint: `fmt` → { name: "fmt", constraint: null },
 * `fmt@1.2.0` / `fmt@>=1.1.0` → { name: "fmt", constraint: "..." }.
 */
export function parseSkillRef(ref: string): { name: string; constraint: string | null } {
  const at = ref.indexOf("@");
  if (at < 0) return { name: ref.trim(), constraint: null };
  return { name: ref.slice(0, at).trim(), constraint: ref.slice(at + 1).trim() || null };
}
