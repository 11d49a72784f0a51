/**
 * The API calls the probe and template browser tests make to set a workspace up and check what
 * the screens wrote: their paths, and create/read that fail loudly on any other answer.
 */
import type { Session } from './browser';

export const TEMPLATES = '/rest/appliances/vendor_probe_template/';
export const VENDOR = '/rest/appliances/vendor_probe/';
export const ENGINE = '/rest/appliances/engine_probe/';

// Tests read API bodies loosely.
export type Body = Record<string, any>;

/** `create` (201 expected) and `read` (200 expected) on the server of the session `current()` gives. */
export function probeApi(current: () => Session): { create(path: string, body: Body): Promise<Body>; read(path: string): Promise<Body> } {
  return {
    async create(path, body) {
      const reply = await current().server.api.post(path, body);
      if (reply.status !== 201) throw new Error(`${path}: ${reply.status} ${reply.text}`);
      return reply.json();
    },
    async read(path) {
      const reply = await current().server.api.get(path);
      if (reply.status !== 200) throw new Error(`${path}: ${reply.status} ${reply.text}`);
      return reply.json();
    },
  };
}
