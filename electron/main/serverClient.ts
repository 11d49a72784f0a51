/** The main process asking its own server something, with the local token, on 127.0.0.1 only. */
import type { Fetch } from './appProtocol';
import type { ServerEndpoint } from './serverMessages';

/** The JSON answer to `GET <path>`, or undefined when the server is down or does not answer 200. */
export async function askServer(endpoint: ServerEndpoint | undefined, path: string, fetcher: Fetch = fetch): Promise<unknown> {
  if (!endpoint || !path.startsWith('/')) return undefined;
  try {
    const answer = await fetcher(`http://127.0.0.1:${endpoint.port}${path}`, {
      headers: { Authorization: `Token ${endpoint.token}`, Accept: 'application/json' },
      signal: AbortSignal.timeout(5_000),
    });
    if (answer.status !== 200) return undefined;
    return (await answer.json()) as unknown;
  } catch {
    return undefined;
  }
}
