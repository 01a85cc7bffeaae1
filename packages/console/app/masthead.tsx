/** The header's first line: the console's name, who is signed in with which role, and sign-out. */
import type { SignedIn } from './session.js';

export function Masthead({ session }: { session: SignedIn }) {
  return (
    <div class="masthead">
      <strong>agent-platform console</strong>
      <span class="who">
        <span>{session.userId ? `Signed in as ${session.userId}${session.orgId ? ` (${session.orgId})` : ''}` : 'Signed in'}</span>
        {session.role && <span class="badge role">Role: {session.role}</span>}
        <button type="button" class="secondary outline" onClick={session.signOut}>
          Sign out
        </button>
      </span>
      {session.role === 'viewer' && (
        // Said once, here, rather than on each page: every page leaves out its buttons for a viewer.
        <p class="read-only-note">Your key is a viewer: read only</p>
      )}
    </div>
  );
}
