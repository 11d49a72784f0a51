/**
 * The first schema. Datetimes are integer microseconds (UTC); booleans 0/1; JSON as text.
 * AUTOINCREMENT everywhere a pk is made here, so that a pk is never reused after deletion.
 */
export const initial = `
CREATE TABLE user (
  pk INTEGER PRIMARY KEY AUTOINCREMENT,
  username TEXT NOT NULL UNIQUE,
  password TEXT NOT NULL DEFAULT '',
  first_name TEXT NOT NULL DEFAULT '',
  last_name TEXT NOT NULL DEFAULT '',
  email TEXT NOT NULL DEFAULT '',
  is_active INTEGER NOT NULL DEFAULT 1,
  is_staff INTEGER NOT NULL DEFAULT 0,
  is_superuser INTEGER NOT NULL DEFAULT 0,
  timezone TEXT NOT NULL DEFAULT 'UTC',
  role TEXT NOT NULL DEFAULT 'Read-only',
  date_joined INTEGER NOT NULL
);

-- Tokens and sessions are found by the SHA-256 of the secret, then compared in constant time.
CREATE TABLE token (
  digest TEXT PRIMARY KEY,
  key TEXT NOT NULL,
  user INTEGER NOT NULL UNIQUE REFERENCES user(pk) ON DELETE CASCADE,
  created INTEGER NOT NULL
);

CREATE TABLE session (
  digest TEXT PRIMARY KEY,
  key TEXT NOT NULL,
  user INTEGER NOT NULL REFERENCES user(pk) ON DELETE CASCADE,
  csrf TEXT NOT NULL,
  expires INTEGER NOT NULL
);

CREATE TABLE source (
  pk INTEGER PRIMARY KEY AUTOINCREMENT,
  name TEXT NOT NULL UNIQUE,
  method TEXT NOT NULL DEFAULT 'http',
  datatype TEXT NOT NULL DEFAULT 'sigs',
  uri TEXT NOT NULL DEFAULT '',
  created_date INTEGER NOT NULL,
  updated_date INTEGER NOT NULL,
  version INTEGER NOT NULL DEFAULT 1
);

CREATE TABLE ruleset (
  pk INTEGER PRIMARY KEY AUTOINCREMENT,
  name TEXT NOT NULL UNIQUE,
  descr TEXT NOT NULL DEFAULT '',
  created_date INTEGER NOT NULL,
  updated_date INTEGER NOT NULL,
  rules_count INTEGER NOT NULL DEFAULT 0
);

CREATE TABLE ruleset_source (
  ruleset INTEGER NOT NULL REFERENCES ruleset(pk) ON DELETE CASCADE,
  source INTEGER NOT NULL REFERENCES source(pk) ON DELETE CASCADE,
  PRIMARY KEY (ruleset, source)
) WITHOUT ROWID;
CREATE INDEX ruleset_source_source ON ruleset_source(source);

CREATE TABLE vendor_probe_template (
  pk INTEGER PRIMARY KEY AUTOINCREMENT,
  name TEXT NOT NULL UNIQUE,
  descr TEXT NOT NULL DEFAULT '',
  parent_tmpl INTEGER REFERENCES vendor_probe_template(pk),
  overriden_fields TEXT NOT NULL DEFAULT '[]',
  home_net TEXT NOT NULL,
  external_net TEXT NOT NULL,
  capture_method TEXT NOT NULL,
  capture_threads INTEGER NOT NULL,
  pcap_capture INTEGER NOT NULL,
  log_retention_days INTEGER NOT NULL,
  ntp_server TEXT NOT NULL,
  dns_server TEXT NOT NULL,
  timezone TEXT NOT NULL,
  created INTEGER NOT NULL,
  updated INTEGER NOT NULL
);
CREATE INDEX template_parent ON vendor_probe_template(parent_tmpl);

-- Both probe families in one table: one pk sequence (api.md §3.5), one appliances view (§3.6).
-- Columns of the first family only are NULL for the second, and 'ruleset' the other way round.
CREATE TABLE appliance (
  pk INTEGER PRIMARY KEY AUTOINCREMENT,
  type TEXT NOT NULL CHECK (type IN ('vendor', 'engine')),
  name TEXT NOT NULL,
  descr TEXT NOT NULL DEFAULT '',
  address TEXT NOT NULL,
  location TEXT NOT NULL DEFAULT '',
  serial TEXT NOT NULL DEFAULT '',
  version TEXT NOT NULL DEFAULT '',
  enabled INTEGER NOT NULL DEFAULT 1,
  parent_tmpl INTEGER REFERENCES vendor_probe_template(pk),
  overriden_fields TEXT,
  home_net TEXT NOT NULL,
  external_net TEXT,
  capture_method TEXT,
  capture_threads INTEGER,
  pcap_capture INTEGER,
  log_retention_days INTEGER,
  ntp_server TEXT,
  dns_server TEXT,
  timezone TEXT,
  ruleset INTEGER REFERENCES ruleset(pk) ON DELETE SET NULL,
  created INTEGER NOT NULL,
  updated INTEGER NOT NULL
);
CREATE UNIQUE INDEX appliance_type_name ON appliance(type, name);
CREATE INDEX appliance_name ON appliance(name, pk);
CREATE INDEX appliance_type_address ON appliance(type, address, pk);
CREATE INDEX appliance_type_location ON appliance(type, location, name, pk);
CREATE INDEX appliance_type_version ON appliance(type, version, pk);
CREATE INDEX appliance_type_parent ON appliance(type, parent_tmpl, name, pk);
CREATE INDEX appliance_type_capture ON appliance(type, capture_method, name, pk);
CREATE INDEX appliance_type_updated ON appliance(type, updated, pk);
CREATE INDEX appliance_type_created ON appliance(type, created, pk);
CREATE INDEX appliance_ruleset ON appliance(ruleset);

-- Substring search (api.md §2) over 100,000 probes: a trigram index kept in step by triggers.
CREATE VIRTUAL TABLE appliance_search USING fts5(
  name, descr, address, location, serial,
  content = 'appliance', content_rowid = 'pk', tokenize = 'trigram'
);
CREATE TRIGGER appliance_search_insert AFTER INSERT ON appliance BEGIN
  INSERT INTO appliance_search(rowid, name, descr, address, location, serial)
  VALUES (new.pk, new.name, new.descr, new.address, new.location, new.serial);
END;
CREATE TRIGGER appliance_search_delete AFTER DELETE ON appliance BEGIN
  INSERT INTO appliance_search(appliance_search, rowid, name, descr, address, location, serial)
  VALUES ('delete', old.pk, old.name, old.descr, old.address, old.location, old.serial);
END;
CREATE TRIGGER appliance_search_update AFTER UPDATE OF name, descr, address, location, serial ON appliance BEGIN
  INSERT INTO appliance_search(appliance_search, rowid, name, descr, address, location, serial)
  VALUES ('delete', old.pk, old.name, old.descr, old.address, old.location, old.serial);
  INSERT INTO appliance_search(rowid, name, descr, address, location, serial)
  VALUES (new.pk, new.name, new.descr, new.address, new.location, new.serial);
END;

CREATE TABLE network_interface (
  pk INTEGER PRIMARY KEY AUTOINCREMENT,
  name TEXT NOT NULL,
  active INTEGER NOT NULL DEFAULT 1,
  probe INTEGER REFERENCES appliance(pk) ON DELETE CASCADE,
  template INTEGER REFERENCES vendor_probe_template(pk) ON DELETE CASCADE,
  CHECK ((probe IS NULL) <> (template IS NULL))
);
CREATE UNIQUE INDEX network_interface_probe ON network_interface(probe, name) WHERE probe IS NOT NULL;
CREATE UNIQUE INDEX network_interface_template ON network_interface(template, name) WHERE template IS NOT NULL;

CREATE TABLE protocol (
  pk INTEGER PRIMARY KEY AUTOINCREMENT,
  name TEXT NOT NULL,
  detection INTEGER NOT NULL DEFAULT 1,
  probe INTEGER REFERENCES appliance(pk) ON DELETE CASCADE,
  template INTEGER REFERENCES vendor_probe_template(pk) ON DELETE CASCADE,
  CHECK ((probe IS NULL) <> (template IS NULL))
);
CREATE UNIQUE INDEX protocol_probe ON protocol(probe, name) WHERE probe IS NOT NULL;
CREATE UNIQUE INDEX protocol_template ON protocol(template, name) WHERE template IS NOT NULL;

CREATE TABLE vendor_device (
  pk INTEGER PRIMARY KEY AUTOINCREMENT,
  kind TEXT NOT NULL CHECK (kind IN ('central', 'probe')),
  name TEXT NOT NULL,
  address TEXT NOT NULL DEFAULT '',
  probe INTEGER UNIQUE REFERENCES appliance(pk) ON DELETE CASCADE,
  version TEXT NOT NULL DEFAULT ''
);
CREATE INDEX vendor_device_name ON vendor_device(name);

CREATE TABLE user_action (
  pk INTEGER PRIMARY KEY AUTOINCREMENT,
  action_type TEXT NOT NULL,
  date INTEGER NOT NULL,
  comment TEXT,
  user INTEGER REFERENCES user(pk) ON DELETE SET NULL,
  username TEXT NOT NULL,
  client_ip TEXT NOT NULL DEFAULT '',
  ua_objects TEXT NOT NULL DEFAULT '{}'
);
CREATE INDEX user_action_type ON user_action(action_type, pk);
CREATE INDEX user_action_username ON user_action(username, pk);
CREATE INDEX user_action_date ON user_action(date);

CREATE TABLE threat (
  pk INTEGER PRIMARY KEY,
  threat_id INTEGER,
  name TEXT NOT NULL,
  description TEXT NOT NULL DEFAULT '',
  additional_info TEXT NOT NULL DEFAULT '',
  icon TEXT NOT NULL DEFAULT '',
  criticity INTEGER NOT NULL DEFAULT 1,
  version INTEGER NOT NULL DEFAULT 1,
  active INTEGER NOT NULL DEFAULT 1,
  creation_date TEXT,
  family INTEGER,
  family_class TEXT NOT NULL DEFAULT '',
  links TEXT NOT NULL DEFAULT '{}',
  user_defined INTEGER NOT NULL DEFAULT 0,
  nb_methods INTEGER NOT NULL DEFAULT 0
);
CREATE INDEX threat_family ON threat(family);

-- A host identity: 'data' is its host_id object as served; the other columns copy parts of it
-- for filters, search and ordering.
CREATE TABLE host_id (
  pk INTEGER PRIMARY KEY AUTOINCREMENT,
  ip TEXT NOT NULL UNIQUE,
  hits INTEGER NOT NULL DEFAULT 0,
  first_seen INTEGER,
  last_seen INTEGER,
  hostnames TEXT NOT NULL DEFAULT '',
  data TEXT NOT NULL
);
CREATE INDEX host_id_last_seen ON host_id(last_seen, pk);
CREATE INDEX host_id_first_seen ON host_id(first_seen, pk);
`;
