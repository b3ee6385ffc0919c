/**
 * `npm run spoken-words`: writes the table of common spoken words of the `bm25` ranker
 * (scripts/spoken-words-table.ts, docs/scoring.md#the-bm25-ranker).
 */
import { writeFileSync } from "node:fs";
import { join } from "node:path";
import { fileURLToPath } from "node:url";
import { SPOKEN_WORDS_MODULE, spokenWordsModule } from "./spoken-words-table.js";

const root = fileURLToPath(new URL("..", import.meta.url));
writeFileSync(join(root, SPOKEN_WORDS_MODULE), spokenWordsModule());
console.log(`wrote ${SPOKEN_WORDS_MODULE}`);
