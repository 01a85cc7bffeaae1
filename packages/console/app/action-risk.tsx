/** An action's security rating where the console shows an action: a small badge, the reason its tooltip (or written out). */
import type { ConversationEvent } from '@agent-platform/client';
import { ratingOf } from './action-rating.js';
import { Badge } from './components.js';

/** ` · risk HIGH` (with `withReason`: ` — force push to main`); nothing for an action no analyzer rated. */
export function ActionRisk({ event, withReason = false }: { event: ConversationEvent | null; withReason?: boolean }) {
  const rating = ratingOf(event);
  if (!rating) return null;
  return (
    <span class="action-risk" title={rating.reason ?? undefined}>
      {' '}
      · risk <Badge value={rating.risk} />
      {withReason && rating.reason ? ` — ${rating.reason}` : ''}
    </span>
  );
}
