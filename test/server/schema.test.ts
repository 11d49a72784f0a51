/**
 * One declaration per resource (issue 9): the live schema, after every migration, agrees with
 * the resource declarations' storage sections, and the facts storage and sync use are derived
 * from those declarations alone.
 */
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { describe, expect, test } from 'vitest';
import { field, fields, RESOURCES, ruleset, source, vendorProbe, type Resource } from '../../shared/resources';
import { columnsReferringTo, fieldsReferringTo, ftsColumns, PULLED, PUSHED } from '../../shared/resources/derived';
import { openDatabase } from '../../electron/server/store/database';
import { schemaProblems } from '../../electron/server/store/schemaCheck';
import { Store } from '../../electron/server/store/store';

const FIXTURE_DB = path.join(__dirname, '..', 'fixtures', 'workspace-v1', 'workspaces', 'site.sqlite3');

describe('the live schema matches the declarations', () => {
  test('a new workspace database: every stored field has its column of the right type, every column a declaration', () => {
    const db = openDatabase(':memory:');
    expect(schemaProblems(new Store(db), RESOURCES)).toEqual([]);
    db.close();
  });

  test('a bound workspace written before the structure issue (test/fixtures/workspace-v1), once migrated, too', () => {
    const dir = fs.mkdtempSync(path.join(os.tmpdir(), 'outpost-schema-'));
    try {
      const copy = path.join(dir, 'outpost.sqlite');
      fs.copyFileSync(FIXTURE_DB, copy);
      const db = openDatabase(copy);
      expect(schemaProblems(new Store(db), RESOURCES)).toEqual([]);
      db.close();
    } finally {
      fs.rmSync(dir, { recursive: true, force: true });
    }
  });

  test('a field declared without its column is reported', () => {
    const db = openDatabase(':memory:');
    const halfAdded: Resource = { ...source, fields: { ...source.fields, ...fields({ mirror_url: field.text(400) }) } };
    expect(schemaProblems(new Store(db), [halfAdded])).toEqual(['source.mirror_url: no column source.mirror_url']);
    db.close();
  });

  test('a column no declaration names is reported, and a column of the wrong type', () => {
    const db = openDatabase(':memory:');
    db.exec("ALTER TABLE ruleset ADD COLUMN mirror_url TEXT NOT NULL DEFAULT ''");
    const retyped: Resource = { ...ruleset, fields: { ...ruleset.fields, descr: { kind: 'integer', label: 'Descr' } } };
    expect(schemaProblems(new Store(db), [retyped])).toEqual([
      'ruleset.descr: ruleset.descr is TEXT, a integer field is stored as INTEGER',
      'ruleset.mirror_url: no resource declares this column (a field, a scope or an internal column)',
    ]);
    db.close();
  });
});

describe('storage and sync facts derive from the declarations', () => {
  test('the pushed resources, each with the unique field a lost create is found again by', () => {
    expect(PUSHED.map((r) => [r.name, r.unique?.field])).toEqual([
      ['vendor_probe_template', 'name'],
      ['vendor_probe', 'name'],
      ['engine_probe', 'name'],
      ['ruleset', 'name'],
      ['source', 'name'],
    ]);
  });

  test('the pull order puts what an object refers to before it', () => {
    const order = PULLED.map((r) => r.name);
    expect(order).toEqual(['vendor_device', 'source', 'ruleset', 'vendor_probe_template', 'vendor_probe', 'engine_probe', 'threat', 'host_id', 'history']);
    for (const resource of PULLED) {
      for (const declared of Object.values(resource.fields)) {
        if ((declared.kind === 'ref' || declared.kind === 'refList') && !declared.readOnly && declared.target !== resource.name) {
          expect(order.indexOf(declared.target), `${resource.name} refers to ${declared.target}`).toBeLessThan(order.indexOf(resource.name));
        }
      }
    }
  });

  test('the columns a re-key rewrites: references, item owners and join tables', () => {
    const key = (refs: { table: string; column: string }[]) => refs.map((r) => `${r.table}.${r.column}`).sort();
    expect(key(columnsReferringTo('vendor_probe_template'))).toEqual([
      'appliance.parent_tmpl',
      'network_interface.template',
      'protocol.template',
      'vendor_probe_template.parent_tmpl',
    ]);
    expect(key(columnsReferringTo('appliance'))).toEqual(['network_interface.probe', 'protocol.probe', 'vendor_device.probe']);
    expect(key(columnsReferringTo('ruleset'))).toEqual(['appliance.ruleset', 'ruleset_source.ruleset']);
    expect(key(columnsReferringTo('source'))).toEqual(['ruleset_source.source']);
  });

  test('the outbox fields naming objects of a resource, and the full-text columns of the probes', () => {
    expect(fieldsReferringTo('vendor_probe_template')).toEqual(['parent_tmpl']);
    expect(fieldsReferringTo('ruleset')).toEqual(['ruleset']);
    expect(fieldsReferringTo('source')).toEqual(['sources']);
    expect(ftsColumns(vendorProbe.storage.fts!)).toEqual(['name', 'descr', 'address', 'location', 'serial']);
  });
});
