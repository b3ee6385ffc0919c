import { describe, expect, it } from "vitest";
import { ExecutionFailure } from "../../workers/src/errors.js";
import { MAX_ARGUMENT_DEPTH, parseArguments } from "../../workers/src/formats/wire.js";
import {
  JsonDepthScanner,
  jsonDepthExceeds,
  MAX_VALUE_DEPTH,
  valueDepthExceeds,
} from "../../workers/src/json-depth.js";
import { parseJsonOutput } from "../../workers/src/skills/execution/execution-attempt.js";
import { storedJson, UNREPRESENTABLE } from "../../workers/src/skills/execution/stored-json.js";

/** Reference: the nesting depth of a parsed value, computed recursively (fine at small depths). */
function depthOf(value: unknown): number {
  if (Array.isArray(value)) return 1 + Math.max(0, ...value.map(depthOf));
  if (value && typeof value === "object")
    return 1 + Math.max(0, ...Object.values(value).map(depthOf));
  return 0;
}

/** A seeded random JSON value with brackets, quotes and escapes inside its strings. */
function randomValue(next: () => number, budget: number): unknown {
  const r = next();
  if (budget <= 0 || r < 0.3) {
    const strings = ['a"[{', "\\", "}]", "plain", '\\"{', "é😀", ""];
    return r < 0.15 ? strings[Math.floor(next() * strings.length)] : Math.floor(next() * 100);
  }
  const n = Math.floor(next() * 4);
  if (r < 0.65) return Array.from({ length: n }, () => randomValue(next, budget - 1));
  return Object.fromEntries(
    Array.from({ length: n }, (_, i) => [`k${i}[{"`, randomValue(next, budget - 1)]),
  );
}

function seeded(seed: number): () => number {
  let s = seed;
  return () => {
    s = (s * 1_103_515_245 + 12_345) % 2 ** 31;
    return s / 2 ** 31;
  };
}

describe("jsonDepthExceeds", () => {
  it("agrees with a recursive reference on random JSON, at every limit", () => {
    const next = seeded(42);
    for (let i = 0; i < 500; i++) {
      const value = randomValue(next, 12);
      const text = JSON.stringify(value);
      const depth = depthOf(value);
      for (const max of [1, 2, 3, 5, 8, 13]) {
        expect([text, max, jsonDepthExceeds(text, max)]).toEqual([text, max, depth > max]);
      }
    }
  });

  it("counts the body itself as level 1 and ignores brackets in strings", () => {
    expect(jsonDepthExceeds("{}", 1)).toBe(false);
    expect(jsonDepthExceeds('{"a":[1]}', 1)).toBe(true);
    expect(jsonDepthExceeds('{"a":"[[[[{{{{"}', 1)).toBe(false);
    expect(jsonDepthExceeds('["\\\\", ["\\"[["]]', 2)).toBe(false);
    expect(jsonDepthExceeds("42", 1)).toBe(false);
  });

  it("answers for 1,000,000 levels without recursion", () => {
    const text = `${"[".repeat(1_000_000)}${"]".repeat(1_000_000)}`;
    expect(jsonDepthExceeds(text, 128)).toBe(true);
    expect(jsonDepthExceeds(text, 1_000_000)).toBe(false);
  });
});

describe("JsonDepthScanner (the depth of a body as its bytes arrive)", () => {
  /** Feeds `bytes` to a scanner in chunks of random sizes (1 to 7 bytes). */
  const scanChunked = (bytes: Uint8Array, max: number, next: () => number) => {
    const scanner = new JsonDepthScanner(max);
    let over = false;
    for (let i = 0; i < bytes.length && !over; ) {
      const n = 1 + Math.floor(next() * 7);
      over = scanner.push(bytes.subarray(i, i + n));
      i += n;
    }
    return over;
  };

  it("agrees with the recursive reference on random UTF-8 JSON cut into random chunks", () => {
    const next = seeded(7);
    const encoder = new TextEncoder();
    for (let i = 0; i < 500; i++) {
      const value = randomValue(next, 12);
      const text = JSON.stringify(value);
      const depth = depthOf(value);
      for (const max of [1, 2, 3, 5, 8, 13]) {
        const over = scanChunked(encoder.encode(text), max, next);
        expect([text, max, over]).toEqual([text, max, depth > max]);
      }
    }
  });

  it("carries an escape and a string across a chunk boundary", () => {
    const scanner = new JsonDepthScanner(1);
    const enc = (s: string) => new TextEncoder().encode(s);
    // A backslash ending one chunk escapes the quote that starts the next: the brackets are text.
    expect(scanner.push(enc('{"a":"\\'))).toBe(false);
    expect(scanner.push(enc('"[[["}'))).toBe(false);
    expect(scanner.push(enc('{"b":['))).toBe(true);
  });

  it("stops at the first byte past the limit of a 10 MB body of brackets", () => {
    const scanner = new JsonDepthScanner(128);
    expect(scanner.push(new Uint8Array(10 * 1024 * 1024).fill(0x5b))).toBe(true);
  });
});

describe("parseArguments", () => {
  it("refuses arguments nested deeper than the limit before parsing them", () => {
    const at = (depth: number) => `{"a":${"[".repeat(depth - 1)}${"]".repeat(depth - 1)}}`;
    expect(parseArguments(at(MAX_ARGUMENT_DEPTH)).error).toBeUndefined();
    expect(parseArguments(at(MAX_ARGUMENT_DEPTH + 1))).toEqual({
      input: null,
      error: `Tool call arguments are nested deeper than ${MAX_ARGUMENT_DEPTH} levels`,
    });
    expect(parseArguments(at(10_000)).input).toBeNull();
  });
});

describe("valueDepthExceeds", () => {
  it("agrees with the recursive reference on random values", () => {
    const next = seeded(7);
    for (let i = 0; i < 300; i++) {
      const value = randomValue(next, 6);
      const depth = depthOf(value);
      expect(valueDepthExceeds(value, depth)).toBe(false);
      if (depth > 0) expect(valueDepthExceeds(value, depth - 1)).toBe(true);
    }
  });

  it("walks 50,000 nested arrays without exhausting the stack", () => {
    const deep = JSON.parse(`${"[".repeat(50_000)}${"]".repeat(50_000)}`);
    expect(valueDepthExceeds(deep, MAX_VALUE_DEPTH)).toBe(true);
    expect(valueDepthExceeds(deep, 50_000)).toBe(false);
  });

  it("counts a cycle as too deep and walks a shared object once", () => {
    const cyclic: Record<string, unknown> = {};
    cyclic.self = cyclic;
    expect(valueDepthExceeds(cyclic, MAX_VALUE_DEPTH)).toBe(true);
    const leaf = { a: 1 };
    expect(valueDepthExceeds({ x: leaf, y: [leaf, leaf] }, 3)).toBe(false);
  });
});

describe("skill outputs too deep to keep", () => {
  it("parseJsonOutput: deep JSON is output_too_deep with an excerpt; non-JSON brackets stay text", () => {
    const text = `${"[".repeat(40_000)}${"]".repeat(40_000)}`;
    let failure: unknown;
    try {
      parseJsonOutput(text);
    } catch (err) {
      failure = err;
    }
    expect(failure).toBeInstanceOf(ExecutionFailure);
    expect((failure as ExecutionFailure).code).toBe("output_too_deep");
    expect((failure as ExecutionFailure).output).toEqual({
      truncated: true,
      reason: `the output nests deeper than ${MAX_VALUE_DEPTH} levels`,
      excerpt: "[".repeat(1000),
    });
    expect(parseJsonOutput("[".repeat(40_000))).toBe("[".repeat(40_000));
    expect(parseJsonOutput('{"a":[1]}')).toEqual({ a: [1] });
  });

  it("storedJson keeps a marker for a value JSON.stringify cannot serialise", () => {
    const deep = JSON.parse(`${"[".repeat(40_000)}${"]".repeat(40_000)}`);
    expect(storedJson(deep, 1024)).toEqual({
      text: JSON.stringify(UNREPRESENTABLE),
      truncated: true,
    });
  });
});
