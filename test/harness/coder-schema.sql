-- The part of Coder's database schema that the operator-access bootstrap touches, written for tests after
-- ../../shared/reference/coder-api-and-ai-kinds.md §3.1 (Coder 2.2x and later): types, the users,
-- organizations, organization_members and api_keys tables with their constraints, unique indexes and the
-- triggers that guard API keys of deleted users. Columns the bootstrap never writes keep Coder's defaults.

CREATE TYPE user_status AS ENUM ('active', 'suspended', 'dormant');

CREATE TYPE login_type AS ENUM ('password', 'github', 'oidc', 'token', 'none', 'oauth2_provider_app');

-- A representative subset: the two special scopes, a few resource:action and composite values.
CREATE TYPE api_key_scope AS ENUM (
  'coder:all',
  'coder:application_connect',
  'api_key:read',
  'api_key:create',
  'api_key:delete',
  'user:read',
  'template:read',
  'workspace:read',
  'workspace:ssh',
  'coder:workspaces.access',
  'coder:apikeys.manage_self',
  'workspace:*'
);

CREATE TABLE users (
  id uuid NOT NULL PRIMARY KEY,
  email text NOT NULL,
  username text NOT NULL DEFAULT '',
  hashed_password bytea NOT NULL,
  created_at timestamptz NOT NULL,
  updated_at timestamptz NOT NULL,
  status user_status NOT NULL DEFAULT 'dormant',
  rbac_roles text[] NOT NULL DEFAULT '{}',
  login_type login_type NOT NULL DEFAULT 'password',
  avatar_url text NOT NULL DEFAULT '',
  deleted boolean NOT NULL DEFAULT false,
  last_seen_at timestamp NOT NULL DEFAULT '0001-01-01 00:00:00',
  quiet_hours_schedule text NOT NULL DEFAULT '',
  name text NOT NULL DEFAULT '',
  github_com_user_id bigint,
  hashed_one_time_passcode bytea,
  one_time_passcode_expires_at timestamptz,
  is_system boolean NOT NULL DEFAULT false,
  is_service_account boolean NOT NULL DEFAULT false,
  CONSTRAINT users_username_min_length CHECK (length(username) >= 1),
  CONSTRAINT users_email_not_empty CHECK ((is_service_account = true) = (email = '')),
  CONSTRAINT users_service_account_login_type CHECK (is_service_account = false OR login_type = 'none'),
  CONSTRAINT one_time_passcode_set CHECK (
    (hashed_one_time_passcode IS NULL) = (one_time_passcode_expires_at IS NULL))
);

CREATE UNIQUE INDEX users_username_lower_idx ON users (lower(username)) WHERE deleted = false;
CREATE UNIQUE INDEX users_email_lower_idx ON users (lower(email)) WHERE deleted = false AND email <> '';

CREATE TABLE organizations (
  id uuid NOT NULL PRIMARY KEY,
  name text NOT NULL,
  description text NOT NULL DEFAULT '',
  created_at timestamptz NOT NULL,
  updated_at timestamptz NOT NULL,
  is_default boolean NOT NULL DEFAULT false,
  display_name text NOT NULL DEFAULT '',
  icon text NOT NULL DEFAULT '',
  deleted boolean NOT NULL DEFAULT false
);

CREATE UNIQUE INDEX organizations_single_default_org ON organizations (is_default) WHERE is_default = true;
CREATE UNIQUE INDEX idx_organization_name_lower ON organizations (lower(name)) WHERE deleted = false;

CREATE TABLE organization_members (
  user_id uuid NOT NULL REFERENCES users (id) ON DELETE CASCADE,
  organization_id uuid NOT NULL REFERENCES organizations (id) ON DELETE CASCADE,
  created_at timestamptz NOT NULL,
  updated_at timestamptz NOT NULL,
  roles text[] NOT NULL DEFAULT '{}',
  PRIMARY KEY (organization_id, user_id)
);

CREATE TABLE api_keys (
  id text NOT NULL PRIMARY KEY,
  hashed_secret bytea NOT NULL,
  user_id uuid NOT NULL REFERENCES users (id) ON DELETE CASCADE,
  last_used timestamptz NOT NULL,
  expires_at timestamptz NOT NULL,
  created_at timestamptz NOT NULL,
  updated_at timestamptz NOT NULL,
  login_type login_type NOT NULL,
  lifetime_seconds bigint NOT NULL DEFAULT 86400,
  ip_address inet NOT NULL DEFAULT '0.0.0.0',
  token_name text NOT NULL DEFAULT '',
  scopes api_key_scope[] NOT NULL,
  allow_list text[] NOT NULL,
  CONSTRAINT api_keys_allow_list_not_empty CHECK (cardinality(allow_list) >= 1)
);

COMMENT ON COLUMN api_keys.hashed_secret IS 'SHA-256 of the secret part of the key; never returned by the API.';

CREATE UNIQUE INDEX idx_api_key_name ON api_keys (user_id, token_name) WHERE login_type = 'token';
CREATE INDEX idx_api_keys_user ON api_keys (user_id);

-- Status history, written by a trigger on every insert and status change of a user.
CREATE TABLE user_status_changes (
  id uuid NOT NULL DEFAULT gen_random_uuid() PRIMARY KEY,
  user_id uuid NOT NULL REFERENCES users (id),
  new_status user_status NOT NULL,
  changed_at timestamptz NOT NULL
);

CREATE FUNCTION record_user_status_change() RETURNS trigger LANGUAGE plpgsql AS $$
BEGIN
  IF TG_OP = 'INSERT' OR OLD.status IS DISTINCT FROM NEW.status THEN
    INSERT INTO user_status_changes (user_id, new_status, changed_at) VALUES (NEW.id, NEW.status, NEW.updated_at);
  END IF;
  RETURN NEW;
END;
$$;

CREATE TRIGGER user_status_change_trigger AFTER INSERT OR UPDATE ON users
  FOR EACH ROW EXECUTE FUNCTION record_user_status_change();

-- A user marked deleted loses its API keys.
CREATE FUNCTION delete_deleted_user_resources() RETURNS trigger LANGUAGE plpgsql AS $$
BEGIN
  IF NEW.deleted THEN
    DELETE FROM api_keys WHERE user_id = NEW.id;
  END IF;
  RETURN NEW;
END;
$$;

CREATE TRIGGER trigger_update_users AFTER INSERT OR UPDATE ON users
  FOR EACH ROW WHEN (NEW.deleted = true) EXECUTE FUNCTION delete_deleted_user_resources();

-- No API key may be created for a deleted user.
CREATE FUNCTION insert_apikey_fail_if_user_deleted() RETURNS trigger LANGUAGE plpgsql AS $$
BEGIN
  IF EXISTS (SELECT 1 FROM users WHERE id = NEW.user_id AND deleted) THEN
    RAISE EXCEPTION 'cannot create an API key for a deleted user';
  END IF;
  RETURN NEW;
END;
$$;

CREATE TRIGGER trigger_insert_apikeys BEFORE INSERT ON api_keys
  FOR EACH ROW EXECUTE FUNCTION insert_apikey_fail_if_user_deleted();
