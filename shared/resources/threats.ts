import { defineResource, field, fields } from './resource';

/** api.md §6: the central server's threat catalogue; read-only here, filled by import and sync. */
export const threat = defineResource({
  name: 'threat',
  path: 'appliances/threat',
  title: 'Threat',
  description: 'Threats of the central server\'s catalogue. Read-only: they arrive through import/ and the sync.',
  fields: fields({
    pk: { kind: 'integer', min: 0, required: true, label: 'Pk' },
    threat_id: field.integer({ nullable: true }),
    name: field.string(255, { required: true }),
    description: { kind: 'string', allowBlank: true, default: '' },
    additional_info: { kind: 'string', allowBlank: true, default: '' },
    icon: field.text(255),
    criticity: field.integer({ default: 1 }),
    version: field.integer({ default: 1 }),
    active: field.boolean(true),
    creation_date: { kind: 'date', nullable: true, default: null },
    family: field.integer({ nullable: true, default: null }),
    family_class: field.text(16),
    links: field.json({}),
    user_defined: field.boolean(false),
    nb_methods: field.integer({ default: 0 }),
  }),
  access: 'read-only',
  filters: ['family', 'family_class', 'criticity', 'active'],
  search: ['name', 'description'],
  ordering: ['pk', 'name', 'criticity', 'creation_date'],
  defaultOrdering: ['pk'],
  display: 'name',
  storage: { table: 'threat' },
  sync: { pull: { order: 7, query: { ordering: 'pk' } } },
});
