/**
 * The owner's `language` in the built-in agent's instructions: named in English and in itself,
 * reaching the model's system prompt (the scripted model records it); none, or a tag that is not
 * BCP 47, leaves the prompt in English without a language line.
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { AgentHarness } from '../../test-support/agent-harness.js';
import { answerLanguage } from './answer-language.js';

describe('answerLanguage', () => {
  it('names a BCP 47 tag in English and in itself, canonical', () => {
    expect(answerLanguage('de')).toEqual({ tag: 'de', name: 'German (Deutsch)' });
    expect(answerLanguage('pt-br')).toEqual({ tag: 'pt-BR', name: 'Brazilian Portuguese (português (Brasil))' });
    expect(answerLanguage('zh-CN')).toEqual({ tag: 'zh-CN', name: 'Chinese (China) (中文（中国）)' });
    expect(answerLanguage('ja')).toEqual({ tag: 'ja', name: 'Japanese (日本語)' });
    expect(answerLanguage('en')).toEqual({ tag: 'en', name: 'English' });
  });
  it('is null for none and for what is not a tag', () => {
    for (const setting of [null, undefined, '', '  ', 'not a tag', 'German', 'en_US!', 'x'.repeat(20)]) expect(answerLanguage(setting)).toBeNull();
  });
});

describe("the built-in agent in the owner's language", () => {
  const harness = new AgentHarness();
  beforeAll(() => harness.startLlm());
  afterAll(() => harness.close());
  const promptWith = async (language: string | null): Promise<string> => {
    await harness.startLlm({ turns: [{ text: 'ok' }] });
    await harness.run({ settings: harness.settings({ language }) });
    const [system] = harness.llm.requests[0]!.body.messages as { role: string; content: string }[];
    expect(system!.role).toBe('system');
    return system!.content;
  };

  it('a German owner: the model is told to write to people in German, and to keep the repository its own', async () => {
    const prompt = await promptWith('de');
    expect(prompt).toContain("The user's language is German (Deutsch), BCP 47 tag de. Write everything meant for people in German (Deutsch)");
    expect(prompt).toContain('your final message (finish)');
    expect(prompt).toContain('pull request titles and descriptions');
    expect(prompt).toContain("commit messages and branch names follow the repository's conventions");
  });

  it('no language, or a tag that is not one: no language line (English)', async () => {
    expect(await promptWith(null)).not.toContain("The user's language");
    expect(await promptWith('not a tag')).not.toContain("The user's language");
  });
});
