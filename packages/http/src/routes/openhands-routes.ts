/**
 * The OpenHands app-server endpoints the platform serves beyond its own API (DESIGN §14), so the
 * published `@openhands/typescript-client` `CloudClient` works against it.
 * @module
 */
import type { RouteDefinition } from '../types.js';

export const openHandsRoutes: RouteDefinition[] = [];
