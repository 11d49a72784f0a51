export const USAGE = `Usage: outpost <command> [options]

Commands:
  serve            run the embedded central-server API and the web UI
                   [--data DIR] [--workspace NAME] [--host 127.0.0.1] [--port 8000]
                   [--tls self-signed | --cert FILE --key FILE] [--admin-token TOKEN]
  import-hosts F   import a JSON array of host identities ({"ip", "hits"?, "host_id"})
  import-threats F import a JSON array of threats (the API's threat objects)

Every command takes --data DIR (default: the platform's Outpost folder, or $OUTPOST_DATA)
and --workspace NAME (default: the last one used, or "default").
`;

export class UsageError extends Error {}
