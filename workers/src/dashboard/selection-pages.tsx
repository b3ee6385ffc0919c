/**
 * The selection page (docs/dashboard.md#pages), management only: per skill, how often this
 * instance injected it as an AUTO pick, how often a model called it when it was injected
 * (precision), and how often `skill_search` found it when the ranker had not injected it; and the
 * default ranker. The same counts are the `skillgate_selection_*` Prometheus counters
 * (docs/scoring.md#selection-counters). Calls the tools service only.
 */
import { Hono } from "hono";
import { requireManagement } from "../auth/principal.js";
import { type DashEnv, pageProps } from "./env.js";
import { Empty, Page } from "./layout.js";

/** Precision as a percentage text, or a dash when nothing was injected. */
function precision(called: number, injected: number): string {
  return injected > 0 ? `${((100 * called) / injected).toFixed(1)} %` : "—";
}

/** Builds the selection page route. */
export function selectionPages(): Hono<DashEnv> {
  const app = new Hono<DashEnv>();

  app.get("/selection", async (c) => {
    requireManagement(c.get("session").principal);
    const { ranker, skills } = await c.get("services").tools.feedback.selectionStats();
    return c.html(
      <Page title="Selection" {...pageProps(c, "/dashboard/selection")}>
        <h1>Selection</h1>
        <div class="card">
          <p>
            Default ranker: <code>{ranker}</code>. Counts since this instance started.
          </p>
          {skills.length === 0 ? (
            <Empty>No skill has been injected or found by search yet.</Empty>
          ) : (
            <table>
              <thead>
                <tr>
                  <th>Skill</th>
                  <th>Injected</th>
                  <th>Called when injected</th>
                  <th>Precision</th>
                  <th>Found only by search</th>
                </tr>
              </thead>
              <tbody>
                {skills.map((s) => (
                  <tr>
                    <td>
                      <code>{s.skill}</code>
                    </td>
                    <td>{s.injected}</td>
                    <td>{s.calledWhenInjected}</td>
                    <td>{precision(s.calledWhenInjected, s.injected)}</td>
                    <td>{s.foundBySearch}</td>
                  </tr>
                ))}
              </tbody>
            </table>
          )}
        </div>
      </Page>,
    );
  });

  return app;
}
