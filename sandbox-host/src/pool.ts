/**
 * Warm pool: per node/python image, a configured number of containers
 * created and started ahead of time with exactly the HostConfig of a default run (built by the
 * same `planRun`), the interpreter already waiting on stdin. Each serves one run, is then removed
 * by the runner, and is replaced in the background once that run has answered. A run that
 * differs from the defaults in any way (image, env, network, CPU, memory) never uses the pool, so
 * the pool never changes what a run can see or do. Size 0 turns it off.
 */
import { randomUUID } from "node:crypto";
import type { SandboxLanguage } from "@skillgate/sandbox-protocol";
import type { HostConfig } from "./config.js";
import { SandboxContainer } from "./container.js";
import type { DockerClient } from "./docker-client.js";
import { type HostMetrics, noopHostMetrics, timed } from "./metrics.js";
import { containerSpec, planRun } from "./plan.js";

const POOLED_LANGUAGES: SandboxLanguage[] = ["node", "python"];
const RETRY_MS = 10_000;
/** Containers created at once while refilling one language's pool. */
const REFILL_PARALLELISM = 2;

/** Ready pre-started containers per language. */
export class WarmPool {
  private readonly ready = new Map<SandboxLanguage, SandboxContainer[]>();
  private readonly filling = new Map<SandboxLanguage, Promise<void>>();
  private readonly retryTimers = new Set<NodeJS.Timeout>();
  private closed = false;

  /**
   * @param docker the Docker engine seam.
   * @param owned slot ids this process owns (the leftover sweep spares them); shared with the runner.
   * @param log receives one line per failure to fill (no secrets).
   * @param metrics receives the create / start / remove times of pooled containers.
   */
  constructor(
    private readonly docker: DockerClient,
    private readonly config: HostConfig,
    private readonly owned: Set<string>,
    private readonly log: (line: string) => void,
    private readonly metrics: HostMetrics = noopHostMetrics,
  ) {
    for (const language of POOLED_LANGUAGES) this.ready.set(language, []);
  }

  /** Starts filling every language's pool in the background (no-op when the size is 0). */
  start(): void {
    for (const language of POOLED_LANGUAGES) void this.refill(language);
  }

  /**
   * Takes a ready container for `language` whose image is `image`, or undefined. The caller owns
   * it from then on (sends the program, removes it) and calls {@link replenish} once its run has
   * answered. The replacement is created then, off the run's request path (creating and starting
   * a container costs the engine and the CPUs far more than the run itself), unless the take left
   * no ready container or found none: then the refill starts at once, so a burst of runs is not
   * left without a pool (docs/sandbox.md#concurrency-queue-and-warm-pool).
   */
  take(language: SandboxLanguage, image: string): SandboxContainer | undefined {
    const list = this.ready.get(language);
    if (!list) return undefined;
    let found: SandboxContainer | undefined;
    while (list.length > 0 && !found) {
      const candidate = list.shift()!;
      if (candidate.alive() && candidate.spec.image === image) found = candidate;
      else void this.discard(candidate);
    }
    if (!found || list.length === 0) void this.refill(language);
    return found;
  }

  /**
   * Refills `language`'s pool in the background, up to the configured size; called by the runner
   * after a run that took a container has answered. A no-op once closed, or while a refill of the
   * language is already under way (that refill fills up to the size).
   */
  replenish(language: SandboxLanguage): void {
    void this.refill(language);
  }

  /** Ready containers per image. */
  sizes(): Record<string, number> {
    const out: Record<string, number> = {};
    for (const [language, list] of this.ready) out[this.config.images[language]] = list.length;
    return out;
  }

  /**
   * Stops refilling and removes every ready container, waiting for containers still being created
   * (they are removed as soon as they exist), so none outlives the host.
   */
  async close(): Promise<void> {
    this.closed = true;
    for (const t of this.retryTimers) clearTimeout(t);
    this.retryTimers.clear();
    await Promise.all(this.filling.values());
    const all = [...this.ready.values()].flat();
    for (const list of this.ready.values()) list.length = 0;
    await Promise.all(all.map((c) => this.discard(c)));
  }

  private refill(language: SandboxLanguage): Promise<void> {
    if (this.closed || this.config.poolSize === 0) return Promise.resolve();
    let filling = this.filling.get(language);
    if (!filling) {
      filling = this.fill(language).finally(() => this.filling.delete(language));
      this.filling.set(language, filling);
    }
    return filling;
  }

  private async fill(language: SandboxLanguage): Promise<void> {
    const list = this.ready.get(language)!;
    try {
      while (!this.closed && list.length < this.config.poolSize) {
        const batch = Math.min(this.config.poolSize - list.length, REFILL_PARALLELISM);
        const made = await Promise.allSettled(
          Array.from({ length: batch }, () => this.createOne(language)),
        );
        for (const m of made) {
          if (m.status !== "fulfilled") continue;
          if (this.closed) await this.discard(m.value);
          else list.push(m.value);
        }
        const failed = made.find((m) => m.status === "rejected");
        if (failed) throw failed.reason;
      }
    } catch (err) {
      if (this.closed) return;
      this.log(
        `warm pool: cannot pre-start a ${language} container (${(err as Error).message}); retrying`,
      );
      const timer = setTimeout(() => {
        this.retryTimers.delete(timer);
        void this.refill(language);
      }, RETRY_MS);
      timer.unref();
      this.retryTimers.add(timer);
    }
  }

  private async createOne(language: SandboxLanguage): Promise<SandboxContainer> {
    const plan = planRun({ language, code: "" }, this.config);
    const slot = randomUUID();
    this.owned.add(slot);
    try {
      const spec = containerSpec(plan, this.config, slot, "pool");
      const container = await timed(this.metrics, "create", () =>
        SandboxContainer.create(this.docker, spec, this.config.maxOutputChars),
      );
      try {
        await timed(this.metrics, "start", () => container.start());
      } catch (err) {
        await container.remove().catch(() => {});
        throw err;
      }
      return container;
    } catch (err) {
      this.owned.delete(slot);
      throw err;
    }
  }

  private async discard(container: SandboxContainer): Promise<void> {
    await timed(this.metrics, "remove", () => container.remove()).catch(() => {});
    this.owned.delete(container.spec.slot);
  }
}
