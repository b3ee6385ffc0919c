import { describe, expect, it } from "vitest";
import {
  base64ToBytes,
  base64ToBytesPortable,
  bytesToBase64,
  bytesToBase64Portable,
  concatBytes,
} from "../../workers/src/skills/builtins/bytes.js";

describe("workspace byte helpers", () => {
  it("the portable base64 codec (used where there is no Buffer) agrees with Buffer for every tail length", () => {
    for (let len = 0; len < 70; len++) {
      const bytes = Uint8Array.from({ length: len }, (_, i) => (i * 97 + len * 31) & 255);
      const expected = Buffer.from(bytes).toString("base64");
      expect(bytesToBase64Portable(bytes)).toBe(expected);
      expect(bytesToBase64(bytes)).toBe(expected);
      expect(Array.from(base64ToBytesPortable(expected))).toEqual(Array.from(bytes));
      expect(Array.from(base64ToBytes(expected))).toEqual(Array.from(bytes));
    }
  });

  it("encodes a view into a larger buffer by its own bytes only", () => {
    const big = Uint8Array.from([1, 2, 3, 4, 5, 6]);
    expect(bytesToBase64(big.subarray(2, 4))).toBe(Buffer.from([3, 4]).toString("base64"));
  });

  it("rejects text that is not base64 and accepts line breaks", () => {
    for (const bad of ["abc!", "a", "ab=c", "é"])
      expect(() => base64ToBytes(bad)).toThrow(TypeError);
    expect(Array.from(base64ToBytes("AQID\r\nBA=="))).toEqual([1, 2, 3, 4]);
  });

  it("concatBytes cuts at the requested total", () => {
    const out = concatBytes([Uint8Array.from([1, 2]), Uint8Array.from([3, 4, 5])], 4);
    expect(Array.from(out)).toEqual([1, 2, 3, 4]);
  });
});
