/**
 * The order test files start in: the few long ones first, then vitest's own order. With two
 * files at a time, a four-minute file started last leaves one worker idle for those minutes (a
 * fresh clone has no timings cached for vitest to order by: the whole run took 15.2 min where
 * the files' time over two workers is 12).
 */
import { BaseSequencer, type TestSpecification } from 'vitest/node';

/** The longest files, longest first (seconds in a CI run of 2026-11-28 in comments). */
const LONG_FILES = [
  'test/remote/model.test.ts', // 269
  'test/remote/crash.test.ts', // 97
  'test/cli/escapes.test.ts', // 70
  'test/cli/sync.test.ts', // 49
  'test/e2e/sync.test.ts', // 49
  'test/remote/failures.test.ts', // 46
];

function rank(spec: TestSpecification): number {
  const at = LONG_FILES.findIndex((file) => spec.moduleId.endsWith(file));
  return at === -1 ? LONG_FILES.length : at;
}

export default class LongFirst extends BaseSequencer {
  override async sort(files: TestSpecification[]): Promise<TestSpecification[]> {
    const sorted = await super.sort(files);
    // A stable sort: the others keep vitest's order.
    return [...sorted].sort((a, b) => rank(a) - rank(b));
  }
}
