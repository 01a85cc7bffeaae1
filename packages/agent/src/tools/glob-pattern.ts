/**
 * Glob patterns as the `glob` and `grep` tools take them: `*` within a name, `**` across
 * directories, `?` one character, `[abc]` / `[!abc]` one of (or none of) a set, `{a,b}` either.
 * @module
 */

const escapeRegExp = (text: string): string => text.replace(/[.*+?^${}()|[\]\\/]/g, '\\$&');

/** The pattern as an anchored regular expression over `/`-separated paths; throws on an unclosed `{`. */
export function globRegExp(pattern: string): RegExp {
  let source = '';
  let braces = 0;
  for (let i = 0; i < pattern.length; i++) {
    const c = pattern[i] as string;
    if (c === '*' && pattern[i + 1] === '*') {
      // `**/` is any number of directories (none too); `**` elsewhere, anything.
      const slash = pattern[i + 2] === '/';
      source += slash ? '(?:.*/)?' : '.*';
      i += slash ? 2 : 1;
    } else if (c === '*') source += '[^/]*';
    else if (c === '?') source += '[^/]';
    else if (c === '{') {
      source += '(?:';
      braces++;
    } else if (c === '}' && braces > 0) {
      source += ')';
      braces--;
    } else if (c === ',' && braces > 0) source += '|';
    else if (c === '[' && pattern.indexOf(']', i + 2) !== -1) {
      const end = pattern.indexOf(']', i + 2);
      const body = pattern.slice(i + 1, end);
      const negated = body.startsWith('!') || body.startsWith('^');
      const members = (negated ? body.slice(1) : body).replace(/[\\\]^]/g, '\\$&');
      source += `[${negated ? '^/' : ''}${members}]`;
      i = end;
    } else source += escapeRegExp(c);
  }
  if (braces > 0) throw new Error(`the pattern ${JSON.stringify(pattern)} has a { without its }`);
  return new RegExp(`^${source}$`);
}

/**
 * Whether `path` (relative, `/`-separated) matches `pattern`: a pattern without `/` is matched
 * against the file's name at any depth (`*.md`), one with `/` against the whole path.
 */
export function globMatcher(pattern: string): (path: string) => boolean {
  const regExp = globRegExp(pattern);
  if (pattern.includes('/')) return (path) => regExp.test(path);
  return (path) => regExp.test(path.slice(path.lastIndexOf('/') + 1));
}
