/**
 * The central part of a host_id row: `central` holds it, or '' when it is the served identity
 * itself (a host no local import saw, most of them: the identity is then stored once, not twice).
 */
export const CENTRAL_SQL = "CASE WHEN central = '' THEN data ELSE central END";
