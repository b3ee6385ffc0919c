/**
 * Reads the Prometheus text exposition format (Prometheus docs, "Exposition formats") in tests:
 * sample lines `name{label="value",...} value`, comments skipped.
 */

/** One sample of a scrape. */
export interface PromSample {
  name: string;
  labels: Record<string, string>;
  value: number;
}

/** Parses every sample line of `text`. */
export function parsePrometheus(text: string): PromSample[] {
  const samples: PromSample[] = [];
  for (const line of text.split("\n")) {
    if (!line || line.startsWith("#")) continue;
    const m = line.match(/^([a-zA-Z_:][a-zA-Z0-9_:]*)(?:\{(.*)\})?\s+(\S+)/);
    if (!m) throw new Error(`not a sample line: ${line}`);
    const labels: Record<string, string> = {};
    for (const l of (m[2] ?? "").matchAll(/([a-zA-Z_][a-zA-Z0-9_]*)="((?:[^"\\]|\\.)*)"/g))
      labels[l[1]!] = l[2]!.replace(/\\(.)/g, (_, c: string) => (c === "n" ? "\n" : c));
    samples.push({ name: m[1]!, labels, value: Number(m[3]) });
  }
  return samples;
}

/**
 * The value of the one sample named `name` whose labels include `labels`, or undefined when
 * none matches. @throws Error when several match.
 */
export function sampleValue(
  samples: PromSample[],
  name: string,
  labels: Record<string, string> = {},
): number | undefined {
  const found = samples.filter(
    (s) => s.name === name && Object.entries(labels).every(([k, v]) => s.labels[k] === v),
  );
  if (found.length > 1)
    throw new Error(`${found.length} samples of ${name} match ${JSON.stringify(labels)}`);
  return found[0]?.value;
}
