import { describe, expect, it } from 'vitest';
import { expandBraces, findFiles } from './file-search.js';
import { globMatcher } from './glob-pattern.js';

describe('glob patterns', () => {
  const paths = ['README.md', 'docs/guide.md', 'src/app.ts', 'src/app.test.ts', 'src/lib/util.ts', 'src/lib/util.tsx', 'src/a.b/c.ts', 'x.ts'];
  const matching = (pattern: string) => paths.filter(globMatcher(pattern));

  it('matches a pattern without / against file names at any depth', () => {
    expect(matching('*.md')).toEqual(['README.md', 'docs/guide.md']);
    expect(matching('util.ts?')).toEqual(['src/lib/util.tsx']);
    expect(matching('*.{ts,tsx}')).toEqual(['src/app.ts', 'src/app.test.ts', 'src/lib/util.ts', 'src/lib/util.tsx', 'src/a.b/c.ts', 'x.ts']);
  });

  it('matches a pattern with / against the whole path: * stays within a directory, ** crosses them (none too)', () => {
    expect(matching('src/*.ts')).toEqual(['src/app.ts', 'src/app.test.ts']);
    expect(matching('src/**/*.ts')).toEqual(['src/app.ts', 'src/app.test.ts', 'src/lib/util.ts', 'src/a.b/c.ts']);
    expect(matching('**/*.test.ts')).toEqual(['src/app.test.ts']);
    expect(matching('src/a.b/*')).toEqual(['src/a.b/c.ts']);
    expect(matching('src/a?b/*')).toEqual(['src/a.b/c.ts']);
    expect(matching('src/[al]*/*')).toEqual(['src/lib/util.ts', 'src/lib/util.tsx', 'src/a.b/c.ts']);
    expect(matching('src/[!l]*/*')).toEqual(['src/a.b/c.ts']);
  });

  it('takes regular-expression characters literally and refuses an unclosed brace', () => {
    expect(globMatcher('a+b(c).ts')('a+b(c).ts')).toBe(true);
    expect(globMatcher('a+b(c).ts')('aab(c)xts')).toBe(false);
    expect(() => globMatcher('*.{ts')).toThrow('has a { without its }');
  });

  it('expands braces for find, nested too', () => {
    expect(expandBraces('*.ts')).toEqual(['*.ts']);
    expect(expandBraces('*.{ts,tsx}')).toEqual(['*.ts', '*.tsx']);
    expect(expandBraces('{a,b{1,2}}.md')).toEqual(['a.md', 'b1.md', 'b2.md']);
    expect(() => expandBraces('{a,b')).toThrow('has a { without its }');
  });

  it('walks from a quoted root, never one find takes for an option', () => {
    expect(findFiles("it's", '', '-print')).toBe(`find 'it'\\''s' \\( -name '.git' -o -name 'node_modules' \\) -prune -o -type f -print`);
    expect(findFiles('-delete', '', '-print')).toMatch(/^find '\.\/-delete' /);
  });
});
