/**
 * On a probe's or a template's page (issue 11): a change of this object waiting in conflict with
 * the central server says so, with the fields concerned and a link to its resolution on the
 * Sync screen. Shown to managers (who resolve conflicts) while the status bar counts conflicts.
 */
import { useEffect } from 'react';
import { href } from '../router';
import { typeLabel } from '../screens/historyFormat';
import { conflictsOf, fieldLabel } from '../screens/syncFormat';
import { useStatus } from '../stores/status';
import { useSync } from '../stores/sync';

export function ConflictNotice({ type, pk }: { type: string; pk: number }) {
  const waiting = useStatus((s) => s.app?.sync?.outbox?.conflicts ?? 0);
  const manager = useStatus((s) => s.app?.user.role === 'Superuser' || s.app?.user.role === 'Admin');
  const entries = useSync((s) => s.entries);
  const load = useSync((s) => s.load);
  useEffect(() => {
    if (manager && waiting > 0) void load();
  }, [manager, waiting, load, type, pk]);
  const mine = waiting > 0 ? conflictsOf(entries, type, pk) : [];
  const first = mine[0];
  if (!first) return null;
  const fields = [...new Set(mine.flatMap((entry) => entry.conflicts.map((c) => fieldLabel(type, c.field))))];
  return (
    <div className="notice warn conflict-notice" role="status" data-testid="conflict-notice">
      <p>
        {first.op === 'delete' ? `Deleting this ${typeLabel(type)} is` : `A change of this ${typeLabel(type)} is`} in conflict with the central server
        {fields.length > 0 ? ` (${fields.join(', ')})` : ''}: it is not pushed until you choose which values to keep.
      </p>
      <a href={href(`/sync/conflicts/${first.seq}`)}>Resolve the conflict</a>
    </div>
  );
}
