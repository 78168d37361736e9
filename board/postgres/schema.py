"""PostgreSQL migrations, numbered like SQLite's (board/schema.py): entry N here makes the
same tables and columns as entry N there. Append only, one entry per SQLite migration
(tests/integration/test_store_schema.py compares the two schemas column by column).

Type mapping: INTEGER → BIGINT (SQLite integers are 64-bit), INTEGER PRIMARY KEY → an
identity column that still accepts explicit ids (`room migrate` keeps them), REAL →
DOUBLE PRECISION. The notebook's FTS5 index becomes a GIN index over the same words.
"""

from board.postgres import pairing_sql
from board.postgres.code_flow import CODE_FLOW

VERSION_TABLE = "bullpen_schema"  # one row: the applied migration number

# Every write to `events` wakes the readers LISTENing on this channel (one per commit);
# from migration 8 on, on the room's own channel named in `meta` (pairing_sql).
EVENTS_CHANNEL = "bullpen_events"

# The words a notebook entry is found by; notebook.search uses this very expression so
# the GIN index serves it.
NOTEBOOK_WORDS = "to_tsvector('simple', body || ' ' || coalesce(tag, ''))"

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
PAIRING = f"""
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
    IF (SELECT count(*) FROM pairing_attempts WHERE outcome = 'wrong'
            AND created_at > now_at - {PAIRING_TTL}) >= {MAX_WRONG_CODES} THEN
        RETURN 'locked';
    END IF;
    SELECT * INTO request FROM join_requests r WHERE r.code_hash = bullpen_approve.code_hash
        AND r.role = current_database() || '_m_' || r.machine;
    IF NOT FOUND THEN
        INSERT INTO pairing_attempts (outcome, created_at) VALUES ('wrong', now_at);
        RETURN 'wrong';
    END IF;
    IF request.state <> 'pending' THEN
        RETURN 'used';
    END IF;
    IF request.created_at < now_at - {PAIRING_TTL} THEN
        UPDATE join_requests r SET state = 'expired'
            WHERE r.machine = request.machine AND r.code_hash = request.code_hash;
        RETURN 'expired';
    END IF;
    UPDATE join_requests r SET state = 'approved'
        WHERE r.machine = request.machine AND r.code_hash = request.code_hash;
    EXECUTE format('GRANT %I TO %I', bullpen_room_group(), request.role);
    INSERT INTO machines (name, role, state, approved_by, approved_at, created_at)
        VALUES (request.machine, request.role, 'approved', approver, now_at, now_at)
        ON CONFLICT (name) DO UPDATE SET role = excluded.role, state = 'approved',
            approved_by = excluded.approved_by, approved_at = excluded.approved_at;
    INSERT INTO pairing_attempts (outcome, created_at) VALUES ('approved', now_at);
    RETURN 'approved:' || request.machine;
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
    UPDATE machines m SET state = 'revoked' WHERE m.name = bullpen_revoke.machine;
    BEGIN  -- its open sessions end now (needs pg_signal_backend; else at reconnect)
        PERFORM pg_terminate_backend(pid) FROM pg_stat_activity WHERE usename = who;
    EXCEPTION WHEN insufficient_privilege THEN
        NULL;
    END;
    RETURN true;
END $$;

SELECT bullpen_setup_pairing();
"""

MIGRATIONS: list[str] = [
    # 1: the room
    f"""
    CREATE TABLE sessions (
        name TEXT PRIMARY KEY,
        token_hash TEXT NOT NULL,
        agent TEXT,
        profile TEXT,
        branch TEXT,
        worktree TEXT,
        base TEXT,
        task TEXT,
        pane_id TEXT,
        desired TEXT NOT NULL DEFAULT 'registered',
        status TEXT NOT NULL DEFAULT 'stopped',
        exit_code BIGINT,
        hook_status TEXT,
        hook_status_at DOUBLE PRECISION,
        last_activity DOUBLE PRECISION,
        created_at DOUBLE PRECISION NOT NULL
    );
    CREATE TABLE tasks (
        id BIGINT GENERATED BY DEFAULT AS IDENTITY PRIMARY KEY,
        title TEXT NOT NULL,
        body TEXT NOT NULL DEFAULT '',
        status TEXT NOT NULL,
        assignee TEXT,
        created_by TEXT NOT NULL,
        summary TEXT,
        block_reason TEXT,
        created_at DOUBLE PRECISION NOT NULL,
        updated_at DOUBLE PRECISION NOT NULL
    );
    CREATE INDEX tasks_by_status ON tasks(status, id);
    CREATE TABLE task_links (
        parent BIGINT NOT NULL REFERENCES tasks(id),
        child BIGINT NOT NULL REFERENCES tasks(id),
        PRIMARY KEY (parent, child)
    );
    CREATE INDEX task_links_by_child ON task_links(child);
    CREATE TABLE task_comments (
        id BIGINT GENERATED BY DEFAULT AS IDENTITY PRIMARY KEY,
        task BIGINT NOT NULL REFERENCES tasks(id),
        author TEXT NOT NULL,
        body TEXT NOT NULL,
        created_at DOUBLE PRECISION NOT NULL
    );
    CREATE TABLE notes (
        id BIGINT GENERATED BY DEFAULT AS IDENTITY PRIMARY KEY,
        sender TEXT NOT NULL,
        recipient TEXT NOT NULL,
        body TEXT NOT NULL,
        reply_to BIGINT REFERENCES notes(id),
        task BIGINT,
        kind TEXT NOT NULL DEFAULT 'note',
        created_at DOUBLE PRECISION NOT NULL
    );
    CREATE TABLE deliveries (
        note BIGINT NOT NULL REFERENCES notes(id),
        recipient TEXT NOT NULL,
        state TEXT NOT NULL DEFAULT 'pending',
        via TEXT,
        delivered_at DOUBLE PRECISION,
        read_at DOUBLE PRECISION,
        PRIMARY KEY (note, recipient)
    );
    CREATE INDEX deliveries_by_recipient ON deliveries(recipient, state, note);
    CREATE TABLE notebook (
        id BIGINT GENERATED BY DEFAULT AS IDENTITY PRIMARY KEY,
        author TEXT NOT NULL,
        body TEXT NOT NULL,
        private BIGINT NOT NULL DEFAULT 0,
        tag TEXT,
        created_at DOUBLE PRECISION NOT NULL
    );
    CREATE INDEX notebook_words ON notebook USING gin ({NOTEBOOK_WORDS});
    CREATE TABLE reads (
        id BIGINT GENERATED BY DEFAULT AS IDENTITY PRIMARY KEY,
        session TEXT NOT NULL,
        path TEXT NOT NULL,
        source TEXT NOT NULL,
        read_at DOUBLE PRECISION NOT NULL
    );
    CREATE INDEX reads_by_path ON reads(path, session);
    CREATE TABLE changes (
        id BIGINT GENERATED BY DEFAULT AS IDENTITY PRIMARY KEY,
        changed_by TEXT NOT NULL,
        paths TEXT NOT NULL,
        commit_sha TEXT,
        message TEXT,
        created_at DOUBLE PRECISION NOT NULL
    );
    CREATE TABLE alerts (
        id BIGINT GENERATED BY DEFAULT AS IDENTITY PRIMARY KEY,
        session TEXT NOT NULL,
        change BIGINT NOT NULL REFERENCES changes(id),
        path TEXT NOT NULL,
        paths TEXT NOT NULL,
        changed_by TEXT NOT NULL,
        commit_sha TEXT,
        note BIGINT REFERENCES notes(id),
        created_at DOUBLE PRECISION NOT NULL
    );
    CREATE INDEX alerts_by_session ON alerts(session, id);
    CREATE TABLE events (
        id BIGINT GENERATED BY DEFAULT AS IDENTITY PRIMARY KEY,
        kind TEXT NOT NULL,
        session TEXT,
        ref BIGINT,
        data TEXT,
        created_at DOUBLE PRECISION NOT NULL
    );
    CREATE FUNCTION bullpen_notify_events() RETURNS trigger LANGUAGE plpgsql AS $$
    BEGIN
        PERFORM pg_notify('{EVENTS_CHANNEL}', '');
        RETURN NULL;
    END $$;
    CREATE TRIGGER events_notify AFTER INSERT ON events
        FOR EACH STATEMENT EXECUTE FUNCTION bullpen_notify_events();
    """,
    # 2: plans (tasks created once from bullpen.yaml), commit subscriptions, dispatch marks
    """
    ALTER TABLE sessions ADD COLUMN on_commit TEXT;
    CREATE TABLE plan_tasks (
        session TEXT PRIMARY KEY,
        task BIGINT NOT NULL REFERENCES tasks(id)
    );
    CREATE TABLE dispatched (
        key TEXT PRIMARY KEY,
        note BIGINT,
        created_at DOUBLE PRECISION NOT NULL
    );
    CREATE TABLE meta (
        key TEXT PRIMARY KEY,
        value TEXT
    );
    """,
    # 3: opt-in read detection from filesystem events, for agents without hooks
    """
    ALTER TABLE sessions ADD COLUMN fs_reads BIGINT NOT NULL DEFAULT 0;
    """,
    # 4: the audit trail of privileged actions and refusals; powers a plan grants a session
    """
    CREATE TABLE audit (
        id BIGINT GENERATED BY DEFAULT AS IDENTITY PRIMARY KEY,
        actor TEXT NOT NULL,
        action TEXT NOT NULL,
        target TEXT,
        outcome TEXT NOT NULL,
        detail TEXT,
        created_at DOUBLE PRECISION NOT NULL
    );
    ALTER TABLE sessions ADD COLUMN may TEXT;
    """,
    # 5: machines: where each session runs, each coordinator's heartbeat, join requests.
    # A join request's time is the server's, never the joining machine's (codes expire).
    """
    ALTER TABLE sessions ADD COLUMN machine TEXT;
    CREATE TABLE machines (
        name TEXT PRIMARY KEY,
        role TEXT,
        state TEXT NOT NULL DEFAULT 'approved',
        beat_at DOUBLE PRECISION,
        approved_by TEXT,
        approved_at DOUBLE PRECISION,
        created_at DOUBLE PRECISION NOT NULL
    );
    CREATE TABLE join_requests (
        machine TEXT NOT NULL,
        role TEXT NOT NULL DEFAULT current_user,
        code_hash TEXT NOT NULL,
        state TEXT NOT NULL DEFAULT 'pending',
        created_at DOUBLE PRECISION NOT NULL DEFAULT extract(epoch FROM clock_timestamp()),
        PRIMARY KEY (machine, code_hash)
    );
    CREATE TABLE pairing_attempts (
        outcome TEXT NOT NULL,
        created_at DOUBLE PRECISION NOT NULL
    );
    """ + PAIRING,
    # 6: two-phase delivery with visible states (queued, held + reason, claimed, typed,
    # handed, read); a session's `deliver:` setting (type: typing into a generic agent)
    """
    ALTER TABLE deliveries ADD COLUMN held_reason TEXT;
    ALTER TABLE deliveries ADD COLUMN claimed_at DOUBLE PRECISION;
    ALTER TABLE deliveries ADD COLUMN claim_pane TEXT;
    ALTER TABLE deliveries ADD COLUMN possible_repeat BIGINT NOT NULL DEFAULT 0;
    ALTER TABLE sessions ADD COLUMN deliver TEXT;
    ALTER TABLE sessions ADD COLUMN status_reason TEXT;
    UPDATE deliveries SET state = 'queued' WHERE state = 'pending';
    UPDATE deliveries SET held_reason = 'capped' WHERE state = 'held';
    UPDATE deliveries SET read_at = coalesce(read_at, delivered_at),
        state = CASE WHEN via = 'pane' THEN 'typed' WHEN via = 'hook' THEN 'handed'
                     ELSE 'read' END
        WHERE state = 'delivered';
    """,
    # 7: code flow (board/postgres/code_flow.py)
    CODE_FLOW,
    # 8: pairing that holds (issue 22): board/postgres/pairing_sql.py
    pairing_sql.MIGRATION,
    # 9: the version of the agent a session runs, read at launch
    """
    ALTER TABLE sessions ADD COLUMN agent_version TEXT;
    """,
    # 10: the machine each audited action was taken from (issue 22)
    """
    ALTER TABLE audit ADD COLUMN machine TEXT;
    """,
]
