"""Migration 5's pairing functions on PostgreSQL, in a module of their own to keep
schema.py under the size limit. Migration 8 replaced them (pairing_sql); they stay, as
every released migration does, so a room at any schema upgrades step by step. Their words
come from board.vocabulary: the text is the one released, byte for byte."""

from board.vocabulary import Approval
from board.vocabulary import JoinState as Join  # short: the SQL keeps its line breaks
from board.vocabulary import MachineState as Machine

# Joining by pairing, enforced by the database itself (default deny). The room's tables
# belong to its owner; approved machines get them through the group role <db>_room. A new
# machine's role (<db>_m_<machine>, made by bullpen_request_role, which anyone who can
# connect may call) can insert its join request (machine and code hash; its role and the
# time are the server's) and nothing else. Approving a code, single use and valid for
# PAIRING_TTL seconds, adds the role to the group; revoking removes it. Wrong codes are
# counted: after MAX_WRONG_CODES in PAIRING_TTL, approvals are refused until they age out.
# Creating roles needs CREATEROLE: a database owner without it gets a room without pairing.
PAIRING_TTL = 3600
MAX_WRONG_CODES = 5
FIRST_PAIRING = f"""
CREATE FUNCTION bullpen_room_group() RETURNS text LANGUAGE sql STABLE AS
    $$ SELECT current_database() || '_room' $$;

CREATE FUNCTION bullpen_setup_pairing() RETURNS boolean LANGUAGE plpgsql AS $$
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
    REVOKE ALL ON FUNCTION bullpen_approve(text, text), bullpen_revoke(text) FROM PUBLIC;
    EXECUTE format('GRANT EXECUTE ON FUNCTION bullpen_approve(text, text),'
                   ' bullpen_revoke(text) TO %I', grp);
    RETURN true;
EXCEPTION WHEN insufficient_privilege THEN
    RETURN false;
END $$;

CREATE FUNCTION bullpen_request_role(machine text, secret text) RETURNS text
LANGUAGE plpgsql SECURITY DEFINER SET search_path = public AS $$
DECLARE who text := current_database() || '_m_' || machine;
BEGIN
    IF machine !~ '^[a-z][a-z0-9-]{{0,39}}$' THEN
        RAISE EXCEPTION 'invalid machine name %', machine USING ERRCODE = '22023';
    END IF;
    IF EXISTS (SELECT 1 FROM pg_roles WHERE rolname = who) THEN
        IF pg_has_role(who, bullpen_room_group(), 'MEMBER') THEN
            RAISE EXCEPTION 'machine % is already in the room', machine
                USING ERRCODE = '42710';
        END IF;
        EXECUTE format('ALTER ROLE %I PASSWORD %L', who, secret);  -- pending or revoked
    ELSE
        EXECUTE format('CREATE ROLE %I LOGIN PASSWORD %L', who, secret);
    END IF;
    EXECUTE format('GRANT INSERT (machine, code_hash) ON join_requests TO %I', who);
    RETURN who;
END $$;

CREATE FUNCTION bullpen_approve(code_hash text, approver text) RETURNS text
LANGUAGE plpgsql SECURITY DEFINER SET search_path = public AS $$
DECLARE
    request join_requests;
    now_at double precision := extract(epoch FROM clock_timestamp());
BEGIN
    PERFORM pg_advisory_xact_lock({0x42554C4C});
    IF (SELECT count(*) FROM pairing_attempts WHERE outcome = '{Approval.WRONG}'
            AND created_at > now_at - {PAIRING_TTL}) >= {MAX_WRONG_CODES} THEN
        RETURN '{Approval.LOCKED}';
    END IF;
    SELECT * INTO request FROM join_requests r WHERE r.code_hash = bullpen_approve.code_hash
        AND r.role = current_database() || '_m_' || r.machine;
    IF NOT FOUND THEN
        INSERT INTO pairing_attempts (outcome, created_at) VALUES ('{Approval.WRONG}', now_at);
        RETURN '{Approval.WRONG}';
    END IF;
    IF request.state <> '{Join.PENDING}' THEN
        RETURN '{Approval.USED}';
    END IF;
    IF request.created_at < now_at - {PAIRING_TTL} THEN
        UPDATE join_requests r SET state = '{Join.EXPIRED}'
            WHERE r.machine = request.machine AND r.code_hash = request.code_hash;
        RETURN '{Approval.EXPIRED}';
    END IF;
    UPDATE join_requests r SET state = '{Join.APPROVED}'
        WHERE r.machine = request.machine AND r.code_hash = request.code_hash;
    EXECUTE format('GRANT %I TO %I', bullpen_room_group(), request.role);
    INSERT INTO machines (name, role, state, approved_by, approved_at, created_at)
        VALUES (request.machine, request.role, '{Machine.APPROVED}', approver, now_at, now_at)
        ON CONFLICT (name) DO UPDATE SET role = excluded.role, state = '{Machine.APPROVED}',
            approved_by = excluded.approved_by, approved_at = excluded.approved_at;
    INSERT INTO pairing_attempts (outcome, created_at) VALUES ('{Approval.APPROVED}', now_at);
    RETURN '{Approval.APPROVED}:' || request.machine;
END $$;

CREATE FUNCTION bullpen_revoke(machine text) RETURNS boolean
LANGUAGE plpgsql SECURITY DEFINER SET search_path = public AS $$
DECLARE who text;
BEGIN
    SELECT m.role INTO who FROM machines m WHERE m.name = bullpen_revoke.machine
        AND m.role IS NOT NULL;
    IF who IS NULL THEN
        RETURN false;
    END IF;
    EXECUTE format('REVOKE %I FROM %I', bullpen_room_group(), who);
    UPDATE machines m SET state = '{Machine.REVOKED}' WHERE m.name = bullpen_revoke.machine;
    BEGIN  -- its open sessions end now (needs pg_signal_backend; else at reconnect)
        PERFORM pg_terminate_backend(pid) FROM pg_stat_activity WHERE usename = who;
    EXCEPTION WHEN insufficient_privilege THEN
        NULL;
    END;
    RETURN true;
END $$;

SELECT bullpen_setup_pairing();
"""
