/**
 * Where the console is and which page is open. The server answers every console URL with the
 * same page, its `<base href>` pointing back to the console's root, so the app learns its root
 * (and the API's, one level up) without knowing the path it is mounted under.
 */
import { useEffect, useState } from 'preact/hooks';

/** The console's root, absolute (`https://host/prefix/console/`), read once from the page's base. */
export const consoleRoot = new URL(document.baseURI);
// Pin the base to the absolute root: a relative one would move with each pushState.
document.querySelector('base')?.setAttribute('href', consoleRoot.href);

/** The API's base URL, without a trailing slash: the console is served at `{api}/console/`. */
export const apiBase = new URL('..', consoleRoot).href.replace(/\/$/, '');

export interface Route {
  /** Path segments below the console's root, decoded: `['runs', 'run_1']`. */
  segments: string[];
  query: URLSearchParams;
}

const NAVIGATE = 'console:navigate';

export function currentRoute(): Route {
  const { pathname, search } = window.location;
  const rootPath = consoleRoot.pathname;
  const below = pathname.startsWith(rootPath) ? pathname.slice(rootPath.length) : '';
  const segments = below
    .split('/')
    .filter(Boolean)
    .map((segment) => {
      try {
        return decodeURIComponent(segment);
      } catch {
        return segment;
      }
    });
  return { segments, query: new URLSearchParams(search) };
}

/** The URL path of a console page: `href('runs/run_1')` → `/console/runs/run_1`. */
export function href(path: string): string {
  return consoleRoot.pathname + path.replace(/^\/+/, '');
}

/** Opens a console page without reloading. */
export function navigate(path: string, options: { replace?: boolean } = {}): void {
  const url = href(path);
  if (options.replace) history.replaceState(null, '', url);
  else history.pushState(null, '', url);
  window.dispatchEvent(new Event(NAVIGATE));
}

/** The open page, following links, back and forward. */
export function useRoute(): Route {
  const [route, setRoute] = useState(currentRoute);
  useEffect(() => {
    const update = () => setRoute(currentRoute());
    window.addEventListener('popstate', update);
    window.addEventListener(NAVIGATE, update);
    return () => {
      window.removeEventListener('popstate', update);
      window.removeEventListener(NAVIGATE, update);
    };
  }, []);
  return route;
}

/** A path segment for a URL: ids are opaque. */
export const segment = (value: string) => encodeURIComponent(value);
