/** `AGENT_PLATFORM_SEARCH_BASE_URL`: where the built-in agent's web search goes (Tavily's API by default). */
import { describe, expect, it } from 'vitest';
import { ConfigError, loadConfig } from './config.js';

describe('AGENT_PLATFORM_SEARCH_BASE_URL', () => {
  it("is Tavily's own API when unset", () => {
    expect(loadConfig({}).searchBaseUrl).toBeNull();
    expect(loadConfig({ AGENT_PLATFORM_SEARCH_BASE_URL: ' ' }).searchBaseUrl).toBeNull();
  });
  it('takes an absolute http(s) URL, without its trailing slash', () => {
    expect(loadConfig({ AGENT_PLATFORM_SEARCH_BASE_URL: 'https://search-proxy.internal/tavily/' }).searchBaseUrl).toBe('https://search-proxy.internal/tavily');
    expect(loadConfig({ AGENT_PLATFORM_SEARCH_BASE_URL: 'http://127.0.0.1:8080' }).searchBaseUrl).toBe('http://127.0.0.1:8080');
  });
  it('stops the server, naming the variable, for anything else', () => {
    for (const value of ['api.tavily.com', 'ftp://search.example.com', 'https://'])
      expect(() => loadConfig({ AGENT_PLATFORM_SEARCH_BASE_URL: value })).toThrow(ConfigError);
    expect(() => loadConfig({ AGENT_PLATFORM_SEARCH_BASE_URL: 'api.tavily.com' })).toThrow(/^AGENT_PLATFORM_SEARCH_BASE_URL must be an absolute http\(s\) URL/);
  });
});
