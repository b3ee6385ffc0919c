/**
 * Text analysis of the `bm25` ranker (docs/scoring.md#the-bm25-ranker): turns a skill's fields
 * and a request's context into terms.
 *
 * 1. Words are maximal runs of Unicode letters and digits, lowercased: `_`, `-`, `.`, `/` and
 *    every other character separate them.
 * 2. A word with camelCase boundaries also gives its parts (`issueSearch` → `issuesearch`,
 *    `issue`, `search`; `HTTPServer` → `httpserver`, `http`, `server`), so that `GitHub` in one
 *    text matches `github` in another and `issueSearch` matches `issue search`.
 * 3. A run of Han, Hiragana or Katakana characters (scripts written without spaces) becomes its
 *    overlapping character bigrams (a one-character run stays as it is), as CJK analysers of
 *    full-text engines do.
 * 4. English stop-words (the `stopword` package's list) and one-character words are dropped.
 * 5. Other words are stemmed with the Porter stemmer (the `stemmer` package); a stem is memoised
 *    in a bounded table.
 *
 * The same function analyses skills and requests, so a term of one matches the other exactly.
 * The work is linear in the text's length.
 */
import { stemmer } from "stemmer";
import { eng } from "stopword";

const STOP_WORDS: ReadonlySet<string> = new Set(eng);

/** Most stems kept in the memo table before it is emptied. */
const STEM_MEMO_MAX = 50_000;
const stems = new Map<string, string>();

/** The Porter stem of a lowercased word, memoised. */
function stemOf(word: string): string {
  let s = stems.get(word);
  if (s === undefined) {
    if (stems.size >= STEM_MEMO_MAX) stems.clear();
    s = /^[a-z]+$/.test(word) ? stemmer(word) : word;
    stems.set(word, s);
  }
  return s;
}

const CAMEL_LOWER_UPPER = /(\p{Ll}|\p{N})(\p{Lu})/gu;
const CAMEL_ACRONYM = /(\p{Lu}+)(\p{Lu}\p{Ll})/gu;
const HAS_CAMEL = /\p{Ll}\p{Lu}|\p{N}\p{Lu}|\p{Lu}\p{Lu}\p{Ll}/u;
const WORD = /[\p{L}\p{N}]+/gu;
const CJK = /[\p{Script=Han}\p{Script=Hiragana}\p{Script=Katakana}]/u;
const CJK_RUN =
  /[\p{Script=Han}\p{Script=Hiragana}\p{Script=Katakana}]+|[^\p{Script=Han}\p{Script=Hiragana}\p{Script=Katakana}]+/gu;

/**
 * Calls `emit` with each term of `text`, in text order (duplicates included).
 * @param text any text: a skill name, description, property name, or a request's context.
 */
export function forEachTerm(text: string, emit: (term: string) => void): void {
  // Most texts hold no Han or kana at all: then no word needs the per-word test.
  const cjk = CJK.test(text);
  for (const m of text.matchAll(WORD)) {
    const raw = m[0];
    const word = raw.toLowerCase();
    if (word !== raw && HAS_CAMEL.test(raw)) {
      wordTerm(word, emit);
      const split = raw.replace(CAMEL_LOWER_UPPER, "$1 $2").replace(CAMEL_ACRONYM, "$1 $2");
      for (const part of split.toLowerCase().split(" ")) wordTerm(part, emit);
    } else if (cjk && CJK.test(word)) {
      for (const part of word.match(CJK_RUN) ?? []) {
        if (!CJK.test(part)) wordTerm(part, emit);
        else if (part.length === 1) emit(part);
        else for (let i = 0; i + 1 < part.length; i++) emit(part.slice(i, i + 2));
      }
    } else wordTerm(word, emit);
  }
}

function wordTerm(word: string, emit: (term: string) => void): void {
  if (word.length < 2 || STOP_WORDS.has(word)) return;
  emit(stemOf(word));
}

/** The terms of `text` in text order (see {@link forEachTerm}). */
export function analyse(text: string): string[] {
  const out: string[] = [];
  forEachTerm(text, (t) => out.push(t));
  return out;
}
