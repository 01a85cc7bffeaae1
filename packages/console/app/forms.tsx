/** The pieces every form of the console repeats: submitting to an action, its button and failure, a select's options. */
import type { ComponentChildren } from 'preact';
import { ErrorNotice } from './components.js';

/** A form that hands itself to `onSubmit` instead of loading a page. */
export function ActionForm({
  onSubmit,
  children,
  ...rest
}: {
  onSubmit: (form: HTMLFormElement) => unknown;
  children: ComponentChildren;
  'aria-label'?: string;
  'aria-labelledby'?: string;
  class?: string;
}) {
  return (
    <form
      {...rest}
      onSubmit={(event) => {
        event.preventDefault();
        void onSubmit(event.currentTarget as HTMLFormElement);
      }}
    >
      {children}
    </form>
  );
}

/** A form's submit button, busy while its action runs, and the action's failure below it. */
export function Submit({ action, failed, children }: { action: { busy: boolean; error: unknown }; failed: string; children: ComponentChildren }) {
  return (
    <>
      <button type="submit" aria-busy={action.busy ? 'true' : undefined}>
        {children}
      </button>
      <ErrorNotice error={action.error} context={failed} />
    </>
  );
}

/** A select's options, one per value, each shown as its value. */
export function Options({ values }: { values: readonly string[] }) {
  return (
    <>
      {values.map((value) => (
        <option key={value} value={value}>
          {value}
        </option>
      ))}
    </>
  );
}
