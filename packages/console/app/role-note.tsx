/** Why a page leaves something out: what it needs the API to allow, and the key's weaker role. */
import type { Role } from './permissions.js';
import { usePermissions } from './session.js';

export function NeedsRole({ needed, what }: { needed: Role; what: string }) {
  const { role } = usePermissions();
  return (
    <p class="muted">
      {what} needs the {needed} role; your key is a {role}.
    </p>
  );
}
