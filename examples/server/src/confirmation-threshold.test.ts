import { describe, expect, it } from 'vitest';
import { ConfigError, loadConfig, parseConfirmationThreshold } from './config.js';

describe('AGENT_PLATFORM_CONFIRMATION_THRESHOLD', () => {
  it('is HIGH unless set; takes low, medium or high in any case', () => {
    expect(loadConfig({}).confirmationThreshold).toBe('HIGH');
    expect(loadConfig({ AGENT_PLATFORM_CONFIRMATION_THRESHOLD: 'medium' }).confirmationThreshold).toBe('MEDIUM');
    expect(parseConfirmationThreshold(' Low ')).toBe('LOW');
    expect(parseConfirmationThreshold('')).toBe('HIGH');
  });

  it('refuses anything else, naming the variable', () => {
    expect(() => parseConfirmationThreshold('unknown')).toThrow(ConfigError);
    expect(() => parseConfirmationThreshold('critical')).toThrow('AGENT_PLATFORM_CONFIRMATION_THRESHOLD must be low, medium or high, got "critical"');
  });
});
