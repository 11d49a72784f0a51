/** Answers every transport sends alike: the security headers, JSON bodies, and a request's origin. */
import { renderBody, type Body, type RenderedJson } from './jsonBody';
import type { ApiRequest, ApiResponse } from './types';

export const SECURITY_HEADERS: Readonly<Record<string, string>> = {
  'X-Content-Type-Options': 'nosniff',
  'X-Frame-Options': 'DENY',
  'Referrer-Policy': 'same-origin',
};

function rendered(json: RenderedJson): { body: string; bodyLength: number } {
  return { body: json.text, bodyLength: json.byteLength };
}

/** A JSON answer with the headers every response carries. */
export function jsonResponse(status: number, body: Body | null, headers: Record<string, string> = {}, indent?: number): ApiResponse {
  if (body === null || status === 204) return { status, headers: { ...SECURITY_HEADERS, ...headers }, body: null };
  return {
    status,
    headers: { 'Content-Type': 'application/json', ...SECURITY_HEADERS, ...headers },
    ...rendered(renderBody(body, indent)),
  };
}

export function originOf(req: ApiRequest): string {
  return `${req.scheme}://${req.headers.host ?? 'localhost'}`;
}
