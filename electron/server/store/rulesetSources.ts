/** The sources of each ruleset (ruleset_source), kept as a join table. */
import type { Store } from './store';

export class RulesetSources {
  constructor(private readonly store: Store) {}

  /** Source pks of each ruleset, ordered by pk. */
  of(rulesets: readonly number[]): Map<number, number[]> {
    const links = this.store
      .query('SELECT ruleset, source FROM ruleset_source WHERE ruleset IN (SELECT value FROM json_each(?)) ORDER BY source')
      .raw()
      .all(JSON.stringify(rulesets)) as [number, number][];
    const out = new Map<number, number[]>(rulesets.map((pk) => [pk, []]));
    for (const [ruleset, source] of links) out.get(ruleset)?.push(source);
    return out;
  }

  /** Replace a ruleset's sources; `onlyExisting` skips sources not here (a mirror of the central server's list). */
  set(ruleset: number, sources: readonly number[], onlyExisting = false): void {
    this.store.command('DELETE FROM ruleset_source WHERE ruleset = ?').run(ruleset);
    const insert = onlyExisting
      ? this.store.command('INSERT OR IGNORE INTO ruleset_source (ruleset, source) SELECT ?, pk FROM source WHERE pk = ?')
      : this.store.command('INSERT INTO ruleset_source (ruleset, source) VALUES (?, ?)');
    for (const source of sources) insert.run(ruleset, source);
  }
}
