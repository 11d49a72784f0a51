export const USAGE = `Usage: outpost <command> [options]

Commands:
  serve            run the embedded central-server API and the web UI
                   [--data DIR] [--workspace NAME] [--host 127.0.0.1] [--port 8000]
                   [--tls self-signed | --cert FILE --key FILE] [--admin-token TOKEN]
  import-hosts F   import a JSON array of host identities ({"ip", "hits"?, "host_id"})
  import-threats F import a JSON array of threats (the API's threat objects)
  import-eve PATH...
                   host identities from Suricata EVE logs (files, .gz, or folders of
                   rotated ones); only what was added since the last import is read
                   [--home-net CIDR[,CIDR...]] [--follow to keep reading a growing log]
  export FILE      a workspace to one JSON bundle [--force to replace FILE]
  import FILE      a new workspace from a bundle (named as in it, or --workspace NAME)

  remote add NAME URL --token T [--insecure | --pin SHA256]
                   a central server (its token kept in a 0600 file; --token-file F reads it)
  remote list | set-token NAME --token T | remove NAME
  workspace create NAME [--remote NAME]
                   a new workspace, standalone or bound to a central server
  workspace list
  sync [--json] [--allow-mass-delete] [--page-size N]
                   push the outbox, then pull the central server; exit 0 done,
                   2 conflicts or refused changes wait, 1 error
  conflicts [--json]
                   the fields changed both here and on the central server
  resolve PK FIELD --mine | --theirs [--resource NAME]
                   keep the local value, or take the central server's
  outbox [--json] | outbox retry ENTRY | outbox discard ENTRY
                   local changes not yet pushed, refused ones retried or given up

Every command takes --data DIR (default: the platform's Outpost folder, or $OUTPOST_DATA)
and --workspace NAME (default: the last one used, or "default").
`;

export class UsageError extends Error {}
