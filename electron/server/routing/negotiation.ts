/**
 * DRF's content negotiation: `?format=` picks among the renderers (unknown → 404); then the
 * Accept header's most specific media types are tried against JSON first, then HTML; q-values
 * are ignored. Nothing acceptable → 406.
 */
import { ApiError } from '../../../shared/api/errors';
import { MESSAGES } from '../../../shared/api/messages';

export type RendererName = 'json' | 'html';

export interface Negotiated {
  readonly renderer: RendererName;
  /** `Accept: application/json; indent=4`. */
  readonly indent?: number;
}

const RENDERERS: readonly { name: RendererName; format: string; main: string; sub: string }[] = [
  { name: 'json', format: 'json', main: 'application', sub: 'json' },
  { name: 'html', format: 'api', main: 'text', sub: 'html' },
];

interface MediaType {
  readonly main: string;
  readonly sub: string;
  readonly params: ReadonlyMap<string, string>;
}

function parseMediaType(text: string): MediaType {
  const [type = '', ...rest] = text.split(';');
  const params = new Map<string, string>();
  for (const part of rest) {
    const eq = part.indexOf('=');
    if (eq < 0) continue;
    params.set(part.slice(0, eq).trim().toLowerCase(), part.slice(eq + 1).trim().replace(/^"(.*)"$/, '$1'));
  }
  const full = type.trim().toLowerCase();
  const slash = full.indexOf('/');
  return slash < 0 ? { main: full, sub: '', params } : { main: full.slice(0, slash), sub: full.slice(slash + 1), params };
}

function precedence(media: MediaType): number {
  if (media.main === '*') return 0;
  if (media.sub === '*') return 1;
  if (media.params.size === 0 || (media.params.size === 1 && media.params.has('q'))) return 2;
  return 3;
}

function matches(renderer: { main: string; sub: string }, accepted: MediaType): boolean {
  if (accepted.sub !== '*' && accepted.sub !== renderer.sub) return false;
  return accepted.main === '*' || accepted.main === renderer.main;
}

function indentOf(media: MediaType): number | undefined {
  const raw = media.params.get('indent');
  if (raw === undefined || !/^\s*[+-]?\d+\s*$/.test(raw)) return undefined;
  const n = Math.max(0, Math.min(8, Number(raw)));
  return n === 0 ? undefined : n;
}

export function negotiate(accept: string | undefined, format: string | undefined): Negotiated {
  let candidates = RENDERERS;
  if (format) {
    candidates = RENDERERS.filter((r) => r.format === format);
    if (candidates.length === 0) throw ApiError.detail(404, MESSAGES.notFound);
  }
  const accepted = (accept ?? '*/*').split(',').map((token) => parseMediaType(token.trim()));
  for (let level = 3; level >= 0; level--) {
    const set = accepted.filter((media) => precedence(media) === level);
    if (set.length === 0) continue;
    for (const renderer of candidates) {
      const match = set.find((media) => matches(renderer, media));
      if (match) {
        const indent = renderer.name === 'json' ? indentOf(match) : undefined;
        return indent === undefined ? { renderer: renderer.name } : { renderer: renderer.name, indent };
      }
    }
  }
  throw ApiError.detail(406, MESSAGES.notAcceptable);
}
