/**
 * Connecting a standalone workspace (docs/sync.md "Connecting a standalone workspace") tried as a
 * hostile user would: while another opener (`outpost serve` in another process) has the
 * workspace open, and with hostile decisions. Nothing may end half-written or written as
 * standalone into a bound workspace.
 */
import Database from 'better-sqlite3';
import { afterAll, beforeAll, describe, expect, test } from 'vitest';
import { WorkspaceHost } from '../../electron/workspaces/host';
import { connectIn, connectPlanIn } from '../../electron/workspaces/connect';
import { workspaceFile } from '../../electron/workspaces/dataFolder';
import { startReference, type ReferenceServer } from '../helpers/reference';
import { ADMIN_TOKEN, startAppServer } from '../helpers/server';

const P = '/rest/appliances/vendor_probe/';

let reference: ReferenceServer;
beforeAll(async () => {
  reference = await startReference();
}, 60_000);
afterAll(async () => {
  await reference?.stop();
});

/** The outbox as stored, read from a connection of its own. */
function outboxPks(file: string): number[] {
  const db = new Database(file, { readonly: true });
  try {
    return db.prepare('SELECT pk FROM outbox ORDER BY seq').pluck().all() as number[];
  } finally {
    db.close();
  }
}

describe('connecting a workspace another process serves', () => {
  test('the server that opened it standalone refuses its writes afterwards (409, saying why), rather than making objects no push sends', async () => {
    const site = await startAppServer();
    try {
      site.host.remotes.add({ name: 'central', url: reference.url }, reference.token);
      expect((await site.api.post(P, { name: `served-${Date.now()}`, address: '10.0.0.1' })).status).toBe(201);
      // `outpost workspace connect default --remote central --yes` in another process: a host of its own on the same data folder.
      const other = new WorkspaceHost({ dataDir: site.dir, instance: { name: 'cli', version: 'test', address: '127.0.0.1' }, adminToken: ADMIN_TOKEN, workspace: 'default' });
      try {
        const plan = await connectPlanIn(other, 'default', 'central');
        const result = await connectIn(other, 'default', { remote: 'central', central: plan.central, decisions: {}, pushMode: 'review' });
        expect(result.queued).toBe(1);
      } finally {
        await other.close();
      }
      const file = workspaceFile(site.dir, 'default');
      const outbox = outboxPks(file);

      const refused = await site.api.post(P, { name: `after-${Date.now()}`, address: '10.0.0.2' });
      expect(refused.status, refused.text).toBe(409);
      expect(refused.json().detail).toMatch(/connected to the remote "central" by another Outpost process/);
      // Every object is a central one or a create the outbox sends: no positive pk made here after the connect.
      const probes = (await site.api.get(P)).json().results as { pk: number }[];
      expect(probes.map((p) => p.pk)).toEqual(outbox);
      expect(outboxPks(file)).toEqual(outbox);
    } finally {
      await site.close();
    }
  }, 60_000);
});
