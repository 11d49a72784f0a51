/**
 * A remote's connection test (issue 25 §4): the steps a sync depends on, in the order it meets
 * them, each with its outcome, its message and the time it took. The first failure stops the
 * test; the steps after it are "not tried". Shared by the route, the CLI and the Settings screen.
 */

export type RemoteTestStepName = 'reachable' | 'tls' | 'token' | 'api';

/** `skipped`: the step does not apply (TLS over a loopback http:// remote). */
export type RemoteTestOutcome = 'passed' | 'failed' | 'skipped' | 'not-tried';

export interface RemoteTestStep {
  readonly step: RemoteTestStepName;
  readonly outcome: RemoteTestOutcome;
  readonly message: string;
  /** How long the step took (ms); null when it was not run. */
  readonly ms: number | null;
}

export interface RemoteTestResult {
  readonly remote: string;
  readonly url: string;
  /** Every step passed or was skipped. */
  readonly ok: boolean;
  readonly steps: readonly RemoteTestStep[];
}

export const REMOTE_TEST_STEPS: readonly RemoteTestStepName[] = ['reachable', 'tls', 'token', 'api'];

/** What each step checks, as the screen and the CLI name it. */
export const REMOTE_TEST_LABELS: Readonly<Record<RemoteTestStepName, string>> = {
  reachable: 'Reachable',
  tls: 'TLS certificate',
  token: 'Token accepted',
  api: 'Central server API',
};

/** The message when a server answers, but not as the central server's API. */
export const NOT_AN_API = 'not an Outpost/central server API at this URL';
