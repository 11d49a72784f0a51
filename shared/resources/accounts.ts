import { defineResource, field, fields } from './resource';

export const ROLES = ['Superuser', 'Admin', 'Read-only'] as const;
export type Role = (typeof ROLES)[number];

export const user = defineResource({
  name: 'sciriususer',
  path: 'accounts/sciriususer',
  title: 'Scirius User',
  description:
    'User accounts. Superuser and Admin users manage every account; anyone may read and change their own token (<pk>/token/) and password (<pk>/password/).',
  fields: fields({
    pk: field.pk(),
    username: field.string(150, {
      required: true,
      format: 'username',
      helpText: 'Required. 150 characters or fewer. Letters, digits and @/./+/-/_ only.',
    }),
    password: { kind: 'string', writeOnly: true, format: 'password' },
    first_name: field.text(150),
    last_name: field.text(150),
    email: { kind: 'string', maxLength: 254, allowBlank: true, default: '', format: 'email', label: 'Email address' },
    is_active: field.boolean(true, {
      label: 'Active',
      helpText: 'Designates whether this user should be treated as active. Unselect this instead of deleting accounts.',
    }),
    is_staff: field.boolean(false, {
      label: 'Staff status',
      helpText: 'Designates whether the user can log into this admin site.',
    }),
    timezone: field.string(64, { default: 'UTC' }),
    role: field.choice(ROLES, 'Read-only'),
    date_joined: field.datetime(),
    comment: field.comment(),
  }),
  access: 'read-write',
  filters: ['username', 'role', 'is_active'],
  search: ['username', 'first_name', 'last_name', 'email'],
  ordering: ['pk', 'username', 'date_joined'],
  defaultOrdering: ['pk'],
  unique: { field: 'username', message: 'A user with that username already exists.' },
  display: 'username',
  history: { kind: 'user', keys: { create: 'new_user', edit: 'other_user', delete: 'old_user' } },
  // The password's hash is kept, never shown; is_superuser marks the data folder's own superuser.
  storage: { table: 'user', internal: ['password', 'is_superuser'] },
});
