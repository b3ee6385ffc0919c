/**
 * Overview (charts) and execution pages (docs/dashboard.md#pages): filters, pagination,
 * the detail of one execution, and approve / reject of pending hybrid executions.
 */
import { Hono } from "hono";
import type { FC } from "hono/jsx";
import type { Principal } from "../auth/principal.js";
import { hasScope } from "../auth/scopes.js";
import type { OperatorExecutionFilter } from "../services/operator.js";
import type { Execution, ExecutionStatus } from "../skills/types.js";
import { HourlyChart, SkillDurationChart } from "./charts.js";
import { type DashContext, type DashEnv, formOf, pageProps, redirectWith } from "./env.js";
import { AttemptsTable, NotificationsTable } from "./execution-history.js";
import { Badge, Csrf, Empty, Input, KeyRef, Page, Pager, Select, when } from "./layout.js";

const STATUSES: ExecutionStatus[] = ["pending", "running", "success", "error", "timeout"];
const PAGE_SIZE = 25;

/** Approve / reject buttons of a pending hybrid execution; none without the `execute` scope. */
const Decide: FC<{ e: Execution; csrf: string; back: string; principal: Principal }> = ({
  e,
  csrf,
  back,
  principal,
}) =>
  e.status === "pending" && e.approval === "required" && hasScope(principal, "execute") ? (
    <span style="display:inline-flex;gap:6px">
      <form method="post" action={`/dashboard/executions/${e.id}/approve`} class="inline">
        <Csrf token={csrf} />
        <input type="hidden" name="back" value={back} />
        <button type="submit" aria-label={`Approve execution ${e.id}`}>
          Approve
        </button>
      </form>
      <form method="post" action={`/dashboard/executions/${e.id}/reject`} class="inline">
        <Csrf token={csrf} />
        <input type="hidden" name="back" value={back} />
        <button type="submit" class="danger" aria-label={`Reject execution ${e.id}`}>
          Reject
        </button>
      </form>
    </span>
  ) : null;

function parseTime(v: string | undefined): number | undefined {
  if (!v) return undefined;
  const t = Date.parse(/[zZ]|[+-]\d\d:\d\d$/.test(v) ? v : `${v}Z`);
  return Number.isNaN(t) ? undefined : t;
}

function filterOf(c: DashContext, principal: Principal): OperatorExecutionFilter {
  const q = (k: string) => c.req.query(k)?.trim() || undefined;
  const status = q("status");
  return {
    status: STATUSES.includes(status as ExecutionStatus) ? (status as ExecutionStatus) : undefined,
    skill: q("skill"),
    sessionId: q("sessionId"),
    apiKeyId: principal.kind === "management" ? q("apiKeyId") : undefined,
    since: parseTime(q("since")),
    until: parseTime(q("until")),
  };
}

function json(v: unknown): string {
  return typeof v === "string" ? v : JSON.stringify(v, null, 2);
}

/** Output shown for reading: sandbox results keep stdout / stderr as text of their own. */
const OutputView: FC<{ output: unknown }> = ({ output }) => {
  if (output && typeof output === "object" && !Array.isArray(output)) {
    const o = output as Record<string, unknown>;
    if (typeof o.stdout === "string" || typeof o.stderr === "string") {
      const rest = Object.fromEntries(
        Object.entries(o).filter(([k]) => k !== "stdout" && k !== "stderr"),
      );
      return (
        <div>
          <h3>stdout</h3>
          <pre data-field="stdout">{String(o.stdout ?? "")}</pre>
          <h3>stderr</h3>
          <pre data-field="stderr">{String(o.stderr ?? "")}</pre>
          <h3>other fields</h3>
          <pre>{json(rest)}</pre>
        </div>
      );
    }
  }
  return (
    <pre data-field="output">
      {output === null || output === undefined ? "(none)" : json(output)}
    </pre>
  );
};

/** Builds the overview and execution routes. */
export function executionPages(): Hono<DashEnv> {
  const app = new Hono<DashEnv>();

  app.get("/", async (c) => {
    const { operator } = c.get("services");
    const principal = c.get("session").principal;
    const now = operator.now();
    const [{ hourly, perSkill }, pending] = await Promise.all([
      operator.charts(principal, now),
      operator.executions(principal, { status: "pending", approval: "required" }, 1, 5),
    ]);
    const total = hourly.reduce(
      (n, b) => n + Object.values(b.counts).reduce((a, x) => a + x, 0),
      0,
    );
    return c.html(
      <Page title="Overview" {...pageProps(c, "/dashboard")}>
        <h1>Overview</h1>
        {pending.total > 0 ? (
          <div class="flash err" role="status">
            {pending.total} execution{pending.total === 1 ? "" : "s"} awaiting approval ·{" "}
            <a href="/dashboard/executions?status=pending">review</a>
          </div>
        ) : null}
        <div class="card">
          <h2 style="margin-top:0">Executions per hour ({total} in the last 24 hours)</h2>
          <HourlyChart buckets={hourly} />
        </div>
        <div class="card">
          <h2 style="margin-top:0">Duration and errors per skill (last 24 hours)</h2>
          {perSkill.length ? (
            <SkillDurationChart stats={perSkill} />
          ) : (
            <Empty>No finished executions in the last 24 hours.</Empty>
          )}
        </div>
      </Page>,
    );
  });

  app.get("/executions", async (c) => {
    const { operator } = c.get("services");
    const session = c.get("session");
    const principal = session.principal;
    const page = Math.max(1, Number.parseInt(c.req.query("page") ?? "1", 10) || 1);
    const filter = filterOf(c, principal);
    const result = await operator.executions(principal, filter, page, PAGE_SIZE);
    const names = await c.get("services").keys.namesOf(result.data.map((e) => e.apiKeyId));
    const query = new URL(c.req.url).searchParams;
    query.delete("ok");
    query.delete("err");
    const back = `/dashboard/executions?${query.toString()}`;
    return c.html(
      <Page title="Executions" {...pageProps(c, "/dashboard/executions")}>
        <h1>Executions</h1>
        <form method="get" class="filters" aria-label="Filter executions">
          <Select name="status" label="Status" value={filter.status} options={STATUSES} any />
          <Input name="skill" label="Skill (name or name@version)" value={c.req.query("skill")} />
          {principal.kind === "management" ? (
            <Input name="apiKeyId" label="API key id" value={c.req.query("apiKeyId")} />
          ) : null}
          <Input name="sessionId" label="Session" value={c.req.query("sessionId")} />
          <Input
            name="since"
            label="From (UTC)"
            type="datetime-local"
            value={c.req.query("since")}
          />
          <Input name="until" label="To (UTC)" type="datetime-local" value={c.req.query("until")} />
          <button type="submit">Filter</button>
        </form>
        {result.data.length === 0 ? (
          <Empty>No executions match these filters.</Empty>
        ) : (
          <div class="scroll">
            <table>
              <thead>
                <tr>
                  <th>Started (UTC)</th>
                  <th>Skill</th>
                  <th>Status</th>
                  <th class="num">Duration</th>
                  <th class="num">Attempts</th>
                  <th>Key</th>
                  <th>Actions</th>
                </tr>
              </thead>
              <tbody>
                {result.data.map((e) => (
                  <tr data-execution={e.id}>
                    <td>
                      <a href={`/dashboard/executions/${e.id}`}>{when(e.createdAt)}</a>
                    </td>
                    <td>
                      {e.skillName}
                      <span class="muted">@{e.version}</span>
                    </td>
                    <td>
                      <Badge value={e.status} />
                      {e.approval !== "none" ? <span class="muted"> ({e.approval})</span> : null}
                    </td>
                    <td class="num">{e.durationMs === null ? "—" : `${e.durationMs} ms`}</td>
                    <td class="num">{e.attempts}</td>
                    <td>
                      <KeyRef id={e.apiKeyId} names={names} none="management" />
                    </td>
                    <td>
                      <Decide e={e} csrf={session.csrf} back={back} principal={session.principal} />
                    </td>
                  </tr>
                ))}
              </tbody>
            </table>
          </div>
        )}
        <Pager
          base="/dashboard/executions"
          query={query}
          page={page}
          totalPages={result.totalPages}
          total={result.total}
        />
      </Page>,
    );
  });

  app.get("/executions/:id", async (c) => {
    const session = c.get("session");
    const e = await c.get("services").operator.execution(session.principal, c.req.param("id"));
    const names = await c.get("services").keys.namesOf([e.apiKeyId]);
    return c.html(
      <Page title={`Execution ${e.skillName}`} {...pageProps(c, "/dashboard/executions")}>
        <h1>
          Execution of {e.skillName}@{e.version} <Badge value={e.status} />
        </h1>
        <div class="card">
          <dl>
            <dt>Id</dt>
            <dd>
              <code>{e.id}</code>
            </dd>
            <dt>Approval</dt>
            <dd>{e.approval}</dd>
            <dt>Started</dt>
            <dd>{when(e.createdAt)} UTC</dd>
            <dt>Duration</dt>
            <dd>{e.durationMs === null ? "—" : `${e.durationMs} ms`}</dd>
            <dt>Attempts</dt>
            <dd>{e.attempts}</dd>
            <dt>API key</dt>
            <dd>
              <KeyRef id={e.apiKeyId} names={names} none="management" />
            </dd>
            <dt>Session</dt>
            <dd>{e.sessionId ?? "—"}</dd>
            <dt>Error</dt>
            <dd data-field="error">
              {e.errorCode ? `${e.errorCode}: ${e.errorMessage ?? ""}` : "—"}
            </dd>
          </dl>
          <p>
            <Decide
              e={e}
              csrf={session.csrf}
              back={`/dashboard/executions/${e.id}`}
              principal={session.principal}
            />
          </p>
        </div>
        <div class="grid2">
          <div class="card">
            <h2 style="margin-top:0">
              Input {e.inputTruncated ? <span class="badge error">truncated</span> : null}
            </h2>
            <pre data-field="input">{json(e.input)}</pre>
          </div>
          <div class="card">
            <h2 style="margin-top:0">
              Output {e.outputTruncated ? <span class="badge error">truncated</span> : null}
            </h2>
            <OutputView output={e.output} />
          </div>
        </div>
        <AttemptsTable e={e} />
        <NotificationsTable e={e} />
      </Page>,
    );
  });

  const safeBack = (v: string | undefined, id: string) =>
    v?.startsWith("/dashboard/") ? v : `/dashboard/executions/${id}`;

  app.post("/executions/:id/approve", async (c) => {
    const id = c.req.param("id");
    const back = safeBack((await formOf(c)).back, id);
    const e = await c.get("services").operator.approve(c.get("session").principal, id);
    return redirectWith(c, back, { ok: `Approved; the execution ended as ${e.status}.` });
  });

  app.post("/executions/:id/reject", async (c) => {
    const id = c.req.param("id");
    const form = await formOf(c);
    await c
      .get("services")
      .operator.reject(c.get("session").principal, id, form.reason || undefined);
    return redirectWith(c, safeBack(form.back, id), { ok: "Rejected." });
  });

  return app;
}
