/**
 * Skill pages (docs/dashboard.md#pages): search and filters, versions of a name, mode and policy
 * toggles, editing, installing a custom skill with validation feedback, and deletion with a
 * confirmation step. Keys see the global skills and their own, read-only; management edits.
 */
import { Hono } from "hono";
import { requireManagement } from "../auth/principal.js";
import { InvalidInputError, NotFoundError } from "../errors.js";
import type { Skill } from "../skills/types.js";
import { type DashContext, type DashEnv, formOf, pageProps, redirectWith } from "./env.js";
import { Badge, Csrf, Empty, Input, KeyRef, Page, Pager, Select, when } from "./layout.js";
import { MODES, PAGE_SIZE, POLICIES, pick, SOURCES, Toggle } from "./skill-forms.js";
import { registerInstallPages } from "./skill-install-pages.js";

async function visibleSkill(c: DashContext, id: string): Promise<Skill> {
  const principal = c.get("session").principal;
  const skill = await c.get("services").skills.byId(id);
  if (
    !skill ||
    (principal.kind === "key" && skill.apiKeyId !== null && skill.apiKeyId !== principal.apiKeyId)
  ) {
    throw new NotFoundError(`Skill ${id} not found`, "skill_not_found");
  }
  return skill;
}

/** Builds the skill routes. */
export function skillPages(): Hono<DashEnv> {
  const app = new Hono<DashEnv>();

  app.get("/skills", async (c) => {
    const session = c.get("session");
    const principal = session.principal;
    const q = (k: string) => c.req.query(k)?.trim() || undefined;
    const page = Math.max(1, Number.parseInt(q("page") ?? "1", 10) || 1);
    const owner = principal.kind === "management" ? q("owner") : undefined;
    const result = await c.get("services").skills.list({
      q: q("q"),
      mode: pick(q("mode"), MODES),
      policy: pick(q("policy"), POLICIES),
      source: pick(q("source"), SOURCES),
      owner: owner === "global" ? null : owner,
      visibleTo: principal.kind === "key" ? principal.apiKeyId : undefined,
      page,
      limit: PAGE_SIZE,
    });
    const names = await c.get("services").keys.namesOf(result.data.map((s) => s.apiKeyId));
    const query = new URL(c.req.url).searchParams;
    query.delete("ok");
    query.delete("err");
    const mgmt = principal.kind === "management";
    return c.html(
      <Page title="Skills" {...pageProps(c, "/dashboard/skills")}>
        <h1>
          Skills{" "}
          {mgmt ? (
            <a href="/dashboard/skills/new" style="font-size:14px;margin-left:12px">
              Install a skill
            </a>
          ) : null}
        </h1>
        <form method="get" class="filters" aria-label="Filter skills">
          <Input name="q" label="Search" value={q("q")} placeholder="name, description, tag" />
          <Select name="mode" label="Mode" value={q("mode")} options={MODES} any />
          <Select name="policy" label="Policy" value={q("policy")} options={POLICIES} any />
          <Select name="source" label="Source" value={q("source")} options={SOURCES} any />
          {mgmt ? <Input name="owner" label="Owner key id (or global)" value={q("owner")} /> : null}
          <button type="submit">Filter</button>
        </form>
        {result.data.length === 0 ? (
          <Empty>
            No skills match. {mgmt ? <a href="/dashboard/skills/new">Install one</a> : null}
          </Empty>
        ) : (
          <div class="scroll">
            <table>
              <thead>
                <tr>
                  <th>Name</th>
                  <th>Version</th>
                  <th>Source</th>
                  <th>Owner</th>
                  <th>Mode</th>
                  <th>Policy</th>
                </tr>
              </thead>
              <tbody>
                {result.data.map((s) => (
                  <tr data-skill={s.name}>
                    <td>
                      <a href={`/dashboard/skills/${s.id}`}>{s.name}</a>
                      <div class="muted" style="font-size:12px">
                        {s.description.slice(0, 120)}
                      </div>
                    </td>
                    <td>{s.version}</td>
                    <td>{s.sourceProvider}</td>
                    <td>
                      <KeyRef id={s.apiKeyId} names={names} none="global" />
                    </td>
                    <td>
                      {mgmt ? (
                        <Toggle skill={s} field="mode" csrf={session.csrf} />
                      ) : (
                        <Badge value={s.mode} />
                      )}
                    </td>
                    <td>
                      {mgmt ? <Toggle skill={s} field="policy" csrf={session.csrf} /> : s.policy}
                    </td>
                  </tr>
                ))}
              </tbody>
            </table>
          </div>
        )}
        <Pager
          base="/dashboard/skills"
          query={query}
          page={page}
          totalPages={result.totalPages}
          total={result.total}
        />
      </Page>,
    );
  });

  // Before "/skills/:id", which would otherwise take "new" for an id.
  registerInstallPages(app);

  app.get("/skills/:id", async (c) => {
    const session = c.get("session");
    const skill = await visibleSkill(c, c.req.param("id"));
    const principal = session.principal;
    const versions = (
      await c.get("services").skills.list({
        q: skill.name,
        visibleTo: principal.kind === "key" ? principal.apiKeyId : undefined,
        page: 1,
        limit: 200,
      })
    ).data.filter((s) => s.name === skill.name);
    const names = await c
      .get("services")
      .keys.namesOf([skill.apiKeyId, ...versions.map((v) => v.apiKeyId)]);
    const mgmt = principal.kind === "management";
    return c.html(
      <Page title={skill.name} {...pageProps(c, "/dashboard/skills")}>
        <h1>
          {skill.name}@{skill.version} <Badge value={skill.mode} />
        </h1>
        <div class="grid2">
          <div class="card">
            <dl>
              <dt>Description</dt>
              <dd>{skill.description || "—"}</dd>
              <dt>Handler</dt>
              <dd>
                <code>{skill.handlerCode}</code>
              </dd>
              <dt>Policy</dt>
              <dd>{skill.policy}</dd>
              <dt>Source</dt>
              <dd>
                {skill.sourceProvider}
                {skill.sourceRef ? ` (${skill.sourceRef})` : ""}
              </dd>
              <dt>Owner</dt>
              <dd>
                <KeyRef id={skill.apiKeyId} names={names} none="global" />
              </dd>
              <dt>Tags</dt>
              <dd>{skill.tags.join(", ") || "—"}</dd>
              <dt>Timeout</dt>
              <dd>{skill.timeoutMs === null ? "default" : `${skill.timeoutMs} ms`}</dd>
              <dt>Updated</dt>
              <dd>{when(skill.updatedAt)} UTC</dd>
            </dl>
            {mgmt ? (
              <p style="display:flex;gap:16px;flex-wrap:wrap">
                <Toggle skill={skill} field="mode" csrf={session.csrf} />
                <Toggle skill={skill} field="policy" csrf={session.csrf} />
                <a href={`/dashboard/skills/${skill.id}/delete`}>Delete…</a>
              </p>
            ) : null}
            <h2>Versions</h2>
            <ul>
              {versions.map((v) => (
                <li>
                  <a
                    href={`/dashboard/skills/${v.id}`}
                    aria-current={v.id === skill.id ? "page" : undefined}
                  >
                    {v.version}
                  </a>{" "}
                  <span class="muted">
                    ({v.mode}, owner <KeyRef id={v.apiKeyId} names={names} none="global" />)
                  </span>
                </li>
              ))}
            </ul>
            <p>
              <a
                href={`/dashboard/executions?skill=${encodeURIComponent(`${skill.name}@${skill.version}`)}`}
              >
                Executions of this version
              </a>
            </p>
          </div>
          <div class="card">
            <h2 style="margin-top:0">Input schema</h2>
            <pre>{JSON.stringify(skill.schema.input, null, 2)}</pre>
            {mgmt ? (
              <form
                method="post"
                action={`/dashboard/skills/${skill.id}/edit`}
                aria-label="Edit skill"
              >
                <h2>Edit</h2>
                <Csrf token={session.csrf} />
                <Input name="description" label="Description" value={skill.description} />
                <Input name="tags" label="Tags (comma-separated)" value={skill.tags.join(", ")} />
                <Input
                  name="timeoutMs"
                  label="Timeout (ms, blank = default)"
                  type="number"
                  value={skill.timeoutMs === null ? "" : String(skill.timeoutMs)}
                />
                <button type="submit">Save</button>
              </form>
            ) : null}
          </div>
        </div>
      </Page>,
    );
  });

  for (const field of ["mode", "policy"] as const) {
    app.post(`/skills/:id/${field}`, async (c) => {
      requireManagement(c.get("session").principal);
      const value = (await formOf(c))[field];
      const id = c.req.param("id");
      const skill =
        field === "mode"
          ? await c.get("services").skills.update(id, { mode: pick(value, MODES) ?? "on" })
          : await c.get("services").skills.update(id, { policy: pick(value, POLICIES) ?? "auto" });
      const back = c.req.header("referer");
      const path =
        back && new URL(back).pathname === "/dashboard/skills"
          ? `/dashboard/skills${new URL(back).search.replace(/[?&](ok|err)=[^&]*/g, "")}`
          : `/dashboard/skills/${id}`;
      return redirectWith(c, path, {
        ok: `${skill.name}@${skill.version}: ${field} is now ${skill[field]}.`,
      });
    });
  }

  app.post("/skills/:id/edit", async (c) => {
    requireManagement(c.get("session").principal);
    const form = await formOf(c);
    const id = c.req.param("id");
    const timeout = form.timeoutMs?.trim();
    const timeoutMs = timeout ? Number(timeout) : null;
    if (
      timeoutMs !== null &&
      !(Number.isInteger(timeoutMs) && timeoutMs >= 1 && timeoutMs <= 600_000)
    ) {
      return redirectWith(c, `/dashboard/skills/${id}`, {
        err: "Timeout must be a whole number of ms between 1 and 600000.",
      });
    }
    try {
      // The same service and rules as `PUT /api/skills/{id}` (docs/registry.md#a-skill).
      await c.get("services").skills.update(id, {
        description: form.description ?? "",
        tags: (form.tags ?? "")
          .split(",")
          .map((t) => t.trim())
          .filter(Boolean),
        timeoutMs,
      });
    } catch (err) {
      if (err instanceof InvalidInputError) {
        return redirectWith(c, `/dashboard/skills/${id}`, { err: `Not saved: ${err.message}` });
      }
      throw err;
    }
    return redirectWith(c, `/dashboard/skills/${id}`, { ok: "Saved." });
  });

  app.get("/skills/:id/delete", async (c) => {
    requireManagement(c.get("session").principal);
    const skill = await visibleSkill(c, c.req.param("id"));
    return c.html(
      <Page title="Delete skill" {...pageProps(c, "/dashboard/skills")}>
        <div class="card">
          <h1>
            Delete {skill.name}@{skill.version}?
          </h1>
          <p>The skill and its execution history are removed. This cannot be undone.</p>
          <form method="post" action={`/dashboard/skills/${skill.id}/delete`} class="inline">
            <Csrf token={c.get("session").csrf} />
            <button type="submit" class="danger">
              Delete permanently
            </button>
            <a href={`/dashboard/skills/${skill.id}`}>Cancel</a>
          </form>
        </div>
      </Page>,
    );
  });

  app.post("/skills/:id/delete", async (c) => {
    requireManagement(c.get("session").principal);
    const skill = await visibleSkill(c, c.req.param("id"));
    await c.get("services").skills.remove(skill.id);
    return redirectWith(c, "/dashboard/skills", { ok: `Deleted ${skill.name}@${skill.version}.` });
  });

  return app;
}
