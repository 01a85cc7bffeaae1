/**
 * Members (admins and owners): everyone who signed in to the console, with their roles, oldest
 * first. Owners change a member's role here, one select per member — never their own, which the
 * API refuses so the org keeps the owner who acted. A change applies to the member's next request.
 */
import type { MembershipRecord } from '@agent-platform/client';
import { useState } from 'preact/hooks';
import { ErrorNotice, Hidden, Muted, PageTitle, StatusNote, Time } from '../components.js';
import { ActionForm, Options } from '../forms.js';
import { useAction, useResource } from '../hooks.js';
import { atLeast, ROLES, type Role } from '../permissions.js';
import { NeedsRole } from '../role-note.js';
import { useClient, usePermissions, useSession } from '../session.js';
import { ResourceTable, type Column } from '../table.js';

const nameOf = (member: MembershipRecord) => member.email ?? member.user_id;

export function MembersPage() {
  const can = usePermissions();
  if (!can.admin) {
    return (
      <>
        <PageTitle>Members</PageTitle>
        <NeedsRole needed="admin" what="Reading the members" />
      </>
    );
  }
  return <MemberList />;
}

function MemberList() {
  const client = useClient();
  const { userId } = useSession();
  const { role } = usePermissions();
  // Only owners change roles (a key the platform does not describe is an owner, as the API treats it).
  const owner = role === null || atLeast(role, 'owner');
  const members = useResource((signal) => client.members.list({ signal }), []);
  const [done, setDone] = useState<string | null>(null);
  const setRole = useAction(async (member: MembershipRecord, next: Role) => {
    setDone(null);
    await client.members.setRole(member.user_id, { role: next });
    setDone(`${nameOf(member)} is now ${next === 'admin' || next === 'owner' ? 'an' : 'a'} ${next}.`);
    members.reload();
  });

  const roleCell = (member: MembershipRecord) => {
    if (member.user_id === userId)
      return (
        <>
          {member.role} <Muted>(you)</Muted>
        </>
      );
    if (!owner) return member.role;
    return (
      <ActionForm
        class="member-role"
        aria-label={`Role of ${nameOf(member)}`}
        onSubmit={(form) => setRole.run(member, (form.elements.namedItem('role') as HTMLSelectElement).value as Role)}
      >
        <select name="role" aria-label={`Role of ${nameOf(member)}`} value={member.role}>
          <Options values={ROLES} />
        </select>
        <button type="submit" aria-busy={setRole.busy ? 'true' : undefined}>
          Change<Hidden> the role of {nameOf(member)}</Hidden>
        </button>
      </ActionForm>
    );
  };
  const columns: Column<MembershipRecord>[] = [
    {
      header: 'Member',
      cell: (member) =>
        member.email ? (
          <>
            {member.email}
            <small class="detail">{member.user_id}</small>
          </>
        ) : (
          member.user_id
        ),
    },
    { header: 'Since', cell: (member) => <Time value={member.created_at} /> },
    { header: 'Role', cell: roleCell },
  ];

  return (
    <>
      <PageTitle>Members</PageTitle>
      <p>
        Everyone who signed in to the console, oldest first, with the role the API judges their requests by. A first sign-in gives the role the provider's
        claims map to; {owner ? 'you can change it here' : 'owners change it here'}, and a change applies to the member's next request. No one changes their own
        role: another owner does.
      </p>
      {done && <StatusNote>{done}</StatusNote>}
      {/* One notice for every row's change: the rows share one action. */}
      <ErrorNotice error={setRole.error} context="Changing the role failed" />
      <ResourceTable
        resource={members}
        rowsOf={(data) => data.members}
        rowKey={(member) => member.user_id}
        columns={columns}
        caption="The org’s members"
        empty="No one has signed in to the console yet. People who sign in with the org's identity provider appear here."
        errorContext="Loading the members failed"
      />
    </>
  );
}
