/** Small pieces every page uses: headings, errors, times, JSON, links, confirmations, secrets shown once. */
import { isAgentPlatformError, isAgentPlatformConnectionError } from '@agent-platform/client';
import type { ComponentChildren } from 'preact';
import { useEffect, useRef, useState } from 'preact/hooks';
import { formatDateTime } from './format.js';
import { href, navigate } from './router.js';

/** The page's `<h1>`, focused when the page opens so a screen reader starts there. */
export function PageTitle({ children }: { children: ComponentChildren }) {
  const ref = useRef<HTMLHeadingElement>(null);
  useEffect(() => {
    ref.current?.focus({ preventScroll: true });
  }, []);
  return (
    <h1 ref={ref} tabIndex={-1}>
      {children}
    </h1>
  );
}

/** A link to a console page, opened without reloading. */
export function Link({ to, children, ...rest }: { to: string; children: ComponentChildren; role?: 'button'; 'aria-current'?: 'page'; class?: string }) {
  return (
    <a
      {...rest}
      href={href(to)}
      onClick={(event: MouseEvent) => {
        if (event.defaultPrevented || event.button !== 0 || event.metaKey || event.ctrlKey || event.shiftKey || event.altKey) return;
        event.preventDefault();
        navigate(to);
      }}
    >
      {children}
    </a>
  );
}

/** What went wrong, in words: the platform's `detail`, each validation issue with its field. */
export function describeError(error: unknown): { message: string; issues: string[] } {
  if (isAgentPlatformError(error)) {
    const issues = error.issues.map((issue) => `${issue.loc.filter((part) => part !== 'body').join('.') || 'body'}: ${issue.msg}`);
    const message = typeof error.detail === 'string' ? error.detail : 'The request was not valid';
    return { message: error.status === 401 ? `${message}. Sign out and sign in with a valid API key.` : message, issues };
  }
  if (isAgentPlatformConnectionError(error)) return { message: 'The platform could not be reached. Retrying…', issues: [] };
  return { message: error instanceof Error ? error.message : String(error), issues: [] };
}

/** An error, announced as an alert. */
export function ErrorNotice({ error, context }: { error: unknown; context?: string }) {
  if (error === undefined || error === null) return null;
  const { message, issues } = describeError(error);
  return (
    <div role="alert" class="notice error">
      <p>
        {context ? `${context}: ` : ''}
        {message}
      </p>
      {issues.length > 0 && (
        <ul>
          {issues.map((issue) => (
            <li key={issue}>{issue}</li>
          ))}
        </ul>
      )}
    </div>
  );
}

/** A result announced politely (saved, replayed, ...). */
export function StatusNote({ children }: { children: ComponentChildren }) {
  return (
    <p role="status" class="notice ok">
      {children}
    </p>
  );
}

/** An instant, written in the user's language (format.ts), with the machine-readable value kept. */
export function Time({ value }: { value: string | null | undefined }) {
  if (!value) return <span class="muted">—</span>;
  return <time dateTime={value}>{formatDateTime(value)}</time>;
}

/** A status as a labelled badge (`RUNNING`, `matched`, ...). */
export function Badge({ value }: { value: string }) {
  return <span class={`badge badge-${value.toLowerCase().replace(/[^a-z_]/g, '')}`}>{value}</span>;
}

/**
 * A sandbox's status, with what MISSING means: the runtime no longer has it — an automation run's
 * sandbox is deleted when the run ends, and one on a host that went away is lost with it.
 */
export function SandboxStatusBadge({ value }: { value: string }) {
  return (
    <>
      <Badge value={value} />
      {value === 'MISSING' && <small class="detail">gone: deleted when its run ended, or lost with its host</small>}
    </>
  );
}

export function Json({ value, label }: { value: unknown; label: string }) {
  return (
    <figure aria-label={label}>
      {/* biome-ignore lint/a11y/noNoninteractiveTabindex: the block scrolls on its own; keyboard users need to focus it to scroll it (WCAG 2.1.1, axe scrollable-region-focusable) */}
      <pre class="json" tabIndex={0}>
        <code>{JSON.stringify(value, null, 2)}</code>
      </pre>
    </figure>
  );
}

/** Text only screen readers read: what a short visible label leaves out ("Cancel" → "Cancel run run_1"). */
export const Hidden = ({ children }: { children: ComponentChildren }) => <span class="visually-hidden">{children}</span>;

/**
 * A button that asks once more before it acts (delete, cancel): the first press shows the
 * question with a confirm and a keep button, focused on the keep one.
 */
export function ConfirmButton(props: {
  label: string;
  hidden?: string;
  question: string;
  confirm: string;
  onConfirm: () => void | Promise<void>;
  busy?: boolean;
  class?: string;
}) {
  const [asking, setAsking] = useState(false);
  const keepRef = useRef<HTMLButtonElement>(null);
  useEffect(() => {
    if (asking) keepRef.current?.focus();
  }, [asking]);
  if (!asking) {
    return (
      <button type="button" class={props.class ?? 'secondary outline'} aria-busy={props.busy ? 'true' : undefined} onClick={() => setAsking(true)}>
        {props.label}
        {props.hidden && <Hidden> {props.hidden}</Hidden>}
      </button>
    );
  }
  return (
    <fieldset aria-label={props.question} class="confirm">
      <span>{props.question}</span>{' '}
      <button
        type="button"
        class="contrast"
        onClick={async () => {
          setAsking(false);
          await props.onConfirm();
        }}
      >
        {props.confirm}
      </button>{' '}
      <button type="button" class="secondary" ref={keepRef} onClick={() => setAsking(false)}>
        Keep
      </button>
    </fieldset>
  );
}

/**
 * A secret the platform shows this once (a webhook's or a subscription's signing secret): shown
 * with a plain note that it cannot be shown again, a copy button, and a button that hides it for
 * good. `holder` says who needs it: the sender of inbound events, or the receiver of outbound ones.
 */
export function SecretOnce({
  title,
  secret,
  subject,
  holder = 'sender',
  onDone,
}: {
  title: string;
  secret: string;
  subject: string;
  holder?: 'sender' | 'receiver';
  onDone: () => void;
}) {
  const inputRef = useRef<HTMLInputElement>(null);
  const [copied, setCopied] = useState<string | null>(null);
  useEffect(() => {
    inputRef.current?.focus();
    inputRef.current?.select();
  }, [secret]);
  const copy = async () => {
    try {
      await navigator.clipboard.writeText(secret);
      setCopied('Copied to the clipboard.');
    } catch {
      inputRef.current?.select();
      setCopied('Copying was not allowed here: the secret is selected, copy it with the keyboard.');
    }
  };
  return (
    <article class="secret-once" aria-labelledby="secret-once-title">
      <h2 id="secret-once-title">{title}</h2>
      <p>
        <strong>Copy it now: this is the only time it is shown.</strong> The platform keeps {subject}'s signing secret encrypted and never shows it again. Put
        it in the {holder}'s settings; if it is lost, rotate the secret.
      </p>
      <label>
        Signing secret
        <input ref={inputRef} type="text" readOnly value={secret} spellcheck={false} autocomplete="off" class="secret-value" />
      </label>
      <div class="actions">
        <button type="button" onClick={copy}>
          Copy secret
        </button>
        <button type="button" class="secondary" onClick={onDone}>
          I have copied it
        </button>
      </div>
      {copied && <p role="status">{copied}</p>}
    </article>
  );
}

/** A definition list of labelled values (a record's fields). */
export function Fields({ rows }: { rows: [string, ComponentChildren][] }) {
  return (
    <dl class="fields">
      {rows.map(([label, value]) => (
        <div key={label}>
          <dt>{label}</dt>
          <dd>{value ?? <span class="muted">—</span>}</dd>
        </div>
      ))}
    </dl>
  );
}

export const Muted = ({ children }: { children: ComponentChildren }) => <span class="muted">{children}</span>;

/** The value of a form field by name, trimmed; `null` when empty. */
export function fieldValue(form: HTMLFormElement, name: string): string | null {
  const element = form.elements.namedItem(name);
  if (!element || !('value' in element)) return null;
  const value = String(element.value).trim();
  return value === '' ? null : value;
}

/**
 * An `<input pattern>` from one of the API's anchored patterns: the browser anchors a pattern
 * itself, so the form refuses what the API would, before it is sent.
 */
export const inputPattern = (pattern: RegExp): string => pattern.source.replace(/^\^/, '').replace(/\$$/, '');

export function checked(form: HTMLFormElement, name: string): boolean {
  const element = form.elements.namedItem(name);
  return element instanceof HTMLInputElement && element.checked;
}
