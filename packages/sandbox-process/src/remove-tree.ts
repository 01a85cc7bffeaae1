/**
 * `rm -rf` that also gets through directories a command made read-only.
 * @module
 */
import { chmod, lstat, readdir, rm } from 'node:fs/promises';
import { join } from 'node:path';

const RM_OPTIONS = { recursive: true, force: true, maxRetries: 5, retryDelay: 50 } as const;

/** Removes `dir` and everything below it; a missing `dir` is fine. */
export async function removeTree(dir: string): Promise<void> {
  try {
    await rm(dir, RM_OPTIONS);
  } catch (error) {
    const code = (error as NodeJS.ErrnoException).code;
    if (code !== 'EACCES' && code !== 'EPERM') throw error;
    await makeWritable(dir);
    await rm(dir, RM_OPTIONS);
  }
}

/** Gives the owner full access to every directory below `dir` (symlinks are not followed). */
async function makeWritable(dir: string): Promise<void> {
  try {
    const stats = await lstat(dir);
    if (!stats.isDirectory()) return;
    await chmod(dir, 0o700);
    for (const entry of await readdir(dir, { withFileTypes: true })) {
      if (entry.isDirectory()) await makeWritable(join(dir, entry.name));
    }
  } catch {
    // Best effort: whatever is still in the way makes the second `rm` fail with its own error.
  }
}
