/**
 * What the import of a workspace bundle tells the manager about the accounts it brought (app.md
 * §2). A bundle comes from anywhere: its password hashes and tokens are ignored, so none of its
 * accounts can sign in until a manager of this Outpost sets its password or makes its token.
 * `outpost import FILE` prints this text; `/app/workspaces/import` answers the counts and the
 * Settings screen shows the same text.
 */
import { ROLES, type Role } from '../resources/accounts';

export interface ImportedAccounts {
  /** Accounts that came with the bundle; `admin`, this Outpost's own, is not one of them. */
  readonly count: number;
  /** How many of them have each role: what they may do once they can sign in. */
  readonly roles: Readonly<Record<Role, number>>;
}

const plural = (n: number, one: string, many: string) => `${n} ${n === 1 ? one : many}`;

export function importedAccountsText(accounts: ImportedAccounts): string {
  if (accounts.count === 0) return 'No account came with it but admin, this Outpost’s own.';
  const roles = ROLES.filter((role) => accounts.roles[role] > 0)
    .map((role) => `${accounts.roles[role]} ${role}`)
    .join(', ');
  const managers = accounts.roles.Superuser + accounts.roles.Admin;
  const what =
    managers === 0
      ? 'they may only read'
      : managers === accounts.count
        ? 'they may manage this Outpost (its workspaces, accounts and central servers)'
        : `${managers} of them may manage this Outpost (its workspaces, accounts and central servers), the others only read`;
  return (
    `${plural(accounts.count, 'account', 'accounts')} came with it (${roles}): none can sign in until a manager of this Outpost ` +
    `sets its password or makes its token (a bundle’s password hashes and tokens are ignored); then ${what}.`
  );
}
