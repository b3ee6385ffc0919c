/**
 * Which configured images the Docker engine holds, for `GET /v1/health` (docs/sandbox.md#health).
 * Image inspections are cheap local engine calls, but health is polled often (the API's
 * multi-host client, container health checks), so the answer is cached: a check older than
 * `maxAgeMs` starts one refresh in the background, and health waits for it at most `waitMs`
 * before answering with what it last knew. A failed inspection (engine down) is `null`: unknown.
 */
import type { SandboxRunKind } from "@skillgate/sandbox-protocol";
import type { DockerClient } from "./docker-client.js";

/** Default age after which the presence is checked again, in ms. */
export const IMAGE_PRESENCE_MAX_AGE_MS = 30_000;
/** Default longest time health waits for a refresh, in ms. */
export const IMAGE_PRESENCE_WAIT_MS = 2_000;

/** What {@link ImagePresence.snapshot} answers. */
export interface ImagePresenceSnapshot {
  /** Per kind: true present, false absent, null unknown. */
  present: Partial<Record<SandboxRunKind, boolean | null>>;
  /** When the last completed check started, ms since the epoch; null before the first. */
  checkedAt: number | null;
}

/** Options of {@link ImagePresence}. */
export interface ImagePresenceOptions {
  /** Age after which a snapshot triggers a refresh, in ms (default 30 000). */
  maxAgeMs?: number;
  /** Longest wait of a snapshot for a running refresh, in ms (default 2 000). */
  waitMs?: number;
  /** Clock, ms since the epoch. */
  now?: () => number;
}

/** Cached presence of the host's images in the engine. */
export class ImagePresence {
  private present: Partial<Record<SandboxRunKind, boolean | null>> = {};
  private checkedAt: number | null = null;
  private refreshing: Promise<void> | undefined;
  private readonly maxAgeMs: number;
  private readonly waitMs: number;
  private readonly now: () => number;

  /**
   * @param docker the engine seam (`imageExists`).
   * @param images the normalised image of each kind (the languages' and the browser's).
   */
  constructor(
    private readonly docker: DockerClient,
    private readonly images: Readonly<Partial<Record<SandboxRunKind, string>>>,
    opts: ImagePresenceOptions = {},
  ) {
    this.maxAgeMs = opts.maxAgeMs ?? IMAGE_PRESENCE_MAX_AGE_MS;
    this.waitMs = opts.waitMs ?? IMAGE_PRESENCE_WAIT_MS;
    this.now = opts.now ?? Date.now;
    for (const kind of Object.keys(images) as SandboxRunKind[]) this.present[kind] = null;
  }

  /**
   * Checks every image now (one check at a time; a call during a check joins it). Never throws:
   * an image whose inspection fails is recorded as unknown (null).
   */
  refresh(): Promise<void> {
    this.refreshing ??= this.check().finally(() => {
      this.refreshing = undefined;
    });
    return this.refreshing;
  }

  /**
   * The presence to report: refreshes first when the last check is older than `maxAgeMs` (or
   * missing), waiting for it at most `waitMs`; a slower refresh completes in the background and
   * serves the next call. Never throws.
   */
  async snapshot(): Promise<ImagePresenceSnapshot> {
    if (this.checkedAt === null || this.now() - this.checkedAt >= this.maxAgeMs) {
      let timer: NodeJS.Timeout | undefined;
      await Promise.race([
        this.refresh(),
        new Promise<void>((resolve) => {
          timer = setTimeout(resolve, this.waitMs);
          timer.unref();
        }),
      ]);
      clearTimeout(timer);
    }
    return { present: { ...this.present }, checkedAt: this.checkedAt };
  }

  private async check(): Promise<void> {
    const started = this.now();
    // One inspection per distinct image, even when several kinds share it.
    const distinct = [...new Set(Object.values(this.images))];
    const found = new Map<string, boolean | null>();
    await Promise.all(
      distinct.map(async (image) => {
        found.set(image, await this.docker.imageExists(image).catch(() => null));
      }),
    );
    const present: Partial<Record<SandboxRunKind, boolean | null>> = {};
    for (const [kind, image] of Object.entries(this.images) as [SandboxRunKind, string][])
      present[kind] = found.get(image) ?? null;
    this.present = present;
    this.checkedAt = started;
  }
}
