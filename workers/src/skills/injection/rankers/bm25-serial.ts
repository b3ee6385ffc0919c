/**
 * Serialised `bm25` cores (docs/scoring.md#keeping-the-index-current): written to the KV-style
 * cache by the instance that built or updated a core and loaded by a cold instance instead of
 * analysing every skill again. The bytes are a magic number, a format number and the length of a
 * JSON header (strings: the fingerprint key, slot ids and names, terms; where each array lies),
 * the header, then the int32 arrays, each 8-byte aligned, read back as views without copying.
 */

import { Bm25Core } from "./bm25-core.js";
import { FIELD_COUNT } from "./bm25-fields.js";
import type { Bm25State, Posting } from "./bm25-state.js";

const MAGIC = 0x35324d42; // "BM25" little-endian
const FORMAT = 2;

interface Header {
  key: string;
  slotIds: (string | null)[];
  slotName: string[];
  terms: string[];
  free: number[];
  n: number;
  totals: number[];
  arrays: Record<string, [offset: number, length: number]>;
}

const align8 = (n: number) => (n + 7) & ~7;

/** The bytes of `core`. */
export function encodeBm25(core: Bm25Core): Uint8Array {
  const s: Bm25State = core.state;
  const termCount = s.post.length;
  const postStart = new Int32Array(termCount + 1);
  let total = 0;
  for (let t = 0; t < termCount; t++) {
    postStart[t] = total;
    total += s.post[t]?.slots.length ?? 0;
  }
  postStart[termCount] = total;
  const postSlots = new Int32Array(total);
  const postTfs = new Int32Array(total);
  for (let t = 0; t < termCount; t++) {
    const p = s.post[t];
    if (!p) continue;
    postSlots.set(p.slots, postStart[t]!);
    postTfs.set(p.tfs, postStart[t]!);
  }
  const slots = s.slotIds.length;
  const nameStart = new Int32Array(slots + 1);
  let names = 0;
  for (let i = 0; i < slots; i++) {
    nameStart[i] = names;
    names += s.nameTerms[i]?.length ?? 0;
  }
  nameStart[slots] = names;
  const nameIds = new Int32Array(names);
  for (let i = 0; i < slots; i++) {
    const l = s.nameTerms[i];
    if (l) nameIds.set(l, nameStart[i]!);
  }
  const fwdStart = new Int32Array(slots + 1);
  let fwd = 0;
  for (let i = 0; i < slots; i++) {
    fwdStart[i] = fwd;
    fwd += s.fwdTerms[i]?.length ?? 0;
  }
  fwdStart[slots] = fwd;
  const fwdTerms = new Int32Array(fwd);
  const fwdTfs = new Int32Array(fwd);
  for (let i = 0; i < slots; i++) {
    const t = s.fwdTerms[i];
    if (!t) continue;
    fwdTerms.set(t, fwdStart[i]!);
    fwdTfs.set(s.fwdTfs[i]!, fwdStart[i]!);
  }
  const arrays: Record<string, Int32Array> = {
    lens: s.lens,
    installs: Int32Array.from(s.slotInstalls),
    postStart,
    postSlots,
    postTfs,
    nameStart,
    nameIds,
    fwdStart,
    fwdTerms,
    fwdTfs,
  };
  const layout: Header["arrays"] = {};
  let offset = 0;
  for (const [name, a] of Object.entries(arrays)) {
    layout[name] = [offset, a.length];
    offset = align8(offset + a.byteLength);
  }
  const header: Header = {
    key: s.key,
    slotIds: s.slotIds,
    slotName: s.slotName,
    terms: s.terms.slice(0, termCount),
    free: s.free,
    n: s.n,
    totals: s.totals,
    arrays: layout,
  };
  const json = new TextEncoder().encode(JSON.stringify(header));
  const base = align8(12 + json.length);
  const out = new Uint8Array(base + offset);
  const view = new DataView(out.buffer);
  view.setUint32(0, MAGIC, true);
  view.setUint32(4, FORMAT, true);
  view.setUint32(8, json.length, true);
  out.set(json, 12);
  for (const [name, a] of Object.entries(arrays)) {
    out.set(new Uint8Array(a.buffer, a.byteOffset, a.byteLength), base + layout[name]![0]);
  }
  return out;
}

/**
 * The core stored in `bytes`.
 * @throws Error when the bytes are not a serialised core of this format.
 */
export function decodeBm25(bytes: Uint8Array): Bm25Core {
  if (bytes.byteLength < 12) throw new Error("serialised bm25 core: too short");
  const view = new DataView(bytes.buffer, bytes.byteOffset, bytes.byteLength);
  if (view.getUint32(0, true) !== MAGIC || view.getUint32(4, true) !== FORMAT) {
    throw new Error("serialised bm25 core: unknown format");
  }
  const jsonLength = view.getUint32(8, true);
  const header = JSON.parse(
    new TextDecoder().decode(bytes.subarray(12, 12 + jsonLength)),
  ) as Header;
  const base = align8(12 + jsonLength);
  // Views need 4-byte alignment of the underlying buffer; copy once when it is not aligned.
  const aligned = (bytes.byteOffset + base) % 4 === 0 ? bytes : bytes.slice();
  const arr = (name: string): Int32Array => {
    const entry = header.arrays[name];
    if (!entry) throw new Error(`serialised bm25 core: no array ${name}`);
    const [offset, length] = entry;
    const start = aligned.byteOffset + base + offset;
    if (base + offset + length * 4 > aligned.byteLength) {
      throw new Error(`serialised bm25 core: array ${name} out of range`);
    }
    return new Int32Array(aligned.buffer, start, length);
  };
  const postStart = arr("postStart");
  const postSlots = arr("postSlots");
  const postTfs = arr("postTfs");
  const nameStart = arr("nameStart");
  const nameIds = arr("nameIds");
  const post: (Posting | undefined)[] = [];
  for (let t = 0; t < header.terms.length; t++) {
    const a = postStart[t]!;
    const b = postStart[t + 1]!;
    post.push(b > a ? { slots: postSlots.subarray(a, b), tfs: postTfs.subarray(a, b) } : undefined);
  }
  const slots = header.slotIds.length;
  const fwdStart = arr("fwdStart");
  const fwdTermsAll = arr("fwdTerms");
  const fwdTfsAll = arr("fwdTfs");
  const nameTerms: (Int32Array | undefined)[] = [];
  const fwdTerms: (Int32Array | undefined)[] = [];
  const fwdTfs: (Int32Array | undefined)[] = [];
  for (let i = 0; i < slots; i++) {
    const live = header.slotIds[i] !== null;
    nameTerms.push(live ? nameIds.subarray(nameStart[i]!, nameStart[i + 1]!) : undefined);
    fwdTerms.push(live ? fwdTermsAll.subarray(fwdStart[i]!, fwdStart[i + 1]!) : undefined);
    fwdTfs.push(live ? fwdTfsAll.subarray(fwdStart[i]!, fwdStart[i + 1]!) : undefined);
  }
  const lens = arr("lens");
  if (lens.length !== slots * FIELD_COUNT) throw new Error("serialised bm25 core: bad lengths");
  const state: Bm25State = {
    key: header.key,
    dict: new Map(header.terms.map((t, i) => [t, i])),
    terms: header.terms,
    post,
    slotIds: header.slotIds,
    slotName: header.slotName,
    slotInstalls: Array.from(arr("installs")),
    nameTerms,
    fwdTerms,
    fwdTfs,
    lens: lens.slice(),
    free: header.free,
    n: header.n,
    totals: header.totals,
  };
  return new Bm25Core(state);
}
