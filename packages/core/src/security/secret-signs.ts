/**
 * What marks a secret in a command or a path, for the `policy` analyzer: files that hold
 * credentials (`~/.git-credentials`, `.netrc`, `~/.ssh/id_*`, `.env`, …), variables that hold
 * them (the run's own secrets by name, and names like `*_TOKEN`), and the hosts a token may be
 * sent to because they are the owner's code hosts (there it authenticates).
 * @module
 */

/** Files that hold credentials, anywhere in a word (`@~/.git-credentials`, `--data-binary=@.env`). */
const CREDENTIAL_FILES = [
  /(?:^|[\s/~@=:'"])\.git-credentials(?![\w.-])/,
  /(?:^|[\s/~@=:'"])\.netrc(?![\w.-])/,
  /(?:^|[\s/~@=:'"])\.pgpass(?![\w.-])/,
  /(?:^|[\s/~@=:'"])\.npmrc(?![\w.-])/,
  /(?:^|[\s/~@=:'"])\.pypirc(?![\w.-])/,
  /(?:^|[\s/~@=:'"])\.env(?!\.(?:example|sample|template|dist)\b)(?:\.[\w-]+)*(?![\w-])/,
  /(?:^|[\s/~@=:'"])\.envrc(?![\w.-])/,
  /(?:^|[\s/~@=:'"])\.ssh(?![\w.-])/,
  /(?:^|[\s/~@=:'"])id_(?:rsa|dsa|ecdsa|ed25519)(?![\w.])/,
  /\.aws\/credentials/,
  /\.docker\/config\.json/,
  /\.kube\/config/,
  /\.config\/gh\/hosts\.yml/,
  /\.config\/gcloud\//,
  /\/proc\/[^/\s]+\/environ/,
];

/** Whether `text` names a file that holds credentials. */
export const namesCredentialFile = (text: string): boolean => CREDENTIAL_FILES.some((pattern) => pattern.test(text));

/** Variable names that say they hold a secret. */
const SECRET_NAME = /TOKEN|SECRET|PASSW(?:OR)?D|API_?KEY|ACCESS_?KEY|PRIVATE_?KEY|CREDENTIAL/i;

/** The variables `text` refers to (`$NAME`, `${NAME…}`) that hold secrets: one of `known`, or named like one. */
export function secretVariablesIn(text: string, known: readonly string[]): string[] {
  const found: string[] = [];
  for (const match of text.matchAll(/\$\{?([A-Za-z_][A-Za-z0-9_]*)/g)) {
    const name = match[1] as string;
    if ((known.includes(name) || SECRET_NAME.test(name)) && !found.includes(name)) found.push(name);
  }
  return found;
}

/** Code hosts a token may go to whatever the owner's settings say. */
const KNOWN_CODE_HOSTS = ['github.com', 'gitlab.com', 'bitbucket.org'];

/** The hosts of the URLs in `text` (`https://host/…`, `git@host:…`). */
export function hostsIn(text: string): string[] {
  const hosts: string[] = [];
  for (const match of text.matchAll(/\b[a-z][a-z0-9+.-]*:\/\/(?:[^\s/@]*@)?(\[[^\]]+\]|[^\s/:?#'"]+)/gi)) hosts.push((match[1] as string).toLowerCase());
  for (const match of text.matchAll(/(?:^|\s)[\w.-]+@([\w.-]+):/g)) hosts.push((match[1] as string).toLowerCase());
  return hosts;
}

/** Whether `host` is github.com, gitlab.com, bitbucket.org (or under one), or one of the owner's `codeHosts`. */
export function isCodeHost(host: string, codeHosts: readonly string[]): boolean {
  const name = host.toLowerCase();
  return [...KNOWN_CODE_HOSTS, ...codeHosts.map((one) => one.toLowerCase())].some((known) => name === known || name.endsWith(`.${known}`));
}

/** A code host's name from a setting that may be a URL (`https://github.example.com`) or a bare host. */
export function hostOf(value: string): string | null {
  const trimmed = value.trim();
  if (!trimmed) return null;
  try {
    return new URL(trimmed.includes('://') ? trimmed : `https://${trimmed}`).hostname.toLowerCase() || null;
  } catch {
    return null;
  }
}
