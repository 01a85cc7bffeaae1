/**
 * API key material: keys look like `ap_<43 base64url chars>` (32 random bytes); only their
 * SHA-256 is stored, and the first characters are kept as a prefix to tell keys apart.
 * @module
 */
import { createHash, randomBytes } from 'node:crypto';

export const API_KEY_PREFIX = 'ap_';
const SHOWN_PREFIX_LENGTH = API_KEY_PREFIX.length + 8;

export const generateApiKey = (): string => API_KEY_PREFIX + randomBytes(32).toString('base64url');

/** Hex SHA-256 of a key. Keys carry 256 random bits, so a fast unsalted hash is enough. */
export const hashApiKey = (key: string): string => createHash('sha256').update(key, 'utf8').digest('hex');

/** The part of a key shown in listings. */
export const apiKeyDisplayPrefix = (key: string): string => key.slice(0, Math.min(SHOWN_PREFIX_LENGTH, Math.floor(key.length / 2)));
