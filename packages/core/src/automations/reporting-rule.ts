/**
 * The rule that ties reporting to its source: a run reports back in the thread of the host event
 * that started it (GitHub's, or a GitLab, Bitbucket or Slack source's), so `report_to_github` on an
 * automation triggered by a custom source would never do anything — refused (422) at create,
 * update and validate rather than silently ignored.
 * @module
 */
import { validationError } from '../kernel/errors.js';
import { inboundHostOf } from '../threads/inbound-hosts.js';

export function checkReporting(
  automation: { report_to_github?: boolean | undefined; trigger: { source: string } },
  loc: (string | number)[] = ['body', 'report_to_github'],
): void {
  if (automation.report_to_github && inboundHostOf(automation.trigger.source) === null)
    throw validationError(loc, `report_to_github needs a GitHub trigger (source "github"), not "${automation.trigger.source}"`);
}
