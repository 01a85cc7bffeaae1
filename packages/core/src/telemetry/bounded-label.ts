/**
 * A metric label whose values come from users (source names, models, orgs): the first `limit`
 * distinct values are kept as they are, every later one is reported as `other`. A metric series
 * per distinct label value costs memory in every process and in Prometheus, so no label may grow
 * without bound, whatever users name things.
 * @module
 */

/** The value reported for the values past the limit. */
export const OTHER_LABEL = 'other';

export class BoundedLabel {
  private readonly seen = new Set<string>();

  constructor(
    /** Distinct values kept; later ones become `other`. */
    readonly limit: number,
    /** Longest value kept; longer ones are cut (a label is a name, not a text). */
    private readonly maxLength = 80,
  ) {}

  /** `value` as the label reports it. */
  of(value: string | null | undefined): string {
    if (value === null || value === undefined || value === '') return 'none';
    const name = value.length > this.maxLength ? value.slice(0, this.maxLength) : value;
    if (this.seen.has(name)) return name;
    if (this.seen.size >= this.limit) return OTHER_LABEL;
    this.seen.add(name);
    return name;
  }
}
