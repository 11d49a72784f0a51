/**
 * The base of each mirrored object (sync_base): the object as the central server last showed
 * it, by endpoint and pk. A local change is merged against it; an object without one is written
 * again by the next pull.
 */
import type { JsonObject } from '../../../shared/resources';
import type { Store } from './store';

export class SyncBases {
  constructor(private readonly store: Store) {}

  get(resource: string, pk: number): JsonObject | undefined {
    const text = this.store.query('SELECT data FROM sync_base WHERE resource = ? AND pk = ?').pluck().get(resource, pk) as string | undefined;
    return text === undefined ? undefined : (JSON.parse(text) as JsonObject);
  }

  set(resource: string, pk: number, object: JsonObject): void {
    this.store
      .command('INSERT INTO sync_base (resource, pk, data) VALUES (?, ?, ?) ON CONFLICT(resource, pk) DO UPDATE SET data = excluded.data')
      .run(resource, pk, JSON.stringify(object));
  }

  drop(resource: string, pk: number): void {
    this.store.command('DELETE FROM sync_base WHERE resource = ? AND pk = ?').run(resource, pk);
  }

  /** Move the bases of an object to its new pk (a re-key); `resources` share one pk sequence. */
  rekey(resources: readonly string[], from: number, to: number): void {
    this.store.command('UPDATE sync_base SET pk = ? WHERE pk = ? AND resource IN (SELECT value FROM json_each(?))').run(to, from, JSON.stringify(resources));
  }

  /** pks of the objects of `resource` whose base names object `pk` in `field` (a number or a list of numbers). */
  referringTo(resource: string, field: string, pk: number): number[] {
    return this.store
      .query(
        `SELECT pk FROM sync_base WHERE resource = ? AND (json_extract(data, '$.' || ?) = ?
           OR (json_type(data, '$.' || ?) = 'array' AND EXISTS (SELECT 1 FROM json_each(data, '$.' || ?) WHERE value = ?)))`,
      )
      .pluck()
      .all(resource, field, pk, field, field, pk) as number[];
  }

  /**
   * Forget the bases of a template's descendants (templates and probes under it): a change that
   * reached them here by inheritance leaves them unlike their base.
   */
  forgetTemplateDescendants(template: number): void {
    this.store
      .command(
        `WITH RECURSIVE tree(pk) AS (
           SELECT pk FROM vendor_probe_template WHERE parent_tmpl = @template
           UNION SELECT t.pk FROM vendor_probe_template t JOIN tree ON t.parent_tmpl = tree.pk)
         DELETE FROM sync_base
         WHERE (resource = 'vendor_probe_template' AND pk IN (SELECT pk FROM tree))
            OR (resource = 'vendor_probe' AND pk IN (SELECT pk FROM appliance WHERE parent_tmpl = @template OR parent_tmpl IN (SELECT pk FROM tree)))`,
      )
      .run({ template });
  }
}
