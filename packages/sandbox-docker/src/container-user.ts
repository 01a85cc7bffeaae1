/**
 * The user a sandbox runs as, in numbers: the Engine's archive endpoint writes files with the
 * owner their tar headers give (root unless told), so for a non-root user the runtime needs its
 * uid and gid — from the container's own `/etc/passwd` and `/etc/group`, read through the same
 * endpoint (no tool in the image needed).
 * @module
 */
import type { Readable } from 'node:stream';
import type Dockerode from 'dockerode';
import { extract } from 'tar-stream';
import { isNotFound } from './docker-errors.js';

/** Numeric owner of what the runtime writes into a sandbox. */
export interface Ownership {
  uid: number;
  gid: number;
}

const NUMBER = /^\d+$/;
/** Larger files are not account databases; they are not read whole. */
const MAX_ACCOUNT_FILE_BYTES = 1024 * 1024;

/**
 * The owner for a container's `User` (`name`, `uid`, `name:group`, `uid:gid`); null for root
 * (or none), whose files need no owner set. As the container runtime does, a user without a
 * passwd entry must be numeric, and its group is then 0 unless given.
 */
export async function resolveOwnership(container: Dockerode.Container, user: string | undefined): Promise<Ownership | null> {
  if (!user) return null;
  const [userPart = '', groupPart] = user.split(':', 2);
  const passwd = NUMBER.test(userPart) && groupPart !== undefined && NUMBER.test(groupPart) ? null : await accountFile(container, '/etc/passwd');
  let uid: number;
  let gid: number;
  const entry = passwd
    ?.split('\n')
    .map((line) => line.split(':'))
    .find((fields) => fields[0] === userPart || (NUMBER.test(userPart) && fields[2] === userPart));
  if (NUMBER.test(userPart)) {
    uid = Number(userPart);
    gid = entry?.[3] && NUMBER.test(entry[3]) ? Number(entry[3]) : 0;
  } else if (entry?.[2] && NUMBER.test(entry[2]) && entry[3] && NUMBER.test(entry[3])) {
    uid = Number(entry[2]);
    gid = Number(entry[3]);
  } else {
    throw new Error(`user ${JSON.stringify(userPart)} is not in the sandbox image's /etc/passwd`);
  }
  if (groupPart !== undefined) {
    if (NUMBER.test(groupPart)) gid = Number(groupPart);
    else {
      const group = (await accountFile(container, '/etc/group'))
        ?.split('\n')
        .map((line) => line.split(':'))
        .find((fields) => fields[0] === groupPart);
      if (!group?.[2] || !NUMBER.test(group[2])) throw new Error(`group ${JSON.stringify(groupPart)} is not in the sandbox image's /etc/group`);
      gid = Number(group[2]);
    }
  }
  return uid === 0 && gid === 0 ? null : { uid, gid };
}

/** A small file of the container, or null when it has none. */
async function accountFile(container: Dockerode.Container, path: string): Promise<string | null> {
  let archive: Readable;
  try {
    archive = (await container.getArchive({ path })) as unknown as Readable;
  } catch (error) {
    if (isNotFound(error)) return null;
    throw error;
  }
  return new Promise<string | null>((resolve, reject) => {
    const reader = extract();
    let content: string | null = null;
    reader.on('entry', (header, stream, next) => {
      const chunks: Buffer[] = [];
      let size = 0;
      stream.on('data', (data: unknown) => {
        const chunk = data as Buffer;
        size += chunk.length;
        if (size <= MAX_ACCOUNT_FILE_BYTES) chunks.push(chunk);
      });
      stream.on('end', () => {
        if (content === null && header.type === 'file' && size <= MAX_ACCOUNT_FILE_BYTES) content = Buffer.concat(chunks).toString('utf8');
        next();
      });
      stream.on('error', reject);
    });
    reader.on('finish', () => resolve(content));
    reader.on('error', reject);
    archive.on('error', reject);
    archive.pipe(reader);
  });
}
