/**
 * The rule that ties reporting to its source: a run reports back in the thread of the GitHub
 * event that started it, so `report_to_github` on an automation triggered by anything else would
 * never do anything — refused (422) at create, update and validate rather than silently ignored.
 * @module
 */
import { validationError } from '../kernel/errors.js';
import { GITHUB_SOURCE } from '../schemas/vocabulary.js';

export function checkReporting(
  automation: { report_to_github?: boolean | undefined; trigger: { source: string } },
  loc: (string | number)[] = ['body', 'report_to_github'],
): void {
  if (automation.report_to_github && automation.trigger.source !== GITHUB_SOURCE)
    throw validationError(loc, `report_to_github needs a GitHub trigger (source "github"), not "${automation.trigger.source}"`);
}
