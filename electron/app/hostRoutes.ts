/**
 * The app's host routes (app.md §4 "Host lookup"): an EVE log uploaded and imported as it
 * arrives (the renderer never holds it whole), the import's progress while it runs, and the
 * workspace's home networks (docs/eve.md).
 */
import { ApiError } from '../../shared/api/errors';
import { MESSAGES } from '../../shared/api/messages';
import { parseHomeNets } from '../../shared/eve/identity';
import { DiskFullError, EveImportError, importEve, refreshIdentities, type EveProgress } from '../workspaces/eveImport';
import type { WorkspaceHost } from '../workspaces/host';
import { ok, type AppHandlers } from './appCall';

type HostRouteName = 'importEve' | 'eveProgress' | 'homeNets' | 'setHomeNets';

export function hostHandlers(host: WorkspaceHost): Pick<AppHandlers, HostRouteName> {
  /** The import under way (one at a time), as its progress says. */
  let running: (EveProgress & { readonly name: string }) | undefined;

  const homeNetsOf = () => ({ homeNets: host.current().services.evidence.homeNets() });

  return {
    importEve: async (call) => {
      if (running) throw ApiError.detail(409, `An EVE import is under way (${running.name}); wait for it to end.`);
      const stream = call.req.bodyStream;
      const name = call.query('name')?.trim() || 'upload';
      // An empty file is sent as no body: the same message as the command's.
      if (!stream) throw ApiError.detail(400, `${name} is empty: no EVE event in it; nothing was imported`);
      const declared = Number(call.req.headers['content-length']);
      const size = Number.isFinite(declared) ? declared : 0;
      const services = host.current().services;
      running = { name, file: name, bytesRead: 0, bytesTotal: size, events: 0, hosts: 0 };
      try {
        const summary = await importEve(services, {
          sources: [{ name, key: `upload:${name}`, size }],
          streams: new Map([[0, stream]]),
          user: { pk: call.user.pk, username: call.user.username },
          onProgress: (progress) => {
            running = { ...progress, name };
          },
        });
        return ok(summary);
      } catch (error) {
        if (error instanceof EveImportError) throw ApiError.detail(400, error.message);
        if (error instanceof DiskFullError) throw ApiError.detail(507, error.message);
        throw error;
      } finally {
        running = undefined;
      }
    },
    eveProgress: () => ok(running ? { ...running, running: true } : { running: false }),
    homeNets: () => ok(homeNetsOf()),
    setHomeNets: async (call) => {
      const body = call.body();
      const given = body.homeNets;
      const text = Array.isArray(given) ? given.filter((v): v is string => typeof v === 'string').join(',') : typeof given === 'string' ? given : undefined;
      if (text === undefined) throw ApiError.validation({ homeNets: [given === undefined ? MESSAGES.required : 'Give a list of networks in CIDR form.'] });
      const parsed = parseHomeNets(text);
      if ('error' in parsed) {
        const sentence = parsed.error.charAt(0).toUpperCase() + parsed.error.slice(1);
        throw ApiError.validation({ homeNets: [/[.?!]$/.test(sentence) ? sentence : `${sentence}.`] });
      }
      const services = host.current().services;
      // in_home_net and net_info of every address the local imports saw follow the new setting,
      // written on a thread of their own (a large site's are seconds of work).
      services.store.write(() => services.evidence.setHomeNets(parsed.networks.map((n) => n.text)));
      await refreshIdentities(services);
      return ok(homeNetsOf());
    },
  };
}
