import { z } from 'zod';
import { timestampSchema } from './common.js';
import { roleSchema } from './principal.js';

/**
 * A user's place in an org, as console sign-in (OpenID Connect) gives it: made on the user's
 * first sign-in with the role the configured mapping says, and kept afterwards — a later
 * sign-in never changes the role, so a role an owner changed stays changed.
 */
export const membershipRecordSchema = z.object({
  org_id: z.string().min(1),
  user_id: z.string().min(1),
  role: roleSchema,
  /** The email the provider gave at first sign-in, for people reading the list; `null` when it gave none. */
  email: z.string().nullable(),
  created_at: timestampSchema,
});
export type MembershipRecord = z.infer<typeof membershipRecordSchema>;

/** `GET /api/automation/v1/members`: the org's memberships, oldest first. */
export const memberListSchema = z.object({ members: z.array(membershipRecordSchema) });
export type MemberList = z.infer<typeof memberListSchema>;

/**
 * Body of `PATCH /api/automation/v1/members/{user_id}`: the member's new role. Strict, so a
 * misspelt field is a 422 rather than a silent no-op; the email and dates are the provider's.
 */
export const memberRoleInputSchema = z.strictObject({ role: roleSchema });
export type MemberRoleInput = z.infer<typeof memberRoleInputSchema>;

/**
 * A console session, as stored: never the session id itself (it lives only in the browser's
 * HttpOnly cookie), only its SHA-256, so a copy of the table signs nobody in. The CSRF token is
 * derived from the id (see `sign-in/session-material.ts`), so nothing of it is stored either.
 */
export const consoleSessionRecordSchema = z.object({
  /** Hex SHA-256 of the session id. */
  id_hash: z.string().regex(/^[0-9a-f]{64}$/),
  user_id: z.string().min(1),
  org_id: z.string().min(1),
  /** The role at sign-in, for display; requests are judged by the membership's role at the time. */
  role: roleSchema,
  email: z.string().nullable(),
  /** The name the provider gave (`name` claim), for the console's masthead. */
  name: z.string().nullable(),
  created_at: timestampSchema,
  /** Past this the session is refused (and deleted when next presented). */
  expires_at: timestampSchema,
});
export type ConsoleSessionRecord = z.infer<typeof consoleSessionRecordSchema>;

/** `GET /auth/session`: who the cookie signs in, and the CSRF token unsafe requests must carry. */
export const consoleSessionViewSchema = z.object({
  user_id: z.string(),
  org_id: z.string(),
  role: roleSchema,
  email: z.string().nullable(),
  name: z.string().nullable(),
  expires_at: timestampSchema,
  csrf_token: z.string(),
});
export type ConsoleSessionView = z.infer<typeof consoleSessionViewSchema>;

/**
 * The answer of `GET /auth/session`: the sign-in offered (the provider's name, shown on the
 * console's button; the browser goes to `/auth/oidc/login`) and the session, if any.
 */
export const authSessionResponseSchema = z.object({
  sign_in: z.object({ provider: z.string() }),
  session: consoleSessionViewSchema.nullable(),
});
export type AuthSessionResponse = z.infer<typeof authSessionResponseSchema>;
