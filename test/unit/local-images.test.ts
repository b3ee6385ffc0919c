import { describe, expect, it } from "vitest";
import { DEFAULT_LANGUAGE_IMAGES } from "../../sandbox-host/src/images.js";
import { LOCAL_IMAGES, preferLocalImages } from "../../scripts/local-images.js";

const engine = (images: readonly string[]) => async (image: string) => images.includes(image);
const locals = Object.values(LOCAL_IMAGES);
const defaults = Object.values(DEFAULT_LANGUAGE_IMAGES);

describe("npm start's choice of sandbox images", () => {
  it("points the host at the local images when the defaults are absent", async () => {
    const env: NodeJS.ProcessEnv = {};
    expect(await preferLocalImages(env, engine(locals))).toBe(true);
    expect(env.SANDBOX_IMAGE_NODE).toBe("skillgate-local/node:latest");
    expect(env.SANDBOX_IMAGE_PYTHON).toBe("skillgate-local/python:latest");
    expect(env.SANDBOX_IMAGE_SHELL).toBe("skillgate-local/busybox:latest");
    expect(env.SKILLS_ALLOWED_SANDBOX_IMAGES?.split(",").sort()).toEqual([...locals].sort());
  });

  it("keeps the defaults when the engine holds them", async () => {
    const env: NodeJS.ProcessEnv = {};
    expect(await preferLocalImages(env, engine([...defaults, ...locals]))).toBe(false);
    expect(env).toEqual({});
  });

  it("changes nothing when a local image is missing, or an image is configured", async () => {
    const partial: NodeJS.ProcessEnv = {};
    expect(await preferLocalImages(partial, engine(locals.slice(1)))).toBe(false);
    expect(partial).toEqual({});
    for (const name of [...Object.keys(LOCAL_IMAGES), "SKILLS_ALLOWED_SANDBOX_IMAGES"]) {
      const env: NodeJS.ProcessEnv = { [name]: "alpine:3.20" };
      expect(await preferLocalImages(env, engine(locals))).toBe(false);
      expect(env).toEqual({ [name]: "alpine:3.20" });
    }
  });
});
