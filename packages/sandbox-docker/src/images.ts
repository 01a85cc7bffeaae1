/**
 * Images: finding one on the engine (pulling it when allowed), and which images a sandbox may
 * run — the specs' own, and the ones the host lets owners choose (`ownerImages`).
 * @module
 */
import type Dockerode from 'dockerode';
import { validationError } from '@agent-platform/core';
import { imageAllowed, imageNotAllowed } from '@agent-platform/core/adapter-kit';
import { dockerMessage, isNotFound } from './docker-errors.js';
import type { ResolvedSpec } from './docker-specs.js';

/** The engine's description of an image; null when it does not have it. */
export async function imageInfo(docker: Dockerode, image: string): Promise<Dockerode.ImageInspectInfo | null> {
  try {
    return await docker.getImage(image).inspect();
  } catch (error) {
    if (isNotFound(error)) return null;
    throw error;
  }
}

/** The image, pulled first when the engine does not have it (unless `pull` is false). */
export async function ensureImage(docker: Dockerode, image: string, pull: boolean): Promise<Dockerode.ImageInspectInfo> {
  const present = await imageInfo(docker, image);
  if (present) return present;
  if (!pull) throw new Error(`image ${image} is not on the engine (pulling is off)`);
  try {
    const stream = await docker.pull(image);
    await new Promise<void>((resolve, reject) => docker.modem.followProgress(stream, (error) => (error ? reject(error) : resolve())));
  } catch (error) {
    throw new Error(`image ${image} is not on the engine and could not be pulled: ${dockerMessage(error)}`, { cause: error });
  }
  const pulled = await imageInfo(docker, image);
  if (!pulled) throw new Error(`image ${image} could not be pulled`);
  return pulled;
}

/**
 * What `allowedImages()` answers: the specs' images, then the configured owner images (exact
 * references, or prefixes ending in `*`), each once. A malformed entry is a configuration error.
 */
export function allowedImages(configs: readonly ResolvedSpec['config'][], ownerImages: readonly string[]): string[] {
  ownerImages.forEach((image, index) => {
    if (!isImageReference(image) || /\*./.test(image)) {
      throw validationError(['ownerImages', index], 'an image reference, or a prefix ending in * (ghcr.io/acme/sandbox:*)');
    }
  });
  return [...new Set([...configs.map((config) => config.image), ...ownerImages])];
}

/**
 * The spec's configuration with the owner's image in place of its own (the rest of the spec
 * stays); the spec's own without one. An image outside `allowed` is refused (VALIDATION_FAILED
 * with the list).
 */
export function withOwnerImage(config: ResolvedSpec['config'], image: string | undefined, allowed: readonly string[]): ResolvedSpec['config'] {
  if (image === undefined) return config;
  if (!isImageReference(image) || image.includes('*') || !imageAllowed(image, allowed)) throw imageNotAllowed(image, allowed);
  return { ...config, image };
}

/** Something the engine can take as an image reference: no spaces or control characters, not too long. */
function isImageReference(image: string): boolean {
  return typeof image === 'string' && image.length > 0 && image.length <= 512 && !/[\s\u0000-\u001f\u007f]/.test(image);
}
