/** A terminal block: the command, its output line by line in its colours (ansi.ts), and how it exited. */
import { ansiLines } from './ansi.js';

/** Lines shown before the rest is folded away (opened with "Show all"). */
const SHOWN_LINES = 200;

/** Output lines in a block that scrolls sideways on its own (the page never does). */
function Lines({ lines, from }: { lines: ReturnType<typeof ansiLines>; from: number }) {
  return (
    // biome-ignore lint/a11y/noNoninteractiveTabindex: long lines scroll in the block; keyboard users focus it to scroll it (WCAG 2.1.1)
    <pre class="terminal-output" tabIndex={0}>
      {lines.map((spans, index) => (
        <span class="term-line" key={from + index}>
          {spans.map((span, at) =>
            span.classes ? (
              <span key={at} class={span.classes}>
                {span.text}
              </span>
            ) : (
              span.text
            ),
          )}
          {'\n'}
        </span>
      ))}
    </pre>
  );
}

/** Output as a terminal shows it; past {@link SHOWN_LINES} lines the rest opens on demand. */
export function TerminalOutput({ text }: { text: string }) {
  const lines = ansiLines(text.replace(/\n$/, ''));
  return (
    <>
      <Lines lines={lines.slice(0, SHOWN_LINES)} from={0} />
      {lines.length > SHOWN_LINES && (
        <details>
          <summary>Show the other {lines.length - SHOWN_LINES} lines</summary>
          <Lines lines={lines.slice(SHOWN_LINES)} from={SHOWN_LINES} />
        </details>
      )}
    </>
  );
}

export function TerminalBlock({ command, output, exitCode }: { command: string; output: string | null; exitCode: number | null }) {
  return (
    <figure class="terminal" aria-label={`Command ${command.length > 80 ? `${command.slice(0, 80)}…` : command}`}>
      {/* biome-ignore lint/a11y/noNoninteractiveTabindex: a long command scrolls in its block; keyboard users focus it to scroll it (WCAG 2.1.1) */}
      <pre class="terminal-command" tabIndex={0}>
        <span aria-hidden="true">$ </span>
        <code>{command}</code>
      </pre>
      {output === null ? <p class="muted">Running…</p> : output !== '' && <TerminalOutput text={output} />}
      {exitCode !== null && <p class={`terminal-exit ${exitCode === 0 ? 'ok' : 'failed'}`}>exit code {exitCode}</p>}
    </figure>
  );
}
