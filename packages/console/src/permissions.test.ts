/**
 * What the console lets each role do (app/permissions.ts), as docs/http-api.md's "Roles" says the
 * API allows it: a viewer reads, a member writes and changes only their own automations, an
 * admin also changes anyone's and the org's webhook sources and subscriptions.
 */
import { describe, expect, it } from 'vitest';
import { atLeast, permissionsOf } from '../app/permissions.js';

const mine = { created_by: 'alice' };
const bobs = { created_by: 'bob' };

describe('the console’s permissions', () => {
  it('orders the roles weakest first', () => {
    expect(atLeast('viewer', 'viewer')).toBe(true);
    expect(atLeast('viewer', 'member')).toBe(false);
    expect(atLeast('member', 'admin')).toBe(false);
    expect(atLeast('owner', 'admin')).toBe(true);
  });

  it('a viewer reads only', () => {
    const can = permissionsOf({ role: 'viewer', userId: 'alice' });
    expect({ write: can.write, admin: can.admin, mine: can.changeAutomation(mine), bobs: can.changeAutomation(bobs) }).toEqual({
      write: false,
      admin: false,
      mine: false,
      bobs: false,
    });
  });

  it('a member writes, and changes only their own automations', () => {
    const can = permissionsOf({ role: 'member', userId: 'alice' });
    expect({ write: can.write, admin: can.admin, mine: can.changeAutomation(mine), bobs: can.changeAutomation(bobs) }).toEqual({
      write: true,
      admin: false,
      mine: true,
      bobs: false,
    });
  });

  it('an admin and an owner change anything', () => {
    for (const role of ['admin', 'owner'] as const) {
      const can = permissionsOf({ role, userId: 'alice' });
      expect({ write: can.write, admin: can.admin, bobs: can.changeAutomation(bobs) }).toEqual({ write: true, admin: true, bobs: true });
    }
  });

  it('only an owner sets and removes budgets', () => {
    const roles = ['viewer', 'member', 'admin', 'owner'] as const;
    expect(roles.map((role) => permissionsOf({ role, userId: 'alice' }).manageBudgets)).toEqual([false, false, false, true]);
    expect(permissionsOf({ role: null, userId: null }).manageBudgets).toBe(true);
  });

  it('a key the platform does not describe keeps every button: the API decides', () => {
    const can = permissionsOf({ role: null, userId: null });
    expect({ write: can.write, admin: can.admin, bobs: can.changeAutomation(bobs) }).toEqual({ write: true, admin: true, bobs: true });
  });
});
