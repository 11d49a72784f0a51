/**
 * The randomized model-based test of the sync (issue 4): two workspaces bound to one central
 * server (the reference DRF server) and direct edits on that server, random operations, syncs
 * in random order; after every sync the invariants of test/remote/model/intents.ts and mirror.ts
 * hold (no lost change unless shown as a conflict or refused change, no lost update of others,
 * no duplicate, the mirror equal to the central server wherever nothing waits), and after a
 * clean-up and the final syncs both workspaces equal the central server exactly.
 *
 * Seeds 1..N, N = OUTPOST_MODEL_SEEDS (200 in `npm test`, 1,000 in `npm run test:model`);
 * OUTPOST_MODEL_SEED=n replays one seed alone; OUTPOST_MODEL_ROUNDS (default 3) rounds each.
 *
 * Cost: a reference server takes ~0.5 s of CPU to start, more than a whole seed's operations,
 * so seeds do not get one each. OUTPOST_MODEL_LANES (default 3) reference servers ("lanes")
 * run seeds concurrently, one seed per lane at a time; between seeds a lane is emptied of every
 * pushed object (and checked empty), and it is restarted every 25 seeds. Each seed has the
 * central server to itself and starts from the same empty state, so the comparisons are exact;
 * only pks (and the remote history, not compared) differ from a replay, and the operations are
 * chosen by name, never by pk, so a replay makes the same ones.
 */
import { afterAll, describe, expect, test } from 'vitest';
import { LanePool, ModelFailure, runSeed, type SeedStats } from './model/runner';

const only = process.env.OUTPOST_MODEL_SEED;
const count = Number(process.env.OUTPOST_MODEL_SEEDS ?? 200);
const seeds = only ? [Number(only)] : Array.from({ length: count }, (_, i) => i + 1);
const rounds = Number(process.env.OUTPOST_MODEL_ROUNDS ?? 3);
const pool = new LanePool(Number(process.env.OUTPOST_MODEL_LANES ?? 3));
const totals: SeedStats = { ops: 0, accepted: 0, localReferences: 0, syncs: 0, conflicts: 0, parked: 0, resolved: 0, discarded: 0 };
const started = Date.now();

afterAll(async () => {
  await pool.close();
  if (process.env.OUTPOST_MODEL_STATS) console.log(`node cpu ${JSON.stringify(process.cpuUsage())} model test: ${seeds.length} seeds in ${((Date.now() - started) / 1000).toFixed(1)} s`, totals);
});

describe.concurrent('two workspaces and direct remote edits, random operations and syncs', () => {
  for (const seed of seeds) {
    test(`seed ${seed}: no lost change, no duplicate, both workspaces equal to the remote at the end`, async () => {
      const lane = await pool.acquire();
      let end: Awaited<ReturnType<typeof runSeed>>['state'] | undefined;
      try {
        const { stats, state } = await runSeed(seed, lane, { rounds });
        for (const key of Object.keys(totals) as (keyof SeedStats)[]) totals[key] += stats[key];
        end = state;
      } catch (error) {
        if (error instanceof ModelFailure) expect.fail(error.message);
        throw new Error(`seed ${seed} (replay alone: OUTPOST_MODEL_SEED=${seed} npx vitest run test/remote/model.test.ts): ${(error as Error).stack ?? error}`);
      } finally {
        await pool.release(lane, end);
      }
    }, 180_000);
  }
});
