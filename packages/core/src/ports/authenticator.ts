import type { Principal } from '../schemas/principal.js';

/** What a request presented: the API key from `X-Session-API-Key` or `Authorization: Bearer`. */
export interface Credentials {
  apiKey: string;
}

/** Turns request credentials into the principal they act for, or `null` when they are not valid. */
export interface Authenticator {
  authenticate(credentials: Credentials): Promise<Principal | null>;
}
