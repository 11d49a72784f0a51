/**
 * The app's own endpoints under `/app/` (app.md §1), declared once: the server dispatches on this
 * table (electron/app/appRoutes.ts), checks its roles (electron/app/appPermissions.ts), and the
 * renderer's client builds its requests from it. A path segment starting with `:` is a parameter.
 * Each route's answer and body are typed here too (`AppRouteTypes`): the server's handlers must
 * return that answer (the compiler refuses another shape) and the renderer's client gives it, so
 * that no screen reads an answer by hand.
 */
import type { ImportedAccounts } from './importedAccounts';
import type { HostComparison, HostFacetsAnswer, HostFieldsAnswer, HostListAnswer, HostsVersionAnswer, HostValuesAnswer, Visit } from './hostSurvey';
import type { FieldChange } from '../api/fieldChanges';
import type { EveProgress, EveSummary } from '../eve/summary';
import type { JsonObject } from '../resources';
import type { EntryView, SyncStatus, SyncStatusView } from './sync';
import type { HostJsonParts } from '../report/jsonParts';
import type { RemoteTestResult } from './remoteTest';
import type { ApplyRequest, ApplyResult, PushMode, ReviewPlan } from '../sync/review';
import type { ConnectPlan, ConnectRequest, ConnectResult } from '../sync/connect';
import type { TemplatePreview } from './templatePreview';

export type AppMethod = 'GET' | 'POST' | 'PUT' | 'PATCH' | 'DELETE';

/** `any`: every authenticated user; `manager`: Superuser and Admin (docs/authorization.md). */
export type AppRole = 'any' | 'manager';

export interface AppRouteSpec {
  readonly method: AppMethod;
  readonly path: readonly string[];
  readonly role: AppRole;
}

export const APP_ROUTES = {
  status: { method: 'GET', path: ['status'], role: 'any' },
  centralLink: { method: 'GET', path: ['central-link'], role: 'any' },

  workspaces: { method: 'GET', path: ['workspaces'], role: 'manager' },
  createWorkspace: { method: 'POST', path: ['workspaces'], role: 'manager' },
  importWorkspace: { method: 'POST', path: ['workspaces', 'import'], role: 'manager' },
  renameWorkspace: { method: 'PATCH', path: ['workspaces', ':name'], role: 'manager' },
  deleteWorkspace: { method: 'DELETE', path: ['workspaces', ':name'], role: 'manager' },
  openWorkspace: { method: 'POST', path: ['workspaces', ':name', 'open'], role: 'manager' },
  exportWorkspace: { method: 'GET', path: ['workspaces', ':name', 'export'], role: 'manager' },
  // Connecting a standalone workspace to a central server (shared/sync/connect.ts): the plan, then the connect.
  connectPlan: { method: 'POST', path: ['workspaces', ':name', 'connect', 'plan'], role: 'manager' },
  connectWorkspace: { method: 'POST', path: ['workspaces', ':name', 'connect'], role: 'manager' },

  remotes: { method: 'GET', path: ['remotes'], role: 'manager' },
  addRemote: { method: 'POST', path: ['remotes'], role: 'manager' },
  changeRemote: { method: 'PATCH', path: ['remotes', ':name'], role: 'manager' },
  removeRemote: { method: 'DELETE', path: ['remotes', ':name'], role: 'manager' },
  testRemote: { method: 'POST', path: ['remotes', ':name', 'test'], role: 'manager' },

  importEve: { method: 'POST', path: ['hosts', 'import-eve'], role: 'manager' },
  eveProgress: { method: 'GET', path: ['hosts', 'import-eve'], role: 'manager' },
  homeNets: { method: 'GET', path: ['settings', 'home-nets'], role: 'any' },
  setHomeNets: { method: 'PUT', path: ['settings', 'home-nets'], role: 'manager' },

  // The site survey (shared/app/hostSurvey.ts): the list with its columns and filter, its facets,
  // the query language's fields and values, the data's version, the imports and pulls, a comparison.
  hostList: { method: 'GET', path: ['hosts'], role: 'any' },
  hostFacets: { method: 'GET', path: ['hosts', 'facets'], role: 'any' },
  hostFields: { method: 'GET', path: ['hosts', 'fields'], role: 'any' },
  hostValues: { method: 'GET', path: ['hosts', 'values'], role: 'any' },
  hostsVersion: { method: 'GET', path: ['hosts', 'version'], role: 'any' },
  visits: { method: 'GET', path: ['hosts', 'visits'], role: 'any' },
  hostChanges: { method: 'GET', path: ['hosts', 'changes'], role: 'any' },
  // The list exported (CSV; JSON in the API's shape, in parts the host import takes) and the site report (docs/report.md).
  exportHostsCsv: { method: 'GET', path: ['hosts', 'export', 'csv'], role: 'any' },
  exportHostsJson: { method: 'GET', path: ['hosts', 'export', 'json'], role: 'any' },
  exportHostsJsonPart: { method: 'GET', path: ['hosts', 'export', 'json', 'part'], role: 'any' },
  hostReport: { method: 'GET', path: ['hosts', 'report'], role: 'any' },
  hostReportPdf: { method: 'GET', path: ['hosts', 'report', 'pdf'], role: 'any' },

  // The local history with a range of days and one object's entries, and each entry's field changes (shared/app/history.ts).
  history: { method: 'GET', path: ['history'], role: 'any' },
  historyChanges: { method: 'GET', path: ['history', ':pk', 'changes'], role: 'any' },

  sync: { method: 'GET', path: ['sync'], role: 'manager' },
  syncNow: { method: 'POST', path: ['sync'], role: 'manager' },
  conflicts: { method: 'GET', path: ['sync', 'conflicts'], role: 'manager' },
  remoteHistory: { method: 'GET', path: ['sync', 'remote-history'], role: 'manager' },
  discardEntry: { method: 'DELETE', path: ['sync', 'entries', ':seq'], role: 'manager' },
  retryEntry: { method: 'POST', path: ['sync', 'entries', ':seq', 'retry'], role: 'manager' },
  resolveEntry: { method: 'POST', path: ['sync', 'entries', ':seq', 'resolve'], role: 'manager' },
  // Review before push (shared/sync/review.ts): the plan (GETs of the central server only), applying reviewed entries, the mode.
  syncPlan: { method: 'GET', path: ['sync', 'plan'], role: 'manager' },
  syncApply: { method: 'POST', path: ['sync', 'apply'], role: 'manager' },
  setPushMode: { method: 'PUT', path: ['sync', 'push-mode'], role: 'manager' },

  // What saving a template would change for the local probes and templates that inherit from it (shared/app/templatePreview.ts).
  templatePreview: { method: 'POST', path: ['templates', ':pk', 'preview'], role: 'manager' },
} as const satisfies Readonly<Record<string, AppRouteSpec>>;

export type AppRouteName = keyof typeof APP_ROUTES;

/** Who is signed in, as `/app/status` says it. */
export interface AppUser {
  readonly pk: number;
  readonly username: string;
  readonly role: string;
}

/** `GET /app/status` (and `POST /app/workspaces/<name>/open`, about the workspace now open). */
export interface AppStatus {
  readonly version: string;
  readonly workspace: string;
  readonly mode: 'standalone' | 'bound';
  /** A bound workspace's link to its central server (the indicator); null when standalone. */
  readonly sync: SyncStatusView | null;
  readonly user: AppUser;
}

/** A workspace of the data folder. */
export interface WorkspaceRow {
  readonly name: string;
  readonly current: boolean;
  readonly sizeBytes: number;
  /** The central server it is bound to; null when standalone. */
  readonly remote: string | null;
}

export interface WorkspaceList {
  readonly current: string;
  readonly workspaces: readonly WorkspaceRow[];
}

/** A remote of the data folder; its token is never read back, only whether there is one. */
export interface RemoteInfo {
  readonly name: string;
  readonly url: string;
  readonly insecure: boolean;
  readonly pin: string | null;
  readonly hasToken: boolean;
}

/** The EVE import under way (one at a time), or none. */
export type EveProgressAnswer = { readonly running: false } | (EveProgress & { readonly running: true; readonly name: string });

export interface HomeNetsAnswer {
  readonly homeNets: readonly string[];
}

/** The field changes recorded with one history entry; `recorded` false when none were kept. */
export interface HistoryChangesAnswer {
  readonly pk: number;
  readonly recorded: boolean;
  readonly changes: readonly FieldChange[];
}

/** A page of a list, in the API's envelope (history entries keep the API's entry shape). */
export interface AppPage<T> {
  readonly count: number;
  readonly next?: string | null;
  readonly previous?: string | null;
  readonly results: readonly T[];
}

/** What the renderer sends to the routes that take a body (the server still checks every field). */
export interface WorkspaceBody {
  readonly name: string;
  readonly remote?: string;
  /** A bound workspace's push mode (shared/sync/review.ts); new ones default to after review. */
  readonly pushMode?: PushMode;
}

export interface RemoteBody {
  readonly name: string;
  readonly url: string;
  readonly token: string;
  readonly insecure?: boolean;
  readonly pin?: string;
}

export interface RemoteChangeBody {
  readonly url?: string;
  readonly token?: string;
  readonly insecure?: boolean;
  readonly pin?: string | null;
}

type NoBody = Readonly<Record<string, never>>;

/**
 * An answer that is not JSON: a file of this media type, streamed (electron/app/appCall.ts's
 * `StreamedBytes`). The renderer saves it (a link or a download), it does not parse it.
 */
export interface FileAnswer<M extends string> {
  readonly mediaType: M;
}

/** The PDF could not be made here (no Chromium): the report is to be printed from its HTML. */
export interface PdfUnavailable {
  readonly pdf: false;
  readonly detail: string;
}

/**
 * Each route's answer (the JSON of a 2xx; null for a 204) and, for those that take one, its body.
 * Answers are plain JSON data: strings, numbers, booleans, null, arrays and objects of them.
 */
export interface AppRouteTypes {
  status: { answer: AppStatus };
  centralLink: { answer: { readonly url: string | null } };
  workspaces: { answer: WorkspaceList };
  createWorkspace: { answer: { readonly name: string; readonly remote: string | null }; body: WorkspaceBody };
  /** The body is the bundle file's JSON, as read from the file. */
  importWorkspace: { answer: { readonly name: string; readonly accounts: ImportedAccounts }; body: JsonObject };
  renameWorkspace: { answer: WorkspaceList; body: Pick<WorkspaceBody, 'name'> };
  deleteWorkspace: { answer: null };
  openWorkspace: { answer: AppStatus; body: NoBody };
  /** The bundle (docs/workspaces: its tables and rows). */
  exportWorkspace: { answer: JsonObject };
  /** The plan of connecting the standalone workspace to the remote; nothing is sent or changed. */
  connectPlan: { answer: ConnectPlan; body: { readonly remote: string } };
  /** Connect it as planned (refused with 409 if the central server changed since the plan). */
  connectWorkspace: { answer: ConnectResult; body: ConnectRequest };
  remotes: { answer: readonly RemoteInfo[] };
  addRemote: { answer: { readonly remote: RemoteInfo | null; readonly warning: string | null }; body: RemoteBody };
  changeRemote: { answer: (RemoteInfo & { readonly warning?: string }) | null; body: RemoteChangeBody };
  removeRemote: { answer: null };
  /** The saved remote's connection tested, step by step (shared/app/remoteTest.ts); a failed test is a 200 too. */
  testRemote: { answer: RemoteTestResult; body: NoBody };
  /** The body is the log itself, streamed (renderer/src/screens/hostsUpload.ts), not JSON. */
  importEve: { answer: EveSummary };
  eveProgress: { answer: EveProgressAnswer };
  homeNets: { answer: HomeNetsAnswer };
  setHomeNets: { answer: HomeNetsAnswer; body: HomeNetsAnswer };
  hostList: { answer: HostListAnswer };
  hostFacets: { answer: HostFacetsAnswer };
  hostFields: { answer: HostFieldsAnswer };
  hostValues: { answer: HostValuesAnswer };
  hostsVersion: { answer: HostsVersionAnswer };
  visits: { answer: AppPage<Visit> };
  hostChanges: { answer: HostComparison };
  /** The list under the filter (`q`, `search`, `visit`…), `columns`, `ordering`, `delimiter`: a CSV file, streamed. */
  exportHostsCsv: { answer: FileAnswer<'text/csv'> };
  /** The parts the JSON export of the list under the filter takes, each with its URL. */
  exportHostsJson: { answer: HostJsonParts };
  /** One part (`from`, `to`: the pks it spans, as `exportHostsJson` listed them): a JSON array of the API's host entries. */
  exportHostsJsonPart: { answer: FileAnswer<'application/json'> };
  /** The site report (`since`: an import's pk; `users=1`): one HTML file. */
  hostReport: { answer: FileAnswer<'text/html'> };
  /** The same as PDF, made by the system's Chromium; without one, why not and what to do instead. */
  hostReportPdf: { answer: FileAnswer<'application/pdf'> | PdfUnavailable };
  history: { answer: AppPage<JsonObject> };
  historyChanges: { answer: HistoryChangesAnswer };
  sync: { answer: { readonly status: SyncStatus; readonly entries: readonly EntryView[] } };
  /** After review (push mode `review`) "Sync now" pulls only, unless `push` is true (then everything waiting is sent). */
  syncNow: { answer: SyncStatus; body: { readonly allowMassDelete?: boolean; readonly push?: boolean } };
  conflicts: { answer: readonly EntryView[] };
  remoteHistory: { answer: AppPage<JsonObject> };
  discardEntry: { answer: null };
  retryEntry: { answer: SyncStatus; body: NoBody };
  resolveEntry: { answer: { readonly entry: EntryView | null }; body: { readonly field: string; readonly choice: 'mine' | 'theirs' } };
  syncPlan: { answer: ReviewPlan };
  /** Send the reviewed entries (their dependencies named too), then pull; what went and what stopped for a new review. */
  syncApply: { answer: ApplyResult & { readonly status: SyncStatus }; body: ApplyRequest };
  setPushMode: { answer: SyncStatus; body: { readonly mode: PushMode } };
  /** The body holds the template's fields as the save would write them. */
  templatePreview: { answer: TemplatePreview; body: JsonObject };
}

/** The answer of a route. */
export type AppAnswer<N extends AppRouteName> = AppRouteTypes[N]['answer'];

/** The body a route takes; `undefined` for those that take none. */
export type AppBody<N extends AppRouteName> = AppRouteTypes[N] extends { body: infer B } ? B : undefined;

type Same<A, B> = [A] extends [B] ? ([B] extends [A] ? true : false) : false;
type Holds<T extends true> = T;
/** The types name every route of the table and no other (the compiler checks it). */
export type AppRouteTypesMatchTable = Holds<Same<keyof AppRouteTypes, AppRouteName>>;

type ParamsOf<P extends readonly string[]> = P[number] extends infer S ? (S extends `:${infer N}` ? N : never) : never;

/** The parameters a route's path takes: `{ name: string }`, `{ seq: string }` or none. */
export type AppParams<N extends AppRouteName> = { readonly [K in ParamsOf<(typeof APP_ROUTES)[N]['path']>]: string | number };

/** Who may call anything not in the table (a 404 for managers, a 403 for the others). */
export const DEFAULT_APP_ROLE: AppRole = 'manager';

/** The path of a route, parameters filled in and encoded: `/app/workspaces/lab%20A/open`. */
export function appPath<N extends AppRouteName>(name: N, ...params: keyof AppParams<N> extends never ? [] : [AppParams<N>]): string {
  const values = (params[0] ?? {}) as Readonly<Record<string, string | number>>;
  const segments = APP_ROUTES[name].path.map((segment) => {
    if (!segment.startsWith(':')) return segment;
    const value = values[segment.slice(1)];
    if (value === undefined) throw new Error(`${name}: parameter ${segment} is missing`);
    return encodeURIComponent(String(value));
  });
  return `/app/${segments.join('/')}`;
}

export interface AppRouteMatch {
  readonly name: AppRouteName;
  readonly params: Readonly<Record<string, string>>;
}

/** The route a method and the (decoded) segments below `/app/` name; HEAD is GET. */
export function matchAppRoute(method: string, segments: readonly string[]): AppRouteMatch | undefined {
  const wanted = method === 'HEAD' ? 'GET' : method;
  let best: { match: AppRouteMatch; literals: number } | undefined;
  for (const [name, route] of Object.entries(APP_ROUTES) as [AppRouteName, AppRouteSpec][]) {
    if (route.method !== wanted || route.path.length !== segments.length) continue;
    const params: Record<string, string> = {};
    let literals = 0;
    const fits = route.path.every((segment, i) => {
      if (segment.startsWith(':')) {
        params[segment.slice(1)] = segments[i]!;
        return true;
      }
      literals++;
      return segment === segments[i];
    });
    // A literal segment wins over a parameter (`workspaces/import`, not a workspace named "import").
    if (fits && (!best || literals > best.literals)) best = { match: { name, params }, literals };
  }
  return best?.match;
}

/** The role a call needs: the route's, or the default for anything not in the table. */
export function appRoleFor(method: string, segments: readonly string[]): AppRole {
  const match = matchAppRoute(method, segments);
  return match ? APP_ROUTES[match.name].role : DEFAULT_APP_ROLE;
}
