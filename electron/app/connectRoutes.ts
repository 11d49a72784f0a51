/**
 * Connecting a standalone workspace to a central server (shared/sync/connect.ts): the plan, then
 * the connect as planned. The body is checked here; the decisions by the connect itself
 * (shared/sync/connectMatch.ts), against the plan it makes again.
 */
import { ApiError } from '../../shared/api/errors';
import { PUSH_MODES, pushModeOf } from '../../shared/sync/review';
import type { ConnectRequest } from '../../shared/sync/connect';
import type { JsonObject } from '../../shared/resources';
import { RemoteError } from '../remote/client';
import { ConnectRefused } from '../remote/connect';
import { connectIn, connectPlanIn, type ConnectRunOptions } from '../workspaces/connect';
import type { WorkspaceHost } from '../workspaces/host';
import type { AppHandlers } from './appCall';

function remoteIn(body: JsonObject): string {
  const remote = body.remote;
  if (typeof remote !== 'string' || remote === '' || remote.length > 200) throw ApiError.validation({ remote: ['The name of a configured remote is required.'] });
  return remote;
}

/** A connect request's body, checked (the decisions' contents are checked against the plan). */
function requestIn(body: JsonObject): ConnectRequest {
  const errors: Record<string, string[]> = {};
  const remote = typeof body.remote === 'string' && body.remote !== '' && body.remote.length <= 200 ? body.remote : undefined;
  if (remote === undefined) errors.remote = ['The name of a configured remote is required.'];
  const central = typeof body.central === 'string' && /^[0-9a-f]{64}$/.test(body.central) ? body.central : undefined;
  if (central === undefined) errors.central = ["The plan's central hash (64 hex digits) is required."];
  const pushMode = pushModeOf(body.pushMode);
  if (pushMode === null) errors.pushMode = [`One of ${PUSH_MODES.join(', ')} is required.`];
  const decisions = body.decisions ?? {};
  if (typeof decisions !== 'object' || decisions === null || Array.isArray(decisions)) errors.decisions = ['An object of decisions by "resource:pk" is expected.'];
  if (Object.keys(errors).length > 0) throw ApiError.validation(errors);
  return { remote: remote!, central: central!, pushMode: pushMode!, decisions: decisions as ConnectRequest['decisions'] };
}

/** What stops a plan or a connect, as the API says it: refusals with their status, an unreachable central server a 502. */
function answered<T>(work: Promise<T>): Promise<T> {
  return work.catch((error: unknown) => {
    if (error instanceof ConnectRefused) throw error.errors ? ApiError.validation(error.errors) : ApiError.detail(error.status, error.message);
    if (error instanceof RemoteError) throw new ApiError(502, { detail: `The central server could not be read: ${error.message}`, kind: error.kind });
    throw error;
  });
}

export function connectHandlers(host: WorkspaceHost, options: ConnectRunOptions = {}): Pick<AppHandlers, 'connectPlan' | 'connectWorkspace'> {
  return {
    connectPlan: async (call, { name }) => ({ status: 200, body: await answered(connectPlanIn(host, name!, remoteIn(call.body()), options)) }),
    connectWorkspace: async (call, { name }) => ({ status: 200, body: await answered(connectIn(host, name!, requestIn(call.body()), options)) }),
  };
}
