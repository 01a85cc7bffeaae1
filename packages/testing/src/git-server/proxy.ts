/**
 * A host stand-in's git traffic, passed through: the GitHub, GitLab and Bitbucket stand-ins answer
 * their API themselves and hand every clone, fetch and push (the smart HTTP protocol) to the real
 * git server behind them, as the hosts' own front ends do.
 * @module
 */
import { type IncomingMessage, request as httpRequest, type ServerResponse } from 'node:http';
import type { GitServer } from './git-server.js';

/** Forwards `req` to `git` as it came (its path, method, headers and body) and streams the answer back; 502 when the git server is unreachable. */
export function proxyToGitServer(git: GitServer, req: IncomingMessage, res: ServerResponse): void {
  const target = new URL(req.url ?? '/', git.url);
  const upstream = httpRequest(target, { method: req.method, headers: { ...req.headers, host: target.host } }, (answer) => {
    res.writeHead(answer.statusCode ?? 502, answer.headers);
    answer.pipe(res);
  });
  upstream.on('error', (error) => {
    if (!res.headersSent) res.writeHead(502, { 'content-type': 'text/plain' });
    res.end(`git server unreachable: ${error.message}\n`);
  });
  req.pipe(upstream);
}
