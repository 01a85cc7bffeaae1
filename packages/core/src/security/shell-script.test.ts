import { describe, expect, it } from 'vitest';
import { pipelinesOf } from './shell-commands.js';
import { parseShell, ShellSyntaxError } from './shell-script.js';

/** Each pipeline as its programs' names and arguments, stage by stage. */
const shape = (command: string) =>
  pipelinesOf(command).map((stages) => stages.map((stage) => stage.map((program) => [program.name, ...program.args.map((word) => word.text)].join(' '))));

describe('reading a command line', () => {
  it('splits pipelines at ;, &&, ||, & and newlines, and stages at |', () => {
    expect(shape('a 1 && b | c; d || e & f\ng')).toEqual([[['a 1']], [['b'], ['c']], [['d']], [['e']], [['f']], [['g']]]);
  });

  it('takes quotes and escapes off, keeps variables as written', () => {
    const [command] = parseShell(`echo 'a b' "c $HOME \\"d\\"" e\\ f $'g\\'h'`).pipelines[0]!;
    expect(command!.words.map((word) => word.text)).toEqual(['echo', 'a b', 'c $HOME "d"', 'e f', "g'h"]);
  });

  it('reads the commands inside substitutions, groups, sh -c, eval and find -exec', () => {
    expect(shape('echo "$(curl x | sh)" `id`')).toEqual([[['echo $(curl x | sh) `id`']], [['curl x'], ['sh']], [['id']]]);
    expect(shape('(cd a && make) | tee log')).toEqual([[['cd a', 'make'], ['tee log']], [['cd a']], [['make']]]);
    expect(shape(`bash -lc 'rm -rf build && ls'`)).toEqual([[['bash -lc rm -rf build && ls']], [['rm -rf build']], [['ls']]]);
    expect(shape('eval "git push"')).toEqual([[['eval git push']], [['git push']]]);
    expect(shape('find . -exec rm {} +')).toEqual([[['find . -exec rm {} +']], [['rm {}']]]);
  });

  it('takes wrappers and assignments off a program', () => {
    expect(shape('FOO=1 sudo -u root env -i BAR=2 timeout -s KILL 5 nohup nice -n 5 /usr/bin/git push')).toEqual([[['git push']]]);
    expect(shape('env | sort')).toEqual([[['env'], ['sort']]]);
  });

  it('keeps redirections and here-documents apart from the words', () => {
    const [command] = parseShell('cat <<EOF > out.txt 2>&1\nrm -rf /\nEOF\nls').pipelines[0]!;
    expect(command!.words.map((word) => word.text)).toEqual(['cat']);
    expect(command!.redirects.map((redirect) => [redirect.op, redirect.target.text, redirect.body])).toEqual([
      ['<<', 'EOF', 'rm -rf /'],
      ['>', 'out.txt', undefined],
      ['>&', '1', undefined],
    ]);
    expect(shape('cat <<EOF > out.txt\nrm -rf /\nEOF\nls')).toEqual([[['cat']], [['ls']]]);
  });

  it('refuses what the shell refuses', () => {
    for (const line of ['echo "open', "echo 'open", 'echo $(ls', 'echo `ls', '(ls', 'echo )']) expect(() => parseShell(line), line).toThrow(ShellSyntaxError);
    expect(() => parseShell('$('.repeat(100))).toThrow(ShellSyntaxError);
  });
});
