/**
 * Catalog pages (docs/dashboard.md#pages): search the active provider, read a skill's SKILL.md
 * before installing, install. A key's install belongs to that key; management's is global.
 */
import { Hono } from "hono";
import { hasScope } from "../auth/scopes.js";
import { type DashContext, type DashEnv, formOf, pageProps, redirectWith } from "./env.js";
import { Csrf, Empty, Input, Page } from "./layout.js";

/** Where a catalog item's SKILL.md lives, as search results name it. */
interface CatalogItemRef {
  /** `owner/repo` (skills.sh, SkillsMP). */
  source?: string;
  /** A github.com URL (SkillsMP), possibly with `tree/<ref>/<path>`. */
  githubUrl?: string;
  skillId: string;
}

function refOf(get: (k: string) => string | undefined): CatalogItemRef {
  return {
    source: get("source") || undefined,
    githubUrl: get("githubUrl") || undefined,
    skillId: get("skillId") ?? "",
  };
}

function viewLink(ref: CatalogItemRef): string {
  const q = new URLSearchParams();
  if (ref.source) q.set("source", ref.source);
  if (ref.githubUrl) q.set("githubUrl", ref.githubUrl);
  q.set("skillId", ref.skillId);
  return `/dashboard/catalogs/view?${q.toString()}`;
}

/** Builds the catalog routes. */
export function catalogPages(): Hono<DashEnv> {
  const app = new Hono<DashEnv>();

  app.get("/catalogs", async (c) => {
    const catalogs = c.get("services").catalogs;
    const q = c.req.query("q")?.trim() ?? "";
    const provider = await catalogs.activeCatalog();
    const page = q ? await catalogs.search(provider, { q, page: 1, limit: 25 }) : undefined;
    return c.html(
      <Page title="Catalogs" {...pageProps(c, "/dashboard/catalogs")}>
        <h1>Catalogs</h1>
        <p class="muted">
          Searching <strong>{provider}</strong> (the active provider; change it in Settings).
        </p>
        <form method="get" class="filters" aria-label="Search the catalog">
          <Input name="q" label="Search" value={q} placeholder="pdf, git, browser…" required />
          <button type="submit">Search</button>
        </form>
        {!page ? (
          <Empty>Type a few words to search {provider}.</Empty>
        ) : page.data.length === 0 ? (
          <Empty>No catalog skills match “{q}”.</Empty>
        ) : (
          <div class="scroll">
            <table>
              <thead>
                <tr>
                  <th>Name</th>
                  <th>Source</th>
                  <th>Author</th>
                  <th class="num">Stars</th>
                  <th class="num">Installs</th>
                  <th>SKILL.md</th>
                </tr>
              </thead>
              <tbody>
                {page.data.map((s) => (
                  <tr data-catalog-skill={s.id}>
                    <td>
                      {s.name}
                      <div class="muted" style="font-size:12px">
                        {s.description.slice(0, 140)}
                      </div>
                    </td>
                    <td>
                      <code>{s.source ?? s.githubUrl ?? "—"}</code>
                    </td>
                    <td>{s.author ?? "—"}</td>
                    <td class="num">{s.stars ?? "—"}</td>
                    <td class="num">{s.installs ?? "—"}</td>
                    <td>
                      {s.source || s.githubUrl ? (
                        <a
                          href={viewLink({
                            source: s.source ?? undefined,
                            githubUrl: s.githubUrl ?? undefined,
                            skillId: s.skillId,
                          })}
                        >
                          View
                        </a>
                      ) : (
                        "—"
                      )}
                    </td>
                  </tr>
                ))}
              </tbody>
            </table>
          </div>
        )}
      </Page>,
    );
  });

  app.get("/catalogs/view", async (c: DashContext) => {
    const ref = refOf((k) => c.req.query(k));
    const preview = await c.get("services").catalogs.preview(ref);
    const ok = !("error" in preview.parsed);
    return c.html(
      <Page title="SKILL.md" {...pageProps(c, "/dashboard/catalogs")}>
        <h1>
          {ok && "name" in preview.parsed ? preview.parsed.name : ref.skillId}{" "}
          <span class="muted" style="font-size:14px">
            SKILL.md
          </span>
        </h1>
        <p class="muted">
          From <code>{preview.url}</code>
        </p>
        {"error" in preview.parsed ? (
          <div class="flash err" role="alert">
            This SKILL.md cannot be installed: {preview.parsed.error}
          </div>
        ) : !hasScope(c.get("session").principal, "catalog:install") ? (
          <p class="muted" data-field="install-needs-scope">
            Installing needs the scope <code>catalog:install</code>, which your key lacks.
          </p>
        ) : (
          <form method="post" action="/dashboard/catalogs/install" class="card">
            <Csrf token={c.get("session").csrf} />
            {ref.source ? <input type="hidden" name="source" value={ref.source} /> : null}
            {ref.githubUrl ? <input type="hidden" name="githubUrl" value={ref.githubUrl} /> : null}
            <input type="hidden" name="skillId" value={ref.skillId} />
            <p>
              Installs <strong>{preview.parsed.name}</strong>@{preview.parsed.version} as an
              instruction skill (mode auto){" "}
              {c.get("session").principal.kind === "key" ? "owned by your key" : "for every key"}.
            </p>
            <button type="submit">Install</button>
          </form>
        )}
        <pre data-field="skill-md">{preview.text}</pre>
      </Page>,
    );
  });

  app.post("/catalogs/install", async (c) => {
    const form = await formOf(c);
    const principal = c.get("session").principal;
    const catalogs = c.get("services").catalogs;
    const { skill } = await catalogs.install(
      await catalogs.activeCatalog(),
      refOf((k) => form[k]),
      principal.kind === "key" ? principal.apiKeyId : null,
    );
    return redirectWith(c, `/dashboard/skills/${skill.id}`, {
      ok: `Installed ${skill.name}@${skill.version} from the catalog.`,
    });
  });

  return app;
}
