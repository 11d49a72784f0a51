/**
 * api.md §6 accounts: users, their token (`<pk>/token/`, POST regenerates and the old token
 * stops working at once), their password (`<pk>/password/`) and `current_user/`.
 */
import { ApiError } from '../../../shared/api/errors';
import { secretChange } from '../../../shared/api/fieldChanges';
import { MESSAGES } from '../../../shared/api/messages';
import { requireObject, validateComment } from '../../../shared/api/validate';
import { ok } from '../http/types';
import { field, fields } from '../../../shared/resources';
import type { Endpoint, RequestContext } from '../routing/endpoint';
import type { ActionWithForm } from '../routing/metadata';
import type { Services } from '../store/services';
import type { Row } from '../store/table';
import { checkPassword, hashPassword, isManager, type UserRecord } from '../store/users';
import { clientIp, insertWithTimes, lookupPk, modelEndpoint, updateWithTimes } from './model';

/** A token or password action's entry: the secret recorded as changed, never its value. */
function logUser(ctx: RequestContext, actionType: string, target: UserRecord, comment: string | null | undefined, secret: 'token' | 'password'): void {
  ctx.services.history.log({
    actionType,
    user: ctx.user,
    clientIp: clientIp(ctx),
    comment,
    objects: { other_user: { type: 'sciriususer', pk: target.pk, value: target.username } },
    changes: [secretChange(secret)],
  });
}

/** The user a self-service action names: oneself, or anyone for a manager (403 otherwise). */
function target(ctx: RequestContext, id: string): UserRecord {
  const user = ctx.services.users.get(lookupPk(id));
  if (!user) throw ApiError.detail(404, MESSAGES.notFound);
  if (user.pk !== ctx.user.pk && !isManager(ctx.user)) throw ApiError.detail(403, MESSAGES.permissionDenied);
  return user;
}

function passwordField(value: unknown, errors: Record<string, string[]>, name: string, required: boolean): string | undefined {
  if (value === undefined) {
    if (required) errors[name] = [MESSAGES.required];
    return undefined;
  }
  if (value === null) errors[name] = [MESSAGES.null];
  else if (typeof value !== 'string' && typeof value !== 'number') errors[name] = [MESSAGES.notAString];
  else if (String(value).trim() === '') errors[name] = [MESSAGES.blank];
  else return String(value).trim();
  return undefined;
}

/** What `<pk>/password/` takes, as OPTIONS describes it (the comment first, as DRF orders inherited fields). */
const PASSWORD_FORM = fields({
  comment: field.comment(),
  old_password: { kind: 'string' },
  new_password: { kind: 'string', required: true },
});

const passwordAction = (action: ActionWithForm): ActionWithForm => action;

/** A superuser row (the flag of the first admin, or the role), active. */
function isSuperuserRow(row: Row): boolean {
  return Number(row.is_active) === 1 && (Number(row.is_superuser) === 1 || row.role === 'Superuser');
}

export function userEndpoint(services: Services): Endpoint {
  const table = services.tables.user;
  const base = modelEndpoint({
    table,
    hooks: {
      validate: (_ctx, write, existing) => {
        if (!existing && write.values.password === undefined) throw ApiError.validation({ password: [MESSAGES.required] });
        if (existing && isSuperuserRow(existing) && services.users.otherActiveSuperusers(Number(existing.pk)) === 0) {
          // The workspace must keep someone who can manage it.
          if (write.values.role !== undefined && write.values.role !== 'Superuser' && Number(existing.is_superuser) !== 1) {
            throw ApiError.validation({ role: [MESSAGES.lastSuperuser] });
          }
          if (write.values.is_active === false) throw ApiError.validation({ is_active: [MESSAGES.lastSuperuser] });
        }
      },
      checkDelete: (_ctx, pk, row) => {
        if (isSuperuserRow(row) && services.users.otherActiveSuperusers(pk) === 0) throw ApiError.detail(400, MESSAGES.lastSuperuser);
      },
      insert: (ctx, write) => {
        const { password, ...values } = write.values;
        return insertWithTimes(ctx, table, values, { password: hashPassword(String(password)) });
      },
      change: (ctx, pk, write) => {
        const { password, ...values } = write.values;
        updateWithTimes(ctx, table, pk, values, typeof password === 'string' ? { password: hashPassword(password) } : {});
      },
    },
  });

  return {
    ...base,
    actions: [
      {
        name: 'token',
        detail: true,
        methods: ['GET', 'POST'],
        selfService: true,
        handler: (ctx, id) => {
          const user = target(ctx, id);
          if (ctx.req.method !== 'POST') return ok({ token: services.users.tokenOf(user.pk) });
          const token = services.store.write(() => {
            const comment = validateComment(ctx.body());
            const key = services.users.regenerateToken(user.pk);
            logUser(ctx, 'edit_user_token', user, comment, 'token');
            return key;
          });
          return ok({ token });
        },
      },
      passwordAction({
        name: 'password',
        detail: true,
        methods: ['POST'],
        selfService: true,
        form: PASSWORD_FORM,
        handler: (ctx, id) => {
          const user = target(ctx, id);
          services.store.write(() => {
            const body = requireObject(ctx.body());
            const errors: Record<string, string[]> = {};
            const old = passwordField(body.old_password, errors, 'old_password', false);
            const fresh = passwordField(body.new_password, errors, 'new_password', true);
            let comment: string | null | undefined;
            try {
              comment = validateComment(body);
            } catch (error) {
              if (!(error instanceof ApiError)) throw error;
              errors.comment = [MESSAGES.notAString];
            }
            if (Object.keys(errors).length > 0) throw ApiError.validation(errors);
            if (user.pk === ctx.user.pk && user.password !== '' && !checkPassword(old ?? '', user.password)) {
              throw ApiError.validation({ old_password: [MESSAGES.wrongPassword] });
            }
            services.users.setPassword(user.pk, fresh!);
            logUser(ctx, 'edit_user_password', user, comment, 'password');
          });
          return ok({ password: 'updated' });
        },
      }),
      {
        name: 'current_user',
        detail: false,
        methods: ['GET'],
        handler: (ctx) => base.retrieve!(ctx, String(ctx.user.pk)),
      },
    ],
  };
}
