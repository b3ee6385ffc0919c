/**
 * A concurrent availability probe for hostile-input tests: while a hostile request, upstream or
 * skill is in flight, `GET /api/health` is asked again and again over real HTTP, and the slowest
 * answer and the largest heap seen are recorded. The app under test runs in this process
 * (test/support/app.ts), so a blocked event loop delays the probe's answers, and the heap measured
 * here is the API's heap.
 */

/** What a probe saw between its start and its stop. */
export interface ProbeReport {
  /** Answers received. */
  answers: number;
  /** The slowest answer, in milliseconds (request sent → body read). */
  slowestMs: number;
  /** Statuses other than 200 seen, in order. */
  failures: number[];
  /** Heap used when the probe started and the largest seen while it ran, in bytes. */
  heapAtStart: number;
  heapPeak: number;
}

/** A running probe; {@link HealthProbe.stop} ends it and returns what it saw. */
export interface HealthProbe {
  stop(): Promise<ProbeReport>;
}

/**
 * Starts probing `${baseUrl}/api/health` every `intervalMs` milliseconds (default 20), one request
 * at a time.
 * @param baseUrl the app's URL (`http://127.0.0.1:<port>`).
 */
export function startHealthProbe(baseUrl: string, intervalMs = 20): HealthProbe {
  const report: ProbeReport = {
    answers: 0,
    slowestMs: 0,
    failures: [],
    heapAtStart: process.memoryUsage().heapUsed,
    heapPeak: 0,
  };
  report.heapPeak = report.heapAtStart;
  let stopped = false;
  const loop = (async () => {
    while (!stopped) {
      const t0 = performance.now();
      try {
        const res = await fetch(`${baseUrl}/api/health`);
        await res.arrayBuffer();
        if (res.status !== 200) report.failures.push(res.status);
      } catch {
        report.failures.push(0);
      }
      report.answers += 1;
      report.slowestMs = Math.max(report.slowestMs, performance.now() - t0);
      report.heapPeak = Math.max(report.heapPeak, process.memoryUsage().heapUsed);
      await new Promise((r) => setTimeout(r, intervalMs));
    }
  })();
  return {
    async stop() {
      stopped = true;
      await loop;
      return report;
    },
  };
}
