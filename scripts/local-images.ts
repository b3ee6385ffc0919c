/**
 * The sandbox images `npm start` points the host at on a machine without registry access
 * (docs/deployment.md#sandbox-images).
 */
import { execFile } from "node:child_process";
import { DEFAULT_LANGUAGE_IMAGES } from "../sandbox-host/src/images.js";

/** The images `npm run sandbox:images` builds, by variable (docs/deployment.md#sandbox-images). */
export const LOCAL_IMAGES = {
  SANDBOX_IMAGE_NODE: "skillgate-local/node:latest",
  SANDBOX_IMAGE_PYTHON: "skillgate-local/python:latest",
  SANDBOX_IMAGE_SHELL: "skillgate-local/busybox:latest",
} as const;

/** Whether the Docker engine holds `image` (false when the engine or the CLI is not there). */
export function dockerHasImage(image: string): Promise<boolean> {
  return new Promise((resolve) => {
    execFile(
      "docker",
      ["image", "inspect", "--format", "{{.Id}}", image],
      { timeout: 10_000 },
      (err) => resolve(err === null),
    );
  });
}

/**
 * On a machine without registry access: when no sandbox image is configured, the default images
 * are not in the Docker engine and the local ones are (built by `npm run sandbox:images`), points
 * the sandbox host at the local ones (the three language images and the allowlist), so that a
 * newcomer's `npm start` needs no exports.
 * @param hasImage whether the engine holds an image (the Docker CLI by default).
 * @returns whether it did.
 */
export async function preferLocalImages(
  env: NodeJS.ProcessEnv,
  hasImage: (image: string) => Promise<boolean> = dockerHasImage,
): Promise<boolean> {
  const configured = [...Object.keys(LOCAL_IMAGES), "SKILLS_ALLOWED_SANDBOX_IMAGES"].some((name) =>
    env[name]?.trim(),
  );
  if (configured) return false;
  const [defaults, locals] = await Promise.all([
    Promise.all(Object.values(DEFAULT_LANGUAGE_IMAGES).map(hasImage)),
    Promise.all(Object.values(LOCAL_IMAGES).map(hasImage)),
  ]);
  if (defaults.every(Boolean) || !locals.every(Boolean)) return false;
  Object.assign(env, LOCAL_IMAGES);
  env.SKILLS_ALLOWED_SANDBOX_IMAGES = Object.values(LOCAL_IMAGES).join(",");
  return true;
}
