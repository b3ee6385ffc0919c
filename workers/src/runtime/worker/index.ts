/**
 * Worker entry: exports only the handlers (`default` with `fetch` and `scheduled`). workerd
 * treats every named export of this module as an entrypoint and refuses to start when one is not
 * a handler, so everything else lives in ./worker-app.ts and ./library-worker.ts. Migrations are
 * applied ahead of deployment with `npm run db:migrate` (README "Deployment (Cloudflare Workers)").
 * A team that adds its own handlers builds the same handlers with `createSkillgateWorker`
 * (docs/library.md).
 */
import { createSkillgateWorker } from "./library-worker.js";

/** The per-key limiter's Durable Object class (`KEY_LIMITER` in wrangler.toml). */
export { KeyLimiter } from "./key-limiter.js";

export default createSkillgateWorker();
