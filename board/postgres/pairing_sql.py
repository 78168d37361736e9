"""Pairing as the database enforces it (migration 8 onwards; issue 22).

Who can do what (docs/machines.md says the same for users):
- The **owner** (the role that owns the room's tables; needs CREATEROLE, and
  pg_signal_backend to end a revoked machine's connections) runs `bullpen_invite`: it makes
  or re-keys the guest login `<db>_guest`, which may connect (at most GUEST_CONNECTIONS at
  once) and execute `bullpen_request_join` — nothing else: no table, no other function.
- The **guest** files join requests: a machine name that is not in the room, the hash of a
  code the joining machine drew, and the SCRAM verifier of the password that machine drew.
  The server draws the machine's id and the role name from it; no role is created and no
  existing role is touched. At most MAX_WAITING requests wait at once (each expires after
  PAIRING_TTL).
- A **waiting** machine has no role at all: its own login fails until it is approved.
- An **approved** machine (a member of the group `<db>_room`) reads and writes the board,
  and may approve (`bullpen_approve`: name and code) or revoke (`bullpen_revoke`). Approval
  creates exactly the request's role with the request's verifier (CREATE, never ALTER: an
  existing role is never re-keyed) and grants it the group. Wrong codes count against the
  waiting requests of the name they were typed for: after MAX_WRONG_CODES that request is
  spent, nobody else's.
- A **revoked** machine loses the group and its login (NOLOGIN), and its open connections
  are ended.
- Only roles with CONNECT (owner, group, guest) may connect to the room's database.
- Events wake readers on a channel named by a secret in `meta` (readable by the group
  only), never on a name written in a function a guest can read: PostgreSQL lets any
  connected role LISTEN or NOTIFY on any channel, so the guest can LISTEN only on names it
  can guess, and a NOTIFY of its own wakes nobody. Payloads are empty anyway.
"""

from board.postgres.connection import WRITE_LOCK
from board.vocabulary import Approval
from board.vocabulary import JoinState as Join  # short: the SQL keeps its line breaks
from board.vocabulary import MachineState as Machine

PAIRING_TTL = 3600
MAX_WRONG_CODES = 5
MAX_WAITING = 20
GUEST_CONNECTIONS = 4
CHANNEL_KEY = "pg.events_channel"  # meta key: the room's own events channel

_NAME = "'^[a-z][a-z0-9-]{0,39}$'"
_B64 = "[A-Za-z0-9+/=]{4,200}"
_VERIFIER = rf"'^SCRAM-SHA-256\$[0-9]{{4,7}}:{_B64}\${_B64}:{_B64}$'"

PAIRING = f"""
INSERT INTO meta (key, value) VALUES
    ('{CHANNEL_KEY}', 'bullpen_events_' || replace(gen_random_uuid()::text, '-', ''))
    ON CONFLICT (key) DO NOTHING;

CREATE OR REPLACE FUNCTION bullpen_notify_events() RETURNS trigger LANGUAGE plpgsql AS $$
DECLARE channel text;
BEGIN
    SELECT value INTO channel FROM meta WHERE key = '{CHANNEL_KEY}';
    PERFORM pg_notify(coalesce(channel, 'bullpen_events'), '');
    RETURN NULL;
END $$;

DROP FUNCTION IF EXISTS bullpen_request_role(text, text);
DROP FUNCTION IF EXISTS bullpen_approve(text, text);

CREATE FUNCTION bullpen_machine_role(id text) RETURNS text LANGUAGE sql IMMUTABLE AS
    $$ SELECT left(current_database(), 40) || '_m_' || id $$;

CREATE FUNCTION bullpen_guest_role() RETURNS text LANGUAGE sql STABLE AS
    $$ SELECT left(current_database(), 40) || '_guest' $$;

CREATE FUNCTION bullpen_request_join(machine text, code_hash text, verifier text)
RETURNS TABLE (machine_id text, role text)
LANGUAGE plpgsql SECURITY DEFINER SET search_path = public AS $$
DECLARE
    now_at double precision := extract(epoch FROM clock_timestamp());
    new_id text := substr(replace(gen_random_uuid()::text, '-', ''), 1, 12);
BEGIN
    PERFORM pg_advisory_xact_lock({WRITE_LOCK});
    IF bullpen_request_join.machine IS NULL OR bullpen_request_join.machine !~ {_NAME} THEN
        RAISE EXCEPTION 'invalid machine name %', bullpen_request_join.machine
            USING ERRCODE = '22023';
    END IF;
    IF bullpen_request_join.code_hash IS NULL
            OR bullpen_request_join.code_hash !~ '^[0-9a-f]{{64}}$'
            OR bullpen_request_join.verifier IS NULL
            OR bullpen_request_join.verifier !~ {_VERIFIER} THEN
        RAISE EXCEPTION 'a join request needs a code hash and a SCRAM verifier'
            USING ERRCODE = '22023';
    END IF;
    IF EXISTS (SELECT 1 FROM machines m WHERE m.name = bullpen_request_join.machine
               AND m.state <> '{Machine.REVOKED}')
            OR (NOT EXISTS (SELECT 1 FROM machines m
                            WHERE m.name = bullpen_request_join.machine)
                AND EXISTS (SELECT 1 FROM sessions s
                            WHERE s.machine = bullpen_request_join.machine)) THEN
        RAISE EXCEPTION 'machine % is already in the room', bullpen_request_join.machine
            USING ERRCODE = '42710';
    END IF;
    UPDATE join_requests r SET state = '{Join.EXPIRED}'
        WHERE r.state = '{Join.PENDING}' AND r.created_at < now_at - {PAIRING_TTL};
    IF (SELECT count(*) FROM join_requests r WHERE r.state = '{Join.PENDING}') >= {MAX_WAITING} THEN
        RAISE EXCEPTION 'too many machines are waiting for approval'
            USING ERRCODE = '53400';
    END IF;
    INSERT INTO join_requests (machine, role, code_hash, verifier, id, created_at)
        VALUES (bullpen_request_join.machine, bullpen_machine_role(new_id),
                bullpen_request_join.code_hash, bullpen_request_join.verifier, new_id, now_at);
    RETURN QUERY SELECT new_id, bullpen_machine_role(new_id);
END $$;

CREATE FUNCTION bullpen_approve(machine text, code_hash text, approver text) RETURNS text
LANGUAGE plpgsql SECURITY DEFINER SET search_path = public AS $$
DECLARE
    request join_requests;
    now_at double precision := extract(epoch FROM clock_timestamp());
BEGIN
    PERFORM pg_advisory_xact_lock({WRITE_LOCK});
    SELECT * INTO request FROM join_requests r WHERE r.machine = bullpen_approve.machine
        AND r.code_hash = bullpen_approve.code_hash AND r.verifier IS NOT NULL;
    IF NOT FOUND THEN  -- counted against this name's waiting requests, nobody else's
        UPDATE join_requests r SET wrong_codes = r.wrong_codes + 1,
            state = CASE WHEN r.wrong_codes + 1 >= {MAX_WRONG_CODES} THEN '{Join.REFUSED}'
                         ELSE r.state END
            WHERE r.machine = bullpen_approve.machine AND r.state = '{Join.PENDING}';
        IF NOT FOUND THEN
            RETURN '{Approval.NONE}';
        END IF;
        INSERT INTO pairing_attempts (outcome, created_at) VALUES ('{Approval.WRONG}', now_at);
        RETURN '{Approval.WRONG}';
    END IF;
    IF request.state = '{Join.REFUSED}' THEN
        RETURN '{Approval.SPENT}';
    END IF;
    IF request.state <> '{Join.PENDING}' THEN
        RETURN '{Approval.USED}';
    END IF;
    IF request.created_at < now_at - {PAIRING_TTL} THEN
        UPDATE join_requests r SET state = '{Join.EXPIRED}' WHERE r.id = request.id;
        RETURN '{Approval.EXPIRED}';
    END IF;
    IF EXISTS (SELECT 1 FROM machines m WHERE m.name = request.machine
               AND m.state = '{Machine.APPROVED}') THEN
        RETURN '{Approval.TAKEN}';
    END IF;
    -- CREATE, never ALTER: approving can make a role, never re-key one
    EXECUTE format('CREATE ROLE %I LOGIN PASSWORD %L', request.role, request.verifier);
    EXECUTE format('GRANT %I TO %I', bullpen_room_group(), request.role);
    UPDATE join_requests r SET state = '{Join.APPROVED}' WHERE r.id = request.id;
    UPDATE join_requests r SET state = '{Join.SUPERSEDED}'
        WHERE r.machine = request.machine AND r.state = '{Join.PENDING}';
    INSERT INTO machines (name, id, role, state, approved_by, approved_at, created_at)
        VALUES (request.machine, request.id, request.role, '{Machine.APPROVED}', approver, now_at,
                now_at)
        ON CONFLICT (name) DO UPDATE SET id = excluded.id, role = excluded.role,
            state = '{Machine.APPROVED}', approved_by = excluded.approved_by,
            approved_at = excluded.approved_at, beat_at = NULL;
    INSERT INTO pairing_attempts (outcome, created_at) VALUES ('{Approval.APPROVED}', now_at);
    RETURN '{Approval.APPROVED}:' || request.machine;
END $$;

CREATE OR REPLACE FUNCTION bullpen_revoke(machine text) RETURNS boolean
LANGUAGE plpgsql SECURITY DEFINER SET search_path = public AS $$
DECLARE who text;
BEGIN
    SELECT m.role INTO who FROM machines m WHERE m.name = bullpen_revoke.machine
        AND m.role IS NOT NULL AND m.role <> current_user;
    IF who IS NULL OR NOT EXISTS (SELECT 1 FROM pg_roles WHERE rolname = who) THEN
        RETURN false;
    END IF;
    EXECUTE format('REVOKE %I FROM %I', bullpen_room_group(), who);
    EXECUTE format('ALTER ROLE %I NOLOGIN', who);  -- it cannot come back to LISTEN either
    UPDATE machines m SET state = '{Machine.REVOKED}' WHERE m.name = bullpen_revoke.machine;
    BEGIN  -- its open sessions end now (needs pg_signal_backend; else at reconnect)
        PERFORM pg_terminate_backend(pid) FROM pg_stat_activity WHERE usename = who;
    EXCEPTION WHEN insufficient_privilege THEN
        NULL;
    END;
    RETURN true;
END $$;

-- Run by the owner only: make or re-key the guest login (the old password stops working).
CREATE FUNCTION bullpen_invite(verifier text) RETURNS text LANGUAGE plpgsql AS $$
DECLARE guest text := bullpen_guest_role();
BEGIN
    IF verifier IS NULL OR verifier !~ {_VERIFIER} THEN
        RAISE EXCEPTION 'the guest login needs a SCRAM verifier' USING ERRCODE = '22023';
    END IF;
    IF EXISTS (SELECT 1 FROM pg_roles WHERE rolname = guest) THEN
        EXECUTE format('ALTER ROLE %I LOGIN NOINHERIT CONNECTION LIMIT {GUEST_CONNECTIONS}'
                       ' PASSWORD %L', guest, verifier);
    ELSE
        EXECUTE format('CREATE ROLE %I LOGIN NOINHERIT CONNECTION LIMIT {GUEST_CONNECTIONS}'
                       ' PASSWORD %L', guest, verifier);
    END IF;
    EXECUTE format('GRANT CONNECT ON DATABASE %I TO %I', current_database(), guest);
    EXECUTE format('GRANT EXECUTE ON FUNCTION bullpen_request_join(text, text, text) TO %I',
                   guest);
    RETURN guest;
END $$;

CREATE OR REPLACE FUNCTION bullpen_setup_pairing() RETURNS boolean LANGUAGE plpgsql AS $$
DECLARE grp text := bullpen_room_group();
BEGIN
    IF NOT EXISTS (SELECT 1 FROM pg_roles WHERE rolname = grp) THEN
        EXECUTE format('CREATE ROLE %I NOLOGIN', grp);
    END IF;
    EXECUTE format('GRANT SELECT, INSERT, UPDATE, DELETE ON ALL TABLES IN SCHEMA public'
                   ' TO %I', grp);
    EXECUTE format('GRANT USAGE, SELECT, UPDATE ON ALL SEQUENCES IN SCHEMA public TO %I', grp);
    EXECUTE format('ALTER DEFAULT PRIVILEGES IN SCHEMA public GRANT SELECT, INSERT, UPDATE,'
                   ' DELETE ON TABLES TO %I', grp);
    EXECUTE format('ALTER DEFAULT PRIVILEGES IN SCHEMA public GRANT USAGE, SELECT, UPDATE'
                   ' ON SEQUENCES TO %I', grp);
    REVOKE ALL ON FUNCTION bullpen_approve(text, text, text), bullpen_revoke(text),
        bullpen_request_join(text, text, text), bullpen_invite(text),
        bullpen_setup_pairing() FROM PUBLIC;
    EXECUTE format('GRANT EXECUTE ON FUNCTION bullpen_approve(text, text, text),'
                   ' bullpen_revoke(text) TO %I', grp);
    EXECUTE format('REVOKE CONNECT ON DATABASE %I FROM PUBLIC', current_database());
    EXECUTE format('GRANT CONNECT ON DATABASE %I TO %I', current_database(), grp);
    -- roles of the first pairing (one per waiting name, keyed by a password anyone could
    -- reset) keep no right and no login
    PERFORM bullpen_retire_pending_roles();
    RETURN true;
EXCEPTION WHEN insufficient_privilege THEN
    RETURN false;
END $$;

CREATE FUNCTION bullpen_retire_pending_roles() RETURNS void LANGUAGE plpgsql AS $$
DECLARE who text;
BEGIN
    FOR who IN SELECT rolname FROM pg_roles
            WHERE starts_with(rolname, current_database() || '_m_')
            AND NOT pg_has_role(rolname, bullpen_room_group(), 'MEMBER') LOOP
        EXECUTE format('REVOKE ALL ON join_requests FROM %I', who);
        EXECUTE format('ALTER ROLE %I NOLOGIN', who);
    END LOOP;
END $$;
REVOKE ALL ON FUNCTION bullpen_retire_pending_roles() FROM PUBLIC;

SELECT bullpen_setup_pairing();
"""

# Migration 8: a machine's stable id, join requests carrying the verifier of the role
# approval makes, wrong codes per request, the room's own events channel.
MIGRATION = """
ALTER TABLE machines ADD COLUMN id TEXT;
ALTER TABLE join_requests ADD COLUMN id TEXT;
ALTER TABLE join_requests ADD COLUMN verifier TEXT;
ALTER TABLE join_requests ADD COLUMN wrong_codes BIGINT NOT NULL DEFAULT 0;
""" + PAIRING
