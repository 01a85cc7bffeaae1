/**
 * The API reference: Swagger UI over the platform's `/openapi.json`. Swagger UI's files are served
 * by the console itself (from `swagger-ui-dist`, no CDN) and loaded when this page opens; "Try it
 * out" sends the signed-in API key.
 */
import type { SwaggerUIBundle } from 'swagger-ui-dist';
import { useEffect, useRef, useState } from 'preact/hooks';
import { ErrorNotice, PageTitle } from '../components.js';
import { apiBase, consoleRoot } from '../router.js';
import { useSession } from '../session.js';
import { demoteNestedMain } from '../swagger-landmarks.js';

/** The hashed names of Swagger UI's files, set by the console's build. */
declare const __CONSOLE_SWAGGER__: { script: string; stylesheet: string };

let loading: Promise<SwaggerUIBundle> | undefined;

/** Adds Swagger UI's stylesheet and script to the page once; answers its global. */
function loadSwaggerUi(): Promise<SwaggerUIBundle> {
  loading ??= new Promise<SwaggerUIBundle>((resolve, reject) => {
    const stylesheet = document.createElement('link');
    stylesheet.rel = 'stylesheet';
    stylesheet.href = new URL(__CONSOLE_SWAGGER__.stylesheet, consoleRoot).href;
    document.head.append(stylesheet);
    const script = document.createElement('script');
    script.src = new URL(__CONSOLE_SWAGGER__.script, consoleRoot).href;
    script.onload = () => {
      const bundle = (window as unknown as { SwaggerUIBundle?: SwaggerUIBundle }).SwaggerUIBundle;
      if (bundle) resolve(bundle);
      else reject(new Error('Swagger UI did not load'));
    };
    script.onerror = () => {
      loading = undefined;
      reject(new Error('Swagger UI could not be loaded'));
    };
    document.head.append(script);
  });
  return loading;
}

export function ApiReferencePage() {
  const session = useSession();
  const container = useRef<HTMLDivElement>(null);
  const [error, setError] = useState<unknown>(undefined);
  useEffect(() => (container.current ? demoteNestedMain(container.current) : undefined), []);
  useEffect(() => {
    let cancelled = false;
    loadSwaggerUi().then(
      (SwaggerUI) => {
        if (cancelled || !container.current) return;
        SwaggerUI({
          url: `${apiBase}/openapi.json`,
          domNode: container.current,
          deepLinking: false,
          // The public validator badge would call another origin.
          validatorUrl: null,
          presets: [SwaggerUI.presets.apis],
          layout: 'BaseLayout',
          requestInterceptor: (request) => {
            // A cookie session's calls carry its CSRF token instead (the cookie goes by itself).
            request.headers = session.apiKey
              ? { ...request.headers, authorization: `Bearer ${session.apiKey}` }
              : { ...request.headers, ...(session.csrfToken ? { 'x-csrf-token': session.csrfToken } : {}) };
            return request;
          },
        } as Parameters<SwaggerUIBundle>[0] & { validatorUrl: null });
      },
      (caught: unknown) => !cancelled && setError(caught),
    );
    return () => {
      cancelled = true;
    };
  }, [session.apiKey, session.csrfToken]);
  return (
    <>
      <PageTitle>API reference</PageTitle>
      <p>
        Every endpoint, from the platform's OpenAPI document (<a href={`${apiBase}/openapi.json`}>openapi.json</a>). "Try it out" sends your API key.
      </p>
      <ErrorNotice error={error} />
      <div ref={container} class="swagger" />
    </>
  );
}
