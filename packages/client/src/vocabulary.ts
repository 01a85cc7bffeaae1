/**
 * The API's lists of names, taken from core where they are declared once, so an app (the console)
 * never copies them: statuses, event types, provider types, on-conflict policies, the signature
 * schemes a webhook may use, and the rule for source names. Both entries imported here are plain
 * values without Node built-ins or zod: a browser bundle takes just these lists.
 * @module
 */
import { CUSTOM_SIGNATURE_SCHEME_NAMES } from '@agent-platform/core/signature-schemes';
import type { SignatureScheme } from './transport/types.js';

export {
  DELIVERY_STATUSES,
  FINAL_RUN_STATUSES,
  GITHUB_SOURCE,
  ON_CONFLICT_POLICIES,
  OUTBOUND_EVENT_TYPES,
  OUTBOUND_MESSAGE_STATUSES,
  PROVIDER_TYPES,
  RUN_STATUSES,
  SOURCE_NAME_PATTERN,
} from '@agent-platform/core/schemas';

/** The signature schemes a custom webhook source may use, in the registry's order (its default first). */
export const SIGNATURE_SCHEMES: readonly SignatureScheme[] = CUSTOM_SIGNATURE_SCHEME_NAMES;
