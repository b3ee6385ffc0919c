/**
 * Defensive readers for catalog payloads (both catalog APIs are undocumented and vary;
 * docs/catalogs.md#searching): locate the item array under the common envelopes and read fields
 * under their common spellings.
 */
import { z } from "zod";
import { UpstreamError } from "../errors.js";

const record = z.record(z.string(), z.unknown());

/** A numeric field given as a number or a numeric string; null otherwise. */
export function num(value: unknown): number | null {
  if (typeof value === "number" && Number.isFinite(value)) return value;
  if (typeof value === "string" && value.trim() !== "" && Number.isFinite(Number(value)))
    return Number(value);
  return null;
}

/** The first non-empty string among `keys` of `item`, or null. */
export function str(item: Record<string, unknown>, ...keys: string[]): string | null {
  for (const key of keys) {
    const v = item[key];
    if (typeof v === "string" && v.trim() !== "") return v.trim();
    if (typeof v === "number" && Number.isFinite(v)) return String(v);
  }
  return null;
}

/** The first number among `keys` of `item`, or null. */
export function numberField(item: Record<string, unknown>, ...keys: string[]): number | null {
  for (const key of keys) {
    const n = num(item[key]);
    if (n !== null) return n;
  }
  return null;
}

/**
 * Finds the item array and the envelope it sits in: a root array, or `skills` / `results` /
 * `items` / `data` at the root or under `data`.
 * @returns the object items (non-objects dropped) and the envelope (for totals and pagination).
 * @throws UpstreamError `catalog_invalid_response` when no such array exists or `success` is false.
 */
export function itemsOf(
  label: string,
  payload: unknown,
): { items: Record<string, unknown>[]; envelope: Record<string, unknown> } {
  const keys = ["skills", "results", "items", "data"];
  const pick = (value: unknown) => {
    const arr = z.array(z.unknown()).safeParse(value);
    return arr.success
      ? arr.data.flatMap((i) => (record.safeParse(i).success ? [i as Record<string, unknown>] : []))
      : null;
  };
  const root = pick(payload);
  if (root) return { items: root, envelope: {} };
  const env = record.safeParse(payload);
  if (env.success) {
    if (env.data.success === false) {
      const error = record.safeParse(env.data.error);
      const message = error.success
        ? str(error.data, "message", "code")
        : str(env.data, "error", "message");
      throw new UpstreamError(
        `${label} reported an error: ${message ?? "unknown"}`,
        "catalog_failed",
      );
    }
    const nested = record.safeParse(env.data.data);
    for (const scope of nested.success ? [env.data, nested.data] : [env.data]) {
      for (const key of keys) {
        const items = pick(scope[key]);
        if (items) return { items, envelope: scope };
      }
    }
  }
  throw new UpstreamError(`${label} answered without a list of skills`, "catalog_invalid_response");
}
