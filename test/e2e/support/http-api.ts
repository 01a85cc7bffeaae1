/**
 * A small caller of a running server's API with a bearer key, for end-to-end tests.
 * @module
 */
export type ApiCall = (method: string, route: string, body?: unknown) => Promise<{ status: number; json: any }>;

export function apiClient(baseUrl: string, key: string): ApiCall {
  return async (method, route, body) => {
    const response = await fetch(baseUrl + route, {
      method,
      headers: { authorization: `Bearer ${key}`, ...(body === undefined ? {} : { 'content-type': 'application/json' }) },
      body: body === undefined ? undefined : JSON.stringify(body),
    });
    return { status: response.status, json: (await response.json().catch(() => undefined)) as any };
  };
}
