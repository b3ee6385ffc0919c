/**
 * Where a run's container comes from and where it goes (docs/sandbox.md#concurrency-queue-and-warm-pool): taken from
 * the warm pool or created and started under a slot id this process owns, and removed after the
 * run, releasing the slot (the leftover sweep spares owned slots).
 */
import { randomUUID } from "node:crypto";
import type { HostConfig } from "./config.js";
import { SandboxContainer } from "./container.js";
import { type DockerClient, EngineError } from "./docker-client.js";
import { HostError } from "./errors.js";
import type { ImageStore } from "./images.js";
import { type HostMetrics, timed } from "./metrics.js";
import { containerSpec, type RunPlan } from "./plan.js";
import type { WarmPool } from "./pool.js";

/** What acquiring and removing containers works with. `owned` holds this process's slot ids. */
export interface AcquireDeps {
  docker: DockerClient;
  config: HostConfig;
  images: ImageStore;
  pool: WarmPool;
  owned: Set<string>;
  /** Receives pool takes and the create, start and remove step times. */
  metrics: HostMetrics;
}

/** A started container and whether it came from the warm pool. */
export interface AcquiredContainer {
  container: SandboxContainer;
  pooled: boolean;
}

/**
 * A started container for `plan`: a pooled one when the plan may use the pool and the pool holds
 * one, else a new one created from the plan's spec and started; `beforeStart` runs between the
 * creation and the start (a failure there removes the container and is rethrown). A pooled
 * container's replacement is the caller's to ask for once the run has answered
 * (`WarmPool.replenish`; the pool refills at once only when the take left it empty).
 * @throws HostError 503 `image_unavailable` when the engine does not have the image (it is then
 *   forgotten by the image store), 503 `docker_unavailable` when the engine refuses to create or
 *   start the container.
 */
export async function acquireContainer(
  deps: AcquireDeps,
  plan: RunPlan,
  beforeStart?: () => Promise<void>,
): Promise<AcquiredContainer> {
  const { docker, config, pool, owned, images, metrics } = deps;
  if (plan.poolable) {
    const container = pool.take(plan.language, plan.image);
    if (config.poolSize > 0) metrics.countPoolTake(plan.language, container !== undefined);
    if (container) return { container, pooled: true };
  }
  const slot = randomUUID();
  owned.add(slot);
  let container: SandboxContainer;
  try {
    container = await timed(metrics, "create", () =>
      SandboxContainer.create(
        docker,
        containerSpec(plan, config, slot, plan.runId),
        plan.maxOutputChars ?? config.maxOutputChars,
      ),
    );
  } catch (err) {
    owned.delete(slot);
    if (err instanceof EngineError && err.kind === "not_found") {
      images.forget(plan.image);
      throw new HostError(
        503,
        "image_unavailable",
        `Image ${plan.image} is not available on the sandbox host`,
      );
    }
    throw new HostError(
      503,
      "docker_unavailable",
      "Docker engine refused to create the container",
      undefined,
      { cause: err },
    );
  }
  try {
    await beforeStart?.();
  } catch (err) {
    await removeContainer(deps, container);
    throw err;
  }
  try {
    await timed(metrics, "start", () => container.start());
  } catch (err) {
    await removeContainer(deps, container);
    throw new HostError(
      503,
      "docker_unavailable",
      "Docker engine refused to start the container",
      undefined,
      { cause: err },
    );
  }
  return { container, pooled: false };
}

/**
 * Removes a container and releases its slot; a failed removal is swallowed (the slot is released
 * anyway and the leftover sweep removes the container later).
 */
export async function removeContainer(
  deps: Pick<AcquireDeps, "owned" | "metrics">,
  container: SandboxContainer,
): Promise<void> {
  await timed(deps.metrics, "remove", () => container.remove()).catch(() => {});
  deps.owned.delete(container.spec.slot);
}
