/**
 * Shared page chrome of the dashboard (docs/dashboard.md): document, navigation, flash messages,
 * tables, pagination and the hidden CSRF field every form carries. Plain server-rendered HTML with
 * a small inline stylesheet; no scripts are needed for any page to work.
 */
import { raw } from "hono/html";
import type { Child, FC } from "hono/jsx";
import type { Principal } from "../auth/principal.js";

const STYLE = `
:root{--fg:#1d2330;--muted:#5b6475;--line:#dfe3ea;--bg:#f6f7f9;--accent:#2f5bd3;--ok:#1f8a4c;--err:#c0392b;--warn:#b7791f}
*{box-sizing:border-box}body{margin:0;font:14px/1.45 system-ui,-apple-system,"Segoe UI",Roboto,sans-serif;color:var(--fg);background:var(--bg)}
header{display:flex;flex-wrap:wrap;align-items:center;gap:8px 24px;padding:10px 24px;background:#141a26;color:#fff}
header nav{display:flex;flex-wrap:wrap}
header a{color:#cfd6e4;text-decoration:none;padding:6px 2px}header a[aria-current=page]{color:#fff;border-bottom:2px solid #7aa2ff}
header .brand{font-weight:700;color:#fff;margin-right:8px}header .who{margin-left:auto;color:#9aa4b8;display:flex;gap:12px;align-items:center}
main{max-width:1180px;margin:0 auto;padding:24px}h1{font-size:22px;margin:0 0 16px}h2{font-size:16px;margin:24px 0 8px}
.card{background:#fff;border:1px solid var(--line);border-radius:8px;padding:16px;margin-bottom:16px}
table{width:100%;border-collapse:collapse;background:#fff;border:1px solid var(--line);border-radius:8px}
.scroll{max-width:100%;overflow-x:auto}code{overflow-wrap:anywhere}input,select,textarea{max-width:100%}
fieldset.scopes{border:1px solid var(--line);border-radius:6px;display:flex;flex-wrap:wrap;gap:0 14px;margin:0 0 12px;padding:6px 10px}fieldset.scopes .field{margin:0}
th,td{text-align:left;padding:8px 10px;border-bottom:1px solid var(--line);vertical-align:top}th{font-size:12px;text-transform:uppercase;letter-spacing:.03em;color:var(--muted);background:#fafbfc}
tr:last-child td{border-bottom:0}td.num,th.num{text-align:right;font-variant-numeric:tabular-nums}
a{color:var(--accent)}code,pre{font:12.5px/1.4 ui-monospace,SFMono-Regular,Menlo,monospace}pre{background:#0f1420;color:#e6e9ef;padding:12px;border-radius:6px;overflow:auto;max-height:420px;white-space:pre-wrap;word-break:break-word}
form.inline{display:inline-flex;gap:6px;align-items:center;margin:0}
.filters{display:flex;flex-wrap:wrap;gap:12px;align-items:flex-end;margin-bottom:16px}
.field{display:flex;flex-direction:column;gap:4px;margin-bottom:12px}.filters .field{margin:0}
label{font-weight:600;font-size:12.5px}input,select,textarea{font:inherit;padding:6px 8px;border:1px solid #c5ccd8;border-radius:6px;background:#fff}
textarea{min-height:140px;font-family:ui-monospace,monospace}input:focus,select:focus,textarea:focus,button:focus,a:focus{outline:2px solid #7aa2ff;outline-offset:1px}
button{font:inherit;padding:6px 12px;border-radius:6px;border:1px solid var(--accent);background:var(--accent);color:#fff;cursor:pointer}
button.secondary{background:#fff;color:var(--accent)}button.danger{background:var(--err);border-color:var(--err)}
.badge{display:inline-block;padding:1px 8px;border-radius:10px;font-size:12px;background:#eef1f6;color:var(--muted)}
.badge.success{background:#e3f4ea;color:var(--ok)}.badge.error,.badge.timeout{background:#fbe7e5;color:var(--err)}.badge.pending,.badge.running{background:#fdf3e1;color:var(--warn)}
.flash{padding:10px 14px;border-radius:6px;margin-bottom:16px;border:1px solid}.flash.ok{background:#e9f6ee;border-color:#b9e0c8}.flash.err{background:#fdecea;border-color:#f3c1bb}
.empty{padding:32px;text-align:center;color:var(--muted);background:#fff;border:1px dashed var(--line);border-radius:8px}
.muted{color:var(--muted)}.pager{display:flex;gap:12px;align-items:center;margin-top:12px}
dl{display:grid;grid-template-columns:160px 1fr;gap:6px 16px;margin:0}dt{color:var(--muted)}dd{margin:0}
.grid2{display:grid;grid-template-columns:1fr 1fr;gap:16px}@media(max-width:900px){.grid2{grid-template-columns:1fr}}
.login{max-width:420px;margin:80px auto}
@media(max-width:640px){header{padding:8px 12px}header .who{margin-left:0}main{padding:12px}dl{grid-template-columns:1fr}dt{margin-top:6px}.login{margin:24px auto}}.errors{color:var(--err);margin:4px 0 0;padding-left:18px}
`;

const NAV: [string, string][] = [
  ["/dashboard", "Overview"],
  ["/dashboard/skills", "Skills"],
  ["/dashboard/executions", "Executions"],
  ["/dashboard/catalogs", "Catalogs"],
  ["/dashboard/selection", "Selection"],
  ["/dashboard/settings", "Settings"],
];

/** Hidden CSRF field; every dashboard form includes it. */
export const Csrf: FC<{ token: string }> = ({ token }) => (
  <input type="hidden" name="_csrf" value={token} />
);

/** Flash messages carried in the query string after a redirect (`ok` / `err`). */
export interface Flash {
  ok?: string;
  err?: string;
}

/** Full page: document, header navigation (when signed in), flash and content. */
export const Page: FC<{
  title: string;
  path?: string;
  principal?: Principal;
  csrf?: string;
  flash?: Flash;
  children?: Child;
}> = ({ title, path, principal, csrf, flash, children }) => (
  <>
    {raw("<!doctype html>")}
    <html lang="en">
      <head>
        <meta charset="utf-8" />
        <meta name="viewport" content="width=device-width, initial-scale=1" />
        <title>{`${title} · Skillgate`}</title>
        {/* Raw: text inside <style> is not HTML, so escaping it would break quoted font names. */}
        <style>{raw(STYLE)}</style>
      </head>
      <body>
        {principal && csrf ? (
          <header>
            <span class="brand">Skillgate</span>
            <nav aria-label="Main">
              {NAV.map(([href, label]) => (
                <a
                  href={href}
                  aria-current={
                    path === href || (href !== "/dashboard" && path?.startsWith(href))
                      ? "page"
                      : undefined
                  }
                  style="margin-right:16px"
                >
                  {label}
                </a>
              ))}
            </nav>
            <span class="who">
              <span>
                {principal.kind === "management" ? "management" : `key ${principal.name}`}
              </span>
              <form method="post" action="/dashboard/logout" class="inline">
                <Csrf token={csrf} />
                <button type="submit" class="secondary">
                  Sign out
                </button>
              </form>
            </span>
          </header>
        ) : null}
        <main>
          {flash?.ok ? (
            <div class="flash ok" role="status">
              {flash.ok}
            </div>
          ) : null}
          {flash?.err ? (
            <div class="flash err" role="alert">
              {flash.err}
            </div>
          ) : null}
          {children}
        </main>
      </body>
    </html>
  </>
);

/** An empty-state panel. */
export const Empty: FC<{ children?: Child }> = ({ children }) => (
  <div class="empty">{children}</div>
);

/** A status badge. */
export const Badge: FC<{ value: string }> = ({ value }) => (
  <span class={`badge ${value}`}>{value}</span>
);

/** Previous / next links keeping the current query. */
export const Pager: FC<{
  base: string;
  query: URLSearchParams;
  page: number;
  totalPages: number;
  total: number;
}> = ({ base, query, page, totalPages, total }) => {
  const link = (p: number) => {
    const q = new URLSearchParams(query);
    q.set("page", String(p));
    return `${base}?${q.toString()}`;
  };
  return (
    <nav class="pager" aria-label="Pagination">
      {page > 1 ? <a href={link(page - 1)}>← Previous</a> : null}
      <span class="muted">
        Page {page} of {Math.max(totalPages, 1)} · {total} total
      </span>
      {page < totalPages ? <a href={link(page + 1)}>Next →</a> : null}
    </nav>
  );
};

/** A labelled `<select>`. */
export const Select: FC<{
  name: string;
  label: string;
  value?: string;
  options: readonly string[];
  any?: boolean;
  id?: string;
}> = ({ name, label, value, options, any, id }) => {
  const fid = id ?? `f-${name}`;
  return (
    <div class="field">
      <label for={fid}>{label}</label>
      <select id={fid} name={name}>
        {any ? <option value="">any</option> : null}
        {options.map((o) => (
          <option value={o} selected={o === value}>
            {o}
          </option>
        ))}
      </select>
    </div>
  );
};

/** A checkbox posting `on` when ticked, with its label beside it. */
export const Checkbox: FC<{ name: string; label: string; checked?: boolean; id?: string }> = ({
  name,
  label,
  checked,
  id,
}) => {
  const fid = id ?? `f-${name}`;
  return (
    <div class="field" style="flex-direction:row;align-items:center;gap:8px">
      <input id={fid} type="checkbox" name={name} value="on" checked={checked} />
      <label for={fid}>{label}</label>
    </div>
  );
};

/** A labelled `<input>`. */
export const Input: FC<{
  name: string;
  label: string;
  value?: string;
  type?: string;
  placeholder?: string;
  required?: boolean;
  id?: string;
}> = ({ name, label, value, type, placeholder, required, id }) => {
  const fid = id ?? `f-${name}`;
  return (
    <div class="field">
      <label for={fid}>{label}</label>
      <input
        id={fid}
        name={name}
        type={type ?? "text"}
        value={value ?? ""}
        placeholder={placeholder}
        required={required}
      />
    </div>
  );
};

/** Short local time of an ISO timestamp (UTC, minute precision). */
export function when(iso: string): string {
  return iso.replace("T", " ").slice(0, 19);
}

/**
 * A key as pages show it (docs/dashboard.md): its name linked to its page, with the start of its
 * id beside it; `none` (e.g. "management", "global") when there is no key; the bare id when the
 * key is gone. @param names id → name, from the keys service's `namesOf`.
 */
export const KeyRef: FC<{ id: string | null; names: Map<string, string>; none: string }> = ({
  id,
  names,
  none,
}) => {
  if (id === null) return <span class="muted">{none}</span>;
  const name = names.get(id);
  if (name === undefined) return <code title="deleted or unknown key">{id}</code>;
  return (
    <span data-key-ref={id}>
      <a href={`/dashboard/keys/${id}`}>{name}</a>{" "}
      <code class="muted" title={id}>
        {id.slice(0, 8)}
      </code>
    </span>
  );
};
