import crypto from 'node:crypto';
import { digestOf, sameSecret } from './secrets';
import { ReadCache, type Store } from './store';

/** A user row (SQL types). */
export interface UserRecord {
  readonly pk: number;
  readonly username: string;
  readonly password: string;
  readonly first_name: string;
  readonly last_name: string;
  readonly email: string;
  readonly is_active: number;
  readonly is_staff: number;
  readonly is_superuser: number;
  readonly timezone: string;
  readonly role: string;
  readonly date_joined: number;
}

export function isManager(user: UserRecord): boolean {
  return user.is_superuser === 1 || user.role === 'Superuser' || user.role === 'Admin';
}

/** A new API token: 40 lowercase hex characters, as DRF makes them. */
export function newTokenKey(): string {
  return crypto.randomBytes(20).toString('hex');
}

const SCRYPT = { N: 16384, r: 8, p: 1, keylen: 32 } as const;

export function hashPassword(password: string): string {
  const salt = crypto.randomBytes(16).toString('base64');
  const hash = crypto.scryptSync(password, salt, SCRYPT.keylen, { N: SCRYPT.N, r: SCRYPT.r, p: SCRYPT.p }).toString('base64');
  return `scrypt$${SCRYPT.N}$${SCRYPT.r}$${SCRYPT.p}$${salt}$${hash}`;
}

export function checkPassword(password: string, stored: string): boolean {
  const [scheme, n, r, p, salt, hash] = stored.split('$');
  if (scheme !== 'scrypt' || !salt || !hash) return false;
  const expected = Buffer.from(hash, 'base64');
  const actual = crypto.scryptSync(password, salt, expected.length, { N: Number(n), r: Number(r), p: Number(p) });
  return crypto.timingSafeEqual(expected, actual);
}

function withoutTokenKey(row: UserRecord & { token_key: string }): UserRecord {
  const { token_key: _, ...user } = row;
  return user;
}

const SESSION_SECONDS = 14 * 24 * 3600;

/** Accounts, tokens and browser sessions. */
export class Users {
  /** Users by token digest: every request looks its token up; emptied by any write. */
  private readonly tokens: ReadCache<string, { key: string; user: UserRecord } | null>;
  private readonly tokenListeners = new Set<(user: UserRecord, token: string) => void>();

  constructor(private readonly store: Store) {
    this.tokens = store.register(new ReadCache());
  }

  get(pk: number): UserRecord | undefined {
    return this.store.query('SELECT * FROM user WHERE pk = ?').get(pk) as UserRecord | undefined;
  }

  /** Active superusers other than `pk`: the last one may be neither deleted, demoted nor deactivated. */
  otherActiveSuperusers(pk: number): number {
    return Number(
      this.store.query("SELECT count(*) FROM user WHERE pk != ? AND is_active = 1 AND (is_superuser = 1 OR role = 'Superuser')").pluck().get(pk),
    );
  }

  byUsername(username: string): UserRecord | undefined {
    return this.store.query('SELECT * FROM user WHERE username = ?').get(username) as UserRecord | undefined;
  }

  byToken(key: string): UserRecord | undefined {
    const digest = digestOf(key);
    let found = this.tokens.get(digest);
    if (found === undefined) {
      const row = this.store
        .query('SELECT token.key AS token_key, user.* FROM token JOIN user ON user.pk = token.user WHERE token.digest = ?')
        .get(digest) as (UserRecord & { token_key: string }) | undefined;
      found = row ? { key: row.token_key, user: withoutTokenKey(row) } : null;
      this.tokens.set(digest, found);
    }
    return found && sameSecret(found.key, key) ? found.user : undefined;
  }

  /** The user's token, or '' when none was generated. */
  tokenOf(pk: number): string {
    return (this.store.query('SELECT key FROM token WHERE user = ?').pluck().get(pk) as string | undefined) ?? '';
  }

  /** Set the user's password (stored as its hash). */
  setPassword(pk: number, password: string): void {
    this.store.command('UPDATE user SET password = ? WHERE pk = ?').run(hashPassword(password), pk);
  }

  /** Give the user exactly this token (the previous one stops working at once). */
  setToken(pk: number, key: string): string {
    this.store.write(() => {
      this.store.command('DELETE FROM token WHERE user = ? OR digest = ?').run(pk, digestOf(key));
      this.store.command('INSERT INTO token (digest, key, user, created) VALUES (?, ?, ?, ?)').run(digestOf(key), key, pk, this.store.now());
    });
    return key;
  }

  regenerateToken(pk: number): string {
    const token = this.setToken(pk, newTokenKey());
    const user = this.get(pk);
    if (user) this.store.afterCommit(() => this.tokenListeners.forEach((listener) => listener(user, token)));
    return token;
  }

  /** Be told (after commit) when a user's token is regenerated. */
  onTokenRegenerated(listener: (user: UserRecord, token: string) => void): () => void {
    this.tokenListeners.add(listener);
    return () => this.tokenListeners.delete(listener);
  }

  /** Superuser `admin` (created if missing); its token is `key`, or kept, or a new one. */
  ensureAdmin(key?: string): { user: UserRecord; token: string } {
    return this.store.write(() => {
      let admin = this.byUsername('admin');
      if (!admin) {
        this.store
          .command(
            "INSERT INTO user (username, password, is_staff, is_superuser, role, date_joined) VALUES ('admin', '', 1, 1, 'Superuser', ?)",
          )
          .run(this.store.now());
        admin = this.byUsername('admin')!;
      }
      const token = key ?? (this.tokenOf(admin.pk) || newTokenKey());
      if (this.tokenOf(admin.pk) !== token) this.setToken(admin.pk, token);
      return { user: admin, token };
    });
  }

  openSession(pk: number): { key: string; csrf: string } {
    const key = crypto.randomBytes(32).toString('hex');
    const csrf = crypto.randomBytes(32).toString('hex');
    const expires = Math.floor(Date.now() / 1000) + SESSION_SECONDS;
    this.store.write(() => {
      this.store.command('DELETE FROM session WHERE expires < ?').run(Math.floor(Date.now() / 1000));
      this.store.command('INSERT INTO session (digest, key, user, csrf, expires) VALUES (?, ?, ?, ?, ?)').run(digestOf(key), key, pk, csrf, expires);
    });
    return { key, csrf };
  }

  session(key: string): { user: UserRecord; csrf: string } | undefined {
    const row = this.store
      .query('SELECT session.key AS session_key, session.csrf AS session_csrf, session.expires AS session_expires, user.* FROM session JOIN user ON user.pk = session.user WHERE session.digest = ?')
      .get(digestOf(key)) as (UserRecord & { session_key: string; session_csrf: string; session_expires: number }) | undefined;
    if (!row || !sameSecret(row.session_key, key) || row.session_expires < Date.now() / 1000) return undefined;
    const { session_key: _k, session_csrf: csrf, session_expires: _e, ...user } = row;
    return { user, csrf };
  }

  closeSession(key: string): void {
    this.store.write(() => this.store.command('DELETE FROM session WHERE digest = ?').run(digestOf(key)));
  }
}
