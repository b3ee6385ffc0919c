import { readFileSync } from "node:fs";
import {
  BM25_PARAMS,
  Bm25Core,
  type Bm25Params,
} from "../workers/src/skills/injection/rankers/bm25-core.js";
import { bm25Query } from "../workers/src/skills/injection/rankers/bm25-query.js";
import { OFF_TOPIC, setSkills } from "./selection.js";

const sets = [
  "/work/shared/bench-data/bfcl-selection.json",
  "bench/selection-sets/product-tools.json",
].map((p) => JSON.parse(readFileSync(p, "utf8")));
function evalSet(set: any, params: Bm25Params) {
  const skills = setSkills(set);
  const core = Bm25Core.build(skills, "k", params);
  const pick = (q: string) => core.top(bm25Query(q), 5, () => true).map((h) => skills[h.id]!.name);
  let ones = 0,
    t1 = 0,
    t5 = 0,
    twos = 0,
    both = 0,
    offn = 0,
    off = 0;
  for (const c of set.cases) {
    const g = pick(c.query);
    if (!c.tools.length) {
      offn++;
      off += g.length;
    } else if (c.tools.length === 1) {
      ones++;
      if (g[0] === c.tools[0]) t1++;
      if (g.includes(c.tools[0])) t5++;
    } else if (c.tools.length === 2) {
      twos++;
      if (c.tools.every((t: string) => g.includes(t))) both++;
    }
  }
  for (const q of OFF_TOPIC) {
    offn++;
    off += pick(q).length;
  }
  return `r5 ${((100 * t5) / ones).toFixed(1)} r1 ${((100 * t1) / ones).toFixed(1)} two ${((100 * both) / twos).toFixed(1)} off ${(off / offn).toFixed(2)}`;
}
const variants: [string, Partial<Bm25Params>][] = JSON.parse(process.argv[2] ?? "[]");
for (const [label, v] of [["base", {}] as [string, Partial<Bm25Params>], ...variants]) {
  const p = { ...BM25_PARAMS, ...v };
  console.log(label.padEnd(28), sets.map((s) => evalSet(s, p)).join("  |  "));
}
