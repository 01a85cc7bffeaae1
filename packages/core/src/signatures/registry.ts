/**
 * The one list of signature schemes. A scheme is one file under `schemes/`, added here; every
 * list of names derives from this one: the schemes `verifySignature` and the signers accept,
 * the `signature_scheme` values a webhook may take (and so the OpenAPI document), the client
 * SDK's signer, and the delivery-id headers ingest deduplicates by.
 *
 * Pure (no Node built-ins): the client SDK bundles it for browsers.
 * @module
 */
import type { SignatureSchemeDefinition } from './scheme-kit/scheme.js';
import { githubScheme } from './schemes/github.js';
import { gitlabTokenScheme } from './schemes/gitlab-token.js';
import { hmacSha256Scheme } from './schemes/hmac-sha256.js';
import { linearScheme } from './schemes/linear.js';
import { slackScheme } from './schemes/slack.js';
import { standardWebhooksScheme } from './schemes/standard-webhooks.js';
import { stripeScheme } from './schemes/stripe.js';

/** Every scheme, in the order lists show them (custom webhooks' default first). */
export const SIGNATURE_SCHEME_REGISTRY = [
  hmacSha256Scheme,
  standardWebhooksScheme,
  stripeScheme,
  slackScheme,
  linearScheme,
  gitlabTokenScheme,
  githubScheme,
] as const;

type Registered = (typeof SIGNATURE_SCHEME_REGISTRY)[number];

/** The signature schemes `verifySignature` understands. */
export type SignatureSchemeName = Registered['name'];

/** The schemes a custom webhook source may use. */
export type CustomSignatureSchemeName = Extract<Registered, { customSources: true }>['name'];

/** Every {@link SignatureSchemeName}, for validation and iteration. */
export const SIGNATURE_SCHEME_NAMES: readonly SignatureSchemeName[] = SIGNATURE_SCHEME_REGISTRY.map((scheme) => scheme.name);

/** Every {@link CustomSignatureSchemeName}, in registry order (a non-empty tuple, for `z.enum`). */
export const CUSTOM_SIGNATURE_SCHEME_NAMES = SIGNATURE_SCHEME_REGISTRY.filter((scheme) => scheme.customSources).map((scheme) => scheme.name) as [
  CustomSignatureSchemeName,
  ...CustomSignatureSchemeName[],
];

/** Delivery-id headers of the registered senders, lower-cased, in registry order. */
export const DELIVERY_ID_HEADERS: readonly string[] = SIGNATURE_SCHEME_REGISTRY.flatMap((scheme) =>
  scheme.deliveryIdHeader === null ? [] : [scheme.deliveryIdHeader.toLowerCase()],
);

/** The scheme named `name`, or `undefined` for a name that is not registered. */
export function signatureScheme(name: string): SignatureSchemeDefinition | undefined {
  return SIGNATURE_SCHEME_REGISTRY.find((scheme) => scheme.name === name);
}
