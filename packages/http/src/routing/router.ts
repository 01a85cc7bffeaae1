import type { AnyRoute } from './define-route.js';
import type { HttpMethod } from '../exchange/types.js';

interface CompiledRoute {
  route: AnyRoute;
  segments: string[];
}

export type RouteMatch =
  /** `params` are as they appear in the path, still percent-encoded. */
  | { kind: 'found'; route: AnyRoute; params: Record<string, string> }
  | { kind: 'method-not-allowed'; allow: HttpMethod[]; params: Record<string, string> }
  | { kind: 'not-found' };

const isParam = (segment: string) => segment.startsWith('{') && segment.endsWith('}');

/**
 * Matches a path against the route table. Static segments win over parameters at the same
 * position, so `/api/automation/v1/webhooks` is never read as `/api/automation/v1/{id}`.
 */
export class Router {
  private readonly routes: CompiledRoute[];

  constructor(routes: readonly AnyRoute[]) {
    this.routes = routes.map((route) => ({ route, segments: route.path.split('/').slice(1) }));
  }

  match(method: string, path: string): RouteMatch {
    const parts = path.split('/').slice(1);
    let best: { compiled: CompiledRoute; params: Record<string, string>; score: number }[] = [];
    let bestScore = -1;
    for (const compiled of this.routes) {
      const params = matchSegments(compiled.segments, parts);
      if (!params) continue;
      const score = staticScore(compiled.segments);
      if (score > bestScore) {
        bestScore = score;
        best = [];
      }
      if (score === bestScore) best.push({ compiled, params, score });
    }
    if (best.length === 0) return { kind: 'not-found' };
    const wanted = method === 'HEAD' ? 'GET' : method;
    const hit = best.find((candidate) => candidate.compiled.route.method === wanted);
    if (hit) return { kind: 'found', route: hit.compiled.route, params: hit.params };
    return {
      kind: 'method-not-allowed',
      allow: best.map((candidate) => candidate.compiled.route.method),
      params: (best[0] as { params: Record<string, string> }).params,
    };
  }
}

function matchSegments(segments: string[], parts: string[]): Record<string, string> | null {
  if (segments.length !== parts.length) return null;
  const params: Record<string, string> = {};
  for (let i = 0; i < segments.length; i++) {
    const segment = segments[i] as string;
    const part = parts[i] as string;
    if (isParam(segment)) {
      if (part === '') return null;
      // Kept percent-encoded: the handler decodes and checks them (404 for one that cannot be an id).
      params[segment.slice(1, -1)] = part;
    } else if (segment !== part) {
      return null;
    }
  }
  return params;
}

/** A score that ranks earlier static segments above later ones. */
function staticScore(segments: string[]): number {
  return segments.reduce((score, segment, index) => score + (isParam(segment) ? 0 : 2 ** (segments.length - index)), 0);
}
