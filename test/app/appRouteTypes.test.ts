/**
 * The `/app/` routes' answers are typed once (shared/app/routes.ts, `AppRouteTypes`): a handler
 * answering another shape, or a screen reading an answer as another shape, does not compile. The
 * checks below are the compiler's (`tsc -p tsconfig.json`): each `@ts-expect-error` must meet an
 * error, or tsc fails; at run time the test only holds the typed values.
 */
import { expect, test } from 'vitest';
import { ok, type AppHandler } from '../../electron/app/appCall';
import type { AppAnswer, AppBody } from '../../shared/app/routes';

test('a handler must answer its route’s type: another shape fails to compile', () => {
  // @ts-expect-error the home networks are a list, not one string
  const text: AppHandler<'homeNets'> = () => ok({ homeNets: '10.0.0.0/8' });
  // @ts-expect-error the status names the workspace, the mode, the sync state and the user too
  const partial: AppHandler<'status'> = () => ({ status: 200, body: { version: '1.0.0' } });
  // @ts-expect-error a 204 route answers no body
  const body: AppHandler<'deleteWorkspace'> = () => ({ status: 204, body: { deleted: true } });
  const right: AppHandler<'homeNets'> = () => ok({ homeNets: ['10.0.0.0/8'] });
  expect([text, partial, body, right]).toHaveLength(4);
});

test('an answer and a body are read as their route’s types (the renderer’s client returns `AppAnswer<N>` and takes `AppBody<N>`)', () => {
  const nets: AppAnswer<'homeNets'> = { homeNets: ['10.0.0.0/8'] };
  // @ts-expect-error the answer of /app/status is not a list
  const list: AppAnswer<'status'> = [];
  const progress: AppAnswer<'eveProgress'> = { running: false };
  // @ts-expect-error a running import tells its counts
  const running: AppAnswer<'eveProgress'> = { running: true };
  const choice: AppBody<'resolveEntry'> = { field: 'location', choice: 'mine' };
  // @ts-expect-error a conflict is resolved with mine or theirs only
  const other: AppBody<'resolveEntry'> = { field: 'location', choice: 'both' };
  expect([nets, list, progress, running, choice, other]).toHaveLength(6);
});
