/** Loading data from the API into a page: once, or again every few seconds for live pages. */
import { useCallback, useEffect, useRef, useState } from 'preact/hooks';

/** How often a live page asks again: the API has no live stream of deliveries, runs or messages. */
export const LIVE_POLL_MS = 2_000;

export interface Resource<T> {
  /** The last answer; kept while a reload is under way or after a reload failed. */
  data: T | undefined;
  /** The last failure, cleared by the next success. */
  error: unknown;
  loading: boolean;
  /** Loads again now. */
  reload(): void;
}

/**
 * Calls `load` when the page opens and when `deps` change, and again `pollMs` after each answer
 * when given (a live list: new records appear without reloading the page). Each call gets a
 * signal that aborts when the page closes.
 */
export function useResource<T>(load: (signal: AbortSignal) => Promise<T>, deps: readonly unknown[], options: { pollMs?: number } = {}): Resource<T> {
  const [state, setState] = useState<{ data: T | undefined; error: unknown; loading: boolean }>({ data: undefined, error: undefined, loading: true });
  const [tick, setTick] = useState(0);
  const loadRef = useRef(load);
  loadRef.current = load;
  useEffect(() => {
    const controller = new AbortController();
    let timer: ReturnType<typeof setTimeout> | undefined;
    const run = async () => {
      try {
        const data = await loadRef.current(controller.signal);
        if (!controller.signal.aborted) setState({ data, error: undefined, loading: false });
      } catch (error) {
        if (!controller.signal.aborted) setState((previous) => ({ data: previous.data, error, loading: false }));
      }
      if (options.pollMs && !controller.signal.aborted) timer = setTimeout(run, options.pollMs);
    };
    setState((previous) => ({ ...previous, loading: true }));
    void run();
    return () => {
      controller.abort();
      clearTimeout(timer);
    };
    // The caller's `deps` decide when to load again; `load` itself is read through `loadRef`, so a new closure on each render does not reload.
  }, [...deps, tick, options.pollMs]);
  const reload = useCallback(() => setTick((value) => value + 1), []);
  return { ...state, reload };
}

/** An action started by a button: busy while it runs, its failure kept for display. */
export function useAction<A extends unknown[], R>(action: (...args: A) => Promise<R>) {
  const [busy, setBusy] = useState(false);
  const [error, setError] = useState<unknown>(undefined);
  const run = async (...args: A): Promise<R | undefined> => {
    setBusy(true);
    setError(undefined);
    try {
      return await action(...args);
    } catch (caught) {
      setError(caught);
      return undefined;
    } finally {
      setBusy(false);
    }
  };
  return { run, busy, error, clearError: () => setError(undefined) };
}
