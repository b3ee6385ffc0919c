/**
 * Serialised scoring cores (docs/scoring.md#keeping-the-index-current): a core written to the
 * KV-style cache by the instance that built or updated it, and loaded by a cold instance instead
 * of being rebuilt. The bytes are a JSON header (strings: tokens, patterns, slot ids and names;
 * the fingerprint; where each array lies) followed by the typed arrays, each 8-byte aligned, read
 * back as views without copying. Patterns are matched with a substring table, filled after
 * loading in O(total pattern length), as after a full build.
 */
import type { RequestProvider } from "../../formats/types.js";
import { ScoringCore } from "./injection-core.js";
import {
  type CoreState,
  markHead,
  newScratch,
  type Pool,
  PROVIDERS,
} from "./injection-features.js";
import type { Fingerprint } from "./injection-fingerprint.js";
import { SubstringTable } from "./substring-table.js";
import { TokenTable } from "./token-table.js";

const MAGIC = 0x58494753; // "SGIX" little-endian
/** Version of the byte layout (3: pool entries pack a slot or feature id with its points). */
const FORMAT = 3;

type ArrayKind = "i32" | "i8" | "u8";
type Typed = Int32Array | Int8Array | Uint8Array;

interface Header {
  fingerprint: Fingerprint;
  slotCount: number;
  free: number[];
  slotIds: (string | null)[];
  slotName: string[];
  tokens: string[];
  reason: string[];
  patterns: string[];
  arrays: Record<string, [offset: number, length: number, kind: ArrayKind]>;
}

const align8 = (n: number) => (n + 7) & ~7;

/**
 * The lists `start[i] .. start[i] + len(i)` of `pool`, for `i < count`, back to back.
 * @returns the entries and each list's new start.
 */
function packed(
  pool: Pool,
  count: number,
  start: Int32Array,
  len: (i: number) => number,
): { entries: Int32Array; start: Int32Array } {
  let total = 0;
  for (let i = 0; i < count; i++) total += len(i);
  const out = { entries: new Int32Array(total), start: new Int32Array(count) };
  let at = 0;
  for (let i = 0; i < count; i++) {
    const from = start[i]!;
    const l = len(i);
    out.start[i] = at;
    out.entries.set(pool.entries.subarray(from, from + l), at);
    at += l;
  }
  return out;
}

/**
 * Serialises `core` (every version can be; free slots and emptied features are kept as they
 * are). @returns the bytes, to be stored as they are.
 */
export function encodeCore(core: ScoringCore): Uint8Array {
  const s = core.state;
  const { shared } = s;
  const n = s.slotCount;
  const count = s.featureCount;
  const freq = packed(s.freq, n, s.freqStart, (i) => s.freqEnd[i]! - s.freqStart[i]!);
  const freqEnd = Int32Array.from(freq.start, (v, i) => v + s.freqEnd[i]! - s.freqStart[i]!);
  const postings = packed(s.postings, count, s.featStart, (f) => s.featLen[f]!);
  // Tokens, reason tokens and patterns this version knows (shared tables may know later ones).
  const known = (fid: number) => fid < count;
  const tokens = shared.tokens.entries().filter(([, fid]) => known(fid));
  const reason = [...shared.reason].filter(([, fid]) => known(fid));
  const patterns: [string, number][] = shared.mainPatterns.map((p, i) => [
    p,
    shared.mainFeature[i]!,
  ]);
  for (let i = 0; i < s.extraCount; i++)
    patterns.push([shared.extra.pattern(i)!, shared.extraFeature[i]!]);
  const arrays: [string, Typed][] = [
    ["slotInstall", s.slotInstall.subarray(0, n)],
    ["staticScore", s.staticScore.subarray(0, n)],
    ["tieRank", s.tieRank.subarray(0, n)],
    ["tieOrder", s.tieOrder],
    ...PROVIDERS.map((p): [string, Typed] => [`hints.${p}`, s.hints[p].subarray(0, n)]),
    ["freqStart", freq.start],
    ["freqEnd", freqEnd],
    ["freqEntries", freq.entries],
    ["featStart", postings.start],
    ["featLen", s.featLen.subarray(0, count)],
    ["featFrequent", s.featFrequent.subarray(0, count)],
    ["postingEntries", postings.entries],
    ["frequent", s.frequent],
    ["tokenFeature", Int32Array.from(tokens, ([, fid]) => fid)],
    ["reasonFeature", Int32Array.from(reason, ([, fid]) => fid)],
    ["patternFeature", Int32Array.from(patterns, ([, fid]) => fid)],
  ];
  let offset = 0;
  const layout: Header["arrays"] = {};
  for (const [name, a] of arrays) {
    const kind: ArrayKind = a instanceof Int32Array ? "i32" : a instanceof Int8Array ? "i8" : "u8";
    layout[name] = [offset, a.length, kind];
    offset += align8(a.byteLength);
  }
  const header: Header = {
    fingerprint: core.fingerprint,
    slotCount: n,
    free: s.free,
    slotIds: s.slotIds.slice(0, n),
    slotName: s.slotName.slice(0, n),
    tokens: tokens.map(([t]) => t),
    reason: reason.map(([t]) => t),
    patterns: patterns.map(([p]) => p),
    arrays: layout,
  };
  const head = new TextEncoder().encode(JSON.stringify(header));
  const body = 16 + align8(head.length);
  const out = new Uint8Array(body + offset);
  const view = new DataView(out.buffer);
  view.setUint32(0, MAGIC, true);
  view.setUint32(4, FORMAT, true);
  view.setUint32(8, head.length, true);
  out.set(head, 16);
  for (const [name, a] of arrays)
    out.set(new Uint8Array(a.buffer, a.byteOffset, a.byteLength), body + layout[name]![0]);
  return out;
}

/**
 * Reads a core written by {@link encodeCore}; it becomes the newest version of a new family.
 * The typed arrays are views of `bytes`, which must not change afterwards.
 * @throws Error when the bytes are not a serialised core of this format.
 */
export function decodeCore(bytes: Uint8Array): ScoringCore {
  if (bytes.byteOffset % 8 !== 0) bytes = bytes.slice();
  const view = new DataView(bytes.buffer, bytes.byteOffset, bytes.byteLength);
  if (bytes.length < 16 || view.getUint32(0, true) !== MAGIC)
    throw new Error("not a serialised injection core");
  if (view.getUint32(4, true) !== FORMAT) throw new Error("unknown injection core format");
  const headLen = view.getUint32(8, true);
  const header = JSON.parse(new TextDecoder().decode(bytes.subarray(16, 16 + headLen))) as Header;
  const body = bytes.byteOffset + 16 + align8(headLen);
  const arr = <T extends Typed>(name: string): T => {
    const entry = header.arrays[name];
    if (!entry) throw new Error(`serialised injection core lacks ${name}`);
    const [offset, length, kind] = entry;
    const Ctor = kind === "i32" ? Int32Array : kind === "i8" ? Int8Array : Uint8Array;
    if (body + offset + length * Ctor.BYTES_PER_ELEMENT > bytes.byteOffset + bytes.byteLength)
      throw new Error("serialised injection core is truncated");
    return new Ctor(bytes.buffer as ArrayBuffer, body + offset, length) as T;
  };
  const tokenFeature = arr<Int32Array>("tokenFeature");
  const tokens = new TokenTable(new Map(), header.tokens.length);
  header.tokens.forEach((t, i) => {
    tokens.add(t, tokenFeature[i]!);
  });
  const reasonFeature = arr<Int32Array>("reasonFeature");
  const patternFeature = arr<Int32Array>("patternFeature");
  const main = new SubstringTable(header.patterns.length);
  for (const p of header.patterns) main.add(p);
  const featLen = arr<Int32Array>("featLen");
  const postings = arr<Int32Array>("postingEntries");
  const freq = arr<Int32Array>("freqEntries");
  const n = header.slotCount;
  const state: CoreState = {
    shared: {
      tokens,
      reason: new Map(header.reason.map((t, i) => [t, reasonFeature[i]!])),
      patterns: new Map(header.patterns.map((p, i) => [p, patternFeature[i]!])),
      main,
      mainPatterns: header.patterns,
      mainFeature: patternFeature,
      extra: new SubstringTable(),
      extraFeature: [],
      scratch: newScratch(n),
    },
    featureCount: featLen.length,
    featStart: arr<Int32Array>("featStart"),
    featLen,
    featFrequent: arr<Uint8Array>("featFrequent"),
    postings: { entries: postings, used: postings.length },
    livePostings: postings.length,
    frequent: arr<Int32Array>("frequent"),
    slotCount: n,
    free: header.free,
    slotIds: header.slotIds,
    slotName: header.slotName,
    slotInstall: arr<Int32Array>("slotInstall"),
    staticScore: arr<Int32Array>("staticScore"),
    tieRank: arr<Int32Array>("tieRank"),
    tieOrder: arr<Int32Array>("tieOrder"),
    hints: Object.fromEntries(PROVIDERS.map((p) => [p, arr<Int8Array>(`hints.${p}`)])) as Record<
      RequestProvider,
      Int8Array
    >,
    freqStart: arr<Int32Array>("freqStart"),
    freqEnd: arr<Int32Array>("freqEnd"),
    freq: { entries: freq, used: freq.length },
    extraCount: 0,
  };
  markHead(state);
  return new ScoringCore(state, header.fingerprint);
}
