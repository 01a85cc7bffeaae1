/**
 * The budget of one expression evaluation: every filter evaluation is bounded
 * in time and memory, and past the bound it fails closed.
 *
 * Work is counted in steps: one step is one node of the expression visited (15-20 ns), and
 * bulk work inside a node is converted to steps at its measured cost: a string copied, case
 * mapped or serialised costs a step per {@link CHARS_PER_STEP} code units; a string searched
 * natively (`includes`, `indexOf`) a step per {@link SCANNED_CHARS_PER_STEP}; an array read a
 * step per {@link ELEMENTS_PER_STEP} elements, an array slot built
 * {@link STEPS_PER_ELEMENT_BUILT} steps and a new list or object {@link STEPS_PER_OBJECT_BUILT}
 * (allocating is dominated by garbage collection: 30-90 ns an array slot, 200-400 ns a small
 * object). Memory is counted in estimated bytes of the values the
 * evaluation builds (strings at two bytes a code unit, {@link BYTES_PER_ELEMENT} an array
 * slot, {@link BYTES_PER_PROPERTY} an object property); values taken from the payload cost
 * nothing, they exist already. Work that can outgrow its inputs (flattening, joining, padding,
 * replacing, serialising, deep comparison) is charged before it is done, so an oversized
 * result is refused before it is allocated. Elapsed time is read every
 * {@link CLOCK_CHECK_STEPS} steps, a backstop for native work whose cost varies with the data
 * (a string search costs 0.01-4 ns a character).
 *
 * The defaults: no legitimate filter over a payload of the largest accepted size (5 MiB) comes
 * near them — `items[?state == 'open'].id` over 200,000 array elements (far more than GitHub,
 * Linear or Stripe payloads hold) takes about a million steps; serialising a whole text-heavy
 * 5 MiB payload with `to_string(@)` and lower-casing it builds about 20 MiB — while a hostile
 * filter is stopped after 15-50 ms of CPU (bench/filter-bounds.ts).
 * @module
 */

/** Steps one evaluation may take (15-30 ms of CPU). */
export const MAX_EVALUATION_STEPS = 1_000_000;
/** Estimated bytes of values one evaluation may build. */
export const MAX_EVALUATION_BYTES = 64 * 1024 * 1024;
/**
 * Wall-clock time one evaluation may take, in ms: the backstop should some work be mis-costed.
 * Twice the longest the step budget should take, so that a busy machine (where wall time runs
 * ahead of CPU time) does not fail ordinary filters.
 */
export const MAX_EVALUATION_MS = 100;
/** How often (in steps) the clock is read. */
export const CLOCK_CHECK_STEPS = 1024;
/** Code units of native string work (copy, case mapping, serialising) that cost one step. */
export const CHARS_PER_STEP = 16;
/** Code units of native string search that cost one step. */
export const SCANNED_CHARS_PER_STEP = 256;
/** Array elements read natively that cost one step. */
export const ELEMENTS_PER_STEP = 16;
/** Steps one array slot built costs. */
export const STEPS_PER_ELEMENT_BUILT = 2;
/**
 * Steps one new list or object costs (a multi-select, a `[key, value]` pair, ...): allocating
 * many small objects that stay referenced costs 200-400 ns each in garbage collection
 * (measured building 250,000 of them next to a large payload).
 */
export const STEPS_PER_OBJECT_BUILT = 16;
/** Estimated bytes of one object property built. */
export const BYTES_PER_PROPERTY = 32;
/** Estimated bytes of one array slot built. */
export const BYTES_PER_ELEMENT = 8;

export type BudgetLimit = 'steps' | 'memory' | 'time';

/** Thrown when an evaluation goes past its budget; the evaluation is abandoned (fail closed). */
export class EvaluationBudgetError extends Error {
  override readonly name = 'EvaluationBudgetError';
  constructor(
    readonly limit: BudgetLimit,
    /** What was exceeded, for a user: e.g. "more than 1000000 steps". */
    readonly detail: string,
  ) {
    super(`expression exceeded its evaluation budget (${detail})`);
  }
}

export interface EvaluationLimits {
  maxSteps: number;
  maxBytes: number;
  maxMs: number;
}

export const DEFAULT_EVALUATION_LIMITS: Readonly<EvaluationLimits> = Object.freeze({
  maxSteps: MAX_EVALUATION_STEPS,
  maxBytes: MAX_EVALUATION_BYTES,
  maxMs: MAX_EVALUATION_MS,
});

/** The running count of one evaluation. Not reentrant: one evaluation at a time per meter. */
export class EvaluationMeter {
  steps = 0;
  bytes = 0;
  /** When the clock was first read, or -1: most evaluations end before they would read it. */
  private startedAt = -1;
  private nextCheck = CLOCK_CHECK_STEPS;
  private limits: Readonly<EvaluationLimits> = DEFAULT_EVALUATION_LIMITS;

  start(limits: Readonly<EvaluationLimits> = DEFAULT_EVALUATION_LIMITS): void {
    this.limits = limits;
    this.steps = 0;
    this.bytes = 0;
    this.startedAt = -1;
    this.nextCheck = Math.min(CLOCK_CHECK_STEPS, limits.maxSteps + 1);
  }

  /** Counts `count` steps; throws past the budget. */
  step(count = 1): void {
    this.steps += count;
    if (this.steps >= this.nextCheck) this.checkpoint();
  }

  /** Counts `bytes` of values about to be built, and the steps their building takes. */
  allocate(bytes: number, steps = 0): void {
    this.bytes += bytes;
    if (this.bytes > this.limits.maxBytes) {
      throw new EvaluationBudgetError('memory', `more than ${Math.round(this.limits.maxBytes / 1048576)} MiB of values`);
    }
    this.step(steps);
  }

  /** Native string work over `codeUnits`, building `builtUnits` code units of new strings. */
  strings(codeUnits: number, builtUnits = 0): void {
    this.allocate(builtUnits * 2, Math.ceil(codeUnits / CHARS_PER_STEP));
  }

  /** Native string search over `codeUnits`. */
  scan(codeUnits: number): void {
    this.step(Math.ceil(codeUnits / SCANNED_CHARS_PER_STEP));
  }

  /** Native array work reading `elements` and building `builtElements` array slots. */
  arrays(elements: number, builtElements = 0): void {
    this.allocate(builtElements * BYTES_PER_ELEMENT, Math.ceil(elements / ELEMENTS_PER_STEP) + builtElements * STEPS_PER_ELEMENT_BUILT);
  }

  private checkpoint(): void {
    if (this.steps > this.limits.maxSteps) {
      throw new EvaluationBudgetError('steps', `more than ${this.limits.maxSteps} steps`);
    }
    // The clock starts at the first checkpoint, after at most CLOCK_CHECK_STEPS steps (well
    // under a millisecond), so that short evaluations never read it.
    const now = performance.now();
    if (this.startedAt < 0) this.startedAt = now;
    else if (now - this.startedAt > this.limits.maxMs) {
      throw new EvaluationBudgetError('time', `more than ${this.limits.maxMs} ms`);
    }
    this.nextCheck = Math.min(this.steps + CLOCK_CHECK_STEPS, this.limits.maxSteps + 1);
  }
}
