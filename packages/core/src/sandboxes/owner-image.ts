/**
 * The owner's sandbox image: which of their settings names it (`sandbox_runtime_container_image`
 * over `sandbox_base_container_image`), and whether the platform's runtime may run it. One rule
 * of matching serves the settings' check at save, the platform's check before a start and the
 * runtimes' own refusal, so an owner meets the same answer, with the same list, everywhere.
 * @module
 */
import { type PlatformError, validationError } from '../kernel/errors.js';
import { echoedKey } from '../kernel/validation.js';
import type { SandboxRuntime } from '../ports/sandbox-runtime.js';
import type { SettingsValues } from '../schemas/settings.js';

/** The settings that name an owner's image, the one that wins first. */
export const OWNER_IMAGE_FIELDS = ['sandbox_runtime_container_image', 'sandbox_base_container_image'] as const;
export type OwnerImageField = (typeof OWNER_IMAGE_FIELDS)[number];

/** The image an owner's settings ask for and the field that names it; `null` when both are empty (blank counts as empty). */
export function ownerImageSetting(values: Partial<Pick<SettingsValues, OwnerImageField>> | null | undefined): { field: OwnerImageField; image: string } | null {
  for (const field of OWNER_IMAGE_FIELDS) {
    const image = values?.[field]?.trim();
    if (image) return { field, image };
  }
  return null;
}

/**
 * Whether `image` is one of `allowed`: equal to an exact reference, or starting with what comes
 * before the `*` of a pattern that ends in one (`ghcr.io/acme/sandbox:*` allows every tag of that
 * repository; a lone `*`, any image). References are compared as written: `debian` and
 * `docker.io/library/debian:latest` are different entries.
 */
export function imageAllowed(image: string, allowed: readonly string[]): boolean {
  return allowed.some((entry) => (entry.endsWith('*') ? image.startsWith(entry.slice(0, -1)) : image === entry));
}

/** The allowed images as a message lists them. */
const listed = (allowed: readonly string[]): string => (allowed.length > 0 ? allowed.join(', ') : 'none');

/**
 * A runtime's refusal of an image outside its {@link SandboxRuntime.allowedImages}: VALIDATION_FAILED
 * at `image`, naming the image and listing the allowed ones. For runtime authors.
 */
export function imageNotAllowed(image: string, allowed: readonly string[]): PlatformError {
  return validationError(['image'], `image "${echoedKey(image)}" is not allowed here; the allowed images are: ${listed(allowed)}`, 'enum');
}

/**
 * Why the platform's runtime would not run `image` for an owner, in words for them (the setting's
 * name first); `null` when it would. A runtime without `allowedImages` cannot change images.
 */
export async function ownerImageRefusal(runtime: SandboxRuntime | null, field: OwnerImageField, image: string): Promise<string | null> {
  const shown = `"${echoedKey(image)}"`;
  if (!runtime) return `${field}: this platform runs no sandboxes, so it takes no sandbox image (${shown}); leave it empty`;
  if (!runtime.allowedImages) {
    return `${field}: this platform's sandbox runtime (${runtime.name}) cannot run a chosen image (${shown}); leave it empty`;
  }
  const allowed = await runtime.allowedImages();
  if (imageAllowed(image, allowed)) return null;
  return `${field}: ${shown} is not an image this platform allows; the allowed images are: ${listed(allowed)}`;
}

/** Throws a 422 at `loc` when the platform's runtime would not run the owner's image. */
export async function checkOwnerImage(runtime: SandboxRuntime | null, field: OwnerImageField, image: string, loc: (string | number)[]): Promise<void> {
  const refusal = await ownerImageRefusal(runtime, field, image);
  if (refusal) throw validationError(loc, refusal, 'enum');
}

/**
 * The settings' check at save: each image field sent (not blank) must be one the platform's
 * runtime runs, else a 422 at `['body', field]` with the list (or saying it takes none).
 */
export async function checkOwnerImages(runtime: SandboxRuntime | null, sent: Partial<Record<OwnerImageField, string | null | undefined>>): Promise<void> {
  for (const field of OWNER_IMAGE_FIELDS) {
    const image = sent[field]?.trim();
    if (image) await checkOwnerImage(runtime, field, image, ['body', field]);
  }
}
