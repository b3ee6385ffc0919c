/**
 * Server-rendered SVG charts (docs/dashboard.md#charts): executions per hour by status as stacked
 * bars, and per skill the median and p95 duration as paired bars with the error rate beside them.
 * Each chart has a text title and per-mark `<title>` tooltips; no scripts, no external assets.
 */
import type { FC } from "hono/jsx";
import type { HourlyBucket, SkillStat } from "../services/operator.js";
import type { ExecutionStatus } from "../skills/types.js";

const COLORS: Record<ExecutionStatus, string> = {
  success: "#2f9e5f",
  error: "#d64535",
  timeout: "#e08a1e",
  running: "#5b7fe0",
  pending: "#a0a8b8",
};
const ORDER: ExecutionStatus[] = ["success", "error", "timeout", "running", "pending"];

/**
 * A round upper bound of a scale at or above `v` (1, 2, 2.5 or 5 times a power of ten); 1 for an
 * empty scale. For durations (ms), where fractions of a tick are fine.
 */
export function niceMax(v: number): number {
  if (!(v > 0)) return 1;
  const p = 10 ** Math.floor(Math.log10(v));
  for (const m of [1, 2, 2.5, 5, 10]) if (m * p >= v) return m * p;
  return 10 * p;
}

/**
 * The y-axis ticks of a count scale (docs/dashboard.md#charts): whole numbers only, evenly spaced
 * from 0, distinct, the last one at or above `max`. An empty scale (max 0) gives 0 and 1; small
 * counts get one tick per unit (max 3 → 0, 1, 2, 3); larger ones a round step (1, 2 or 5 times a
 * power of ten) with at most five intervals.
 */
export function countTicks(max: number): number[] {
  const top = Math.max(1, Math.ceil(max));
  if (top <= 4) return Array.from({ length: top + 1 }, (_, i) => i);
  let step = 1;
  for (let p = 1; ; p *= 10) {
    const m = [1, 2, 5].find((k) => top / (k * p) <= 5);
    if (m !== undefined) {
      step = m * p;
      break;
    }
  }
  const n = Math.ceil(top / step);
  return Array.from({ length: n + 1 }, (_, i) => i * step);
}

/** Stacked bars: executions per hour by status, oldest hour on the left. */
export const HourlyChart: FC<{ buckets: HourlyBucket[] }> = ({ buckets }) => {
  const W = 720;
  const H = 220;
  const left = 40;
  const bottom = 24;
  const top = 10;
  const totals = buckets.map((b) => ORDER.reduce((n, s) => n + b.counts[s], 0));
  const ticks = countTicks(Math.max(0, ...totals));
  const max = ticks[ticks.length - 1] ?? 1;
  const plotH = H - top - bottom;
  const bw = (W - left - 10) / Math.max(buckets.length, 1);
  const y = (v: number) => top + plotH - (v / max) * plotH;
  return (
    <figure style="margin:0">
      <svg
        viewBox={`0 0 ${W} ${H}`}
        width="100%"
        role="img"
        aria-labelledby="hourly-title"
        data-chart="hourly"
      >
        <title id="hourly-title">Executions per hour by status, last 24 hours</title>
        {ticks.map((v) => (
          <g data-tick={String(v)}>
            <line x1={left} x2={W - 10} y1={y(v)} y2={y(v)} stroke="#e5e8ee" />
            <text x={left - 6} y={y(v) + 4} text-anchor="end" font-size="10" fill="#5b6475">
              {String(v)}
            </text>
          </g>
        ))}
        {totals.every((n) => n === 0) ? (
          <text
            x={(W + left) / 2}
            y={top + plotH / 2}
            text-anchor="middle"
            font-size="13"
            fill="#5b6475"
          >
            No executions in the last 24 hours
          </text>
        ) : null}
        {buckets.map((b, i) => {
          let acc = 0;
          const x = left + i * bw + 1;
          const hour = new Date(b.hourStart).toISOString().slice(11, 16);
          return (
            <g>
              {ORDER.filter((s) => b.counts[s] > 0).map((s) => {
                const y0 = y(acc);
                acc += b.counts[s];
                return (
                  <rect
                    x={x}
                    y={y(acc)}
                    width={Math.max(bw - 2, 1)}
                    height={Math.max(y0 - y(acc), 0)}
                    fill={COLORS[s]}
                    data-status={s}
                    data-count={String(b.counts[s])}
                  >
                    <title>{`${hour} UTC · ${s}: ${b.counts[s]}`}</title>
                  </rect>
                );
              })}
              {i % 3 === 0 ? (
                <text x={x + bw / 2} y={H - 8} text-anchor="middle" font-size="10" fill="#5b6475">
                  {hour}
                </text>
              ) : null}
            </g>
          );
        })}
      </svg>
      <figcaption class="muted" style="display:flex;flex-wrap:wrap;gap:4px 14px;font-size:12px">
        {ORDER.map((s) => (
          <span>
            <svg width="10" height="10" aria-hidden="true">
              <rect width="10" height="10" fill={COLORS[s]} />
            </svg>{" "}
            {s}
          </span>
        ))}
        <span style="margin-left:auto">hours in UTC</span>
      </figcaption>
    </figure>
  );
};

/** Paired horizontal bars per skill: median and p95 duration (ms), with the error rate. */
export const SkillDurationChart: FC<{ stats: SkillStat[] }> = ({ stats }) => {
  const W = 720;
  const rowH = 34;
  const left = 170;
  const right = 130;
  const H = stats.length * rowH + 20;
  const max = niceMax(Math.max(0, ...stats.map((s) => s.p95Ms)));
  const x = (v: number) => (v / max) * (W - left - right);
  return (
    <figure style="margin:0">
      <svg
        viewBox={`0 0 ${W} ${H}`}
        width="100%"
        role="img"
        aria-labelledby="skills-title"
        data-chart="skills"
      >
        <title id="skills-title">
          Median and p95 duration and error rate per skill, last 24 hours
        </title>
        {stats.map((s, i) => {
          const y0 = 10 + i * rowH;
          return (
            <g data-skill={s.skillName}>
              <text x={left - 8} y={y0 + 16} text-anchor="end" font-size="12" fill="#1d2330">
                {s.skillName.length > 24 ? `${s.skillName.slice(0, 23)}…` : s.skillName}
              </text>
              <rect x={left} y={y0 + 2} width={Math.max(x(s.p95Ms), 1)} height="12" fill="#b8c7f2">
                <title>{`${s.skillName} p95 ${s.p95Ms} ms`}</title>
              </rect>
              <rect
                x={left}
                y={y0 + 14}
                width={Math.max(x(s.medianMs), 1)}
                height="10"
                fill="#2f5bd3"
              >
                <title>{`${s.skillName} median ${s.medianMs} ms`}</title>
              </rect>
              <text x={W - right + 8} y={y0 + 16} font-size="11" fill="#5b6475">
                {`${s.medianMs}/${s.p95Ms} ms · ${(s.errorRate * 100).toFixed(1)}% err`}
              </text>
            </g>
          );
        })}
      </svg>
      <figcaption class="muted" style="font-size:12px">
        Dark bar: median duration; light bar: p95 duration (scale 0–{max} ms); text: median/p95 and
        error rate (errors and timeouts over finished executions).
      </figcaption>
    </figure>
  );
};
