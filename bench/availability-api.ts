/**
 * The API process of the availability benchmark (bench/availability.ts): starts the real API
 * (`startBenchApi`) with the environment it is given, installs the skills the benchmark's hostile
 * inputs use, prints one JSON line `{ "url": … }` on stdout, and runs until its stdin closes. It
 * runs alone in its process so that the benchmark's clients, upstream and probe do not share its
 * event loop.
 */
import { BENCH_TOKEN, startBenchApi } from "./api.js";

async function main(): Promise<void> {
  const upstream = process.env.UPSTREAM_OPENAI_BASE_URL;
  const api = await startBenchApi(upstream ? { UPSTREAM_OPENAI_BASE_URL: upstream } : {});
  // A schema pattern that is exponential for a backtracking engine.
  await api.post("/api/skills/install", {
    name: "evil-pattern",
    version: "1.0.0",
    handlerCode: "echo-handler",
    schema: {
      input: { type: "object", properties: { s: { type: "string", pattern: "^(a+)+$" } } },
    },
  });
  const key = await fetch(`${api.url}/api/keys`, {
    method: "POST",
    headers: { authorization: `Bearer ${BENCH_TOKEN}`, "content-type": "application/json" },
    body: JSON.stringify({ name: "availability-bench" }),
  }).then((r) => r.json());
  process.stdout.write(`${JSON.stringify({ url: api.url, key: key.key })}\n`);
  process.stdin.resume();
  process.stdin.on("end", () => {
    api.close();
    process.exit(0);
  });
}

main().catch((err) => {
  console.error(err);
  process.exit(1);
});
