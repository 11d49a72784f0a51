/**
 * What the user decides about changes that wait (app.md §3): resolve a conflict field by field,
 * send a refused change again, or give a change up (the object goes back to the central server's
 * state; giving up a create removes the object made here).
 */
import type { OutboxEntry } from '../server/store/outbox';
import type { Services } from '../server/store/services';
import { Mirror } from './mirror';
import { isPulled, pushed, referenceFieldsTo, refersTo } from './synced';

export class ResolveError extends Error {
  constructor(
    message: string,
    readonly status: 400 | 404 | 409 = 400,
  ) {
    super(message);
  }
}

export class ConflictResolver {
  private readonly mirror: Mirror;

  constructor(private readonly services: Services) {
    this.mirror = new Mirror(services);
  }

  private get outbox() {
    return this.services.outbox;
  }

  private entry(seq: number): OutboxEntry {
    const entry = this.outbox.get(seq);
    if (!entry) throw new ResolveError(`there is no outbox entry ${seq}`, 404);
    return entry;
  }

  /** Show the object as the central server has it, with the local changes still waiting on top. */
  private restore(entry: OutboxEntry): void {
    if (isPulled(entry.resource)) this.mirror.restore(entry.resource, entry.pk);
    else if (entry.resource === 'network_interface') {
      // The interface comes back with its owner (the entry's base is the interface as it was).
      const template = entry.base.template;
      const probe = entry.base.probe;
      if (typeof template === 'number') this.mirror.restore('vendor_probe_template', template);
      else if (typeof probe === 'number') this.mirror.restore('vendor_probe', probe);
    }
  }

  /**
   * Resolve one field of a conflict: `mine` pushes the local value over the central server's
   * (its value becomes the base), `theirs` takes the central server's value here and drops the
   * local change of that field. For a delete, `theirs` keeps the object and `mine` deletes it.
   * Returns the entry's seq while something of it still waits.
   */
  resolve(seq: number, field: string, choice: 'mine' | 'theirs'): number | undefined {
    return this.services.store.write(() => {
      const entry = this.entry(seq);
      if (entry.state !== 'conflict' || !entry.theirs) throw new ResolveError(`outbox entry ${seq} is not a conflict`, 409);
      if (!(field in entry.theirs)) {
        throw new ResolveError(`field "${field}" is not in conflict in entry ${seq}; conflicting: ${Object.keys(entry.theirs).join(', ')}`);
      }
      const theirs = { ...entry.theirs };
      const theirValue = theirs[field] ?? null;
      delete theirs[field];
      if (entry.op === 'delete') {
        if (choice === 'theirs') {
          this.outbox.remove(seq);
          this.restore(entry);
          return undefined;
        }
        const base = { ...entry.base, [field]: theirValue };
        const done = Object.keys(theirs).length === 0;
        this.outbox.change(seq, { base, theirs: done ? null : theirs, ...(done ? { state: 'pending', message: null } : {}) });
        return seq;
      }
      const fields = { ...entry.fields };
      const base = { ...entry.base };
      if (choice === 'mine') base[field] = theirValue;
      else {
        delete fields[field];
        delete base[field];
      }
      const done = Object.keys(theirs).length === 0;
      if (done && Object.keys(fields).length === 0) this.outbox.remove(seq);
      else this.outbox.change(seq, { fields, base, theirs: done ? null : theirs, ...(done ? { state: 'pending', message: null } : {}) });
      if (choice === 'theirs') this.restore(entry);
      return done && Object.keys(fields).length === 0 ? undefined : seq;
    });
  }

  /** Send a refused change again as it is (after the central server's side was fixed). */
  retry(seq: number): void {
    this.services.store.write(() => {
      const entry = this.entry(seq);
      if (entry.state !== 'parked') throw new ResolveError(`outbox entry ${seq} is not a refused change`, 409);
      this.outbox.change(seq, { state: 'pending', message: null });
    });
  }

  /**
   * Give up a change that waits (refused or in conflict): the object goes back to the central
   * server's state. Discarding a create removes the object made here, and every later change to it.
   */
  discard(seq: number): void {
    this.services.store.write(() => {
      const entry = this.entry(seq);
      if (entry.state === 'sending') throw new ResolveError(`outbox entry ${seq} is being sent; sync first to learn its outcome`, 409);
      if (entry.op === 'create') {
        for (const other of this.outbox.of(entry.resource, entry.pk)) this.outbox.remove(other.seq);
        this.removeLocalObject(entry.resource, entry.pk);
        return;
      }
      this.outbox.remove(seq);
      this.restore(entry);
    });
  }

  private removeLocalObject(resource: string, pk: number): void {
    const synced = pushed(resource);
    if (!synced || pk > 0) return;
    this.services.store.deferForeignKeys();
    // Changes of other objects made here that name it cannot be sent as they are.
    for (const other of this.outbox.entries()) {
      if (referenceFieldsTo(resource).some((field) => refersTo(other.fields[field], pk))) {
        this.outbox.change(other.seq, { state: 'parked', message: `It refers to ${resource.replace(/_/g, ' ')} ${pk}, whose creation was discarded.` });
      }
    }
    // Objects made here that refer to it stay, without the reference; its items and device go with it.
    this.services.mirrorRows.detachFrom(synced.resource, pk);
    this.services.mirrorRows.remove(synced.resource, 'pk', pk);
  }
}
