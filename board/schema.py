"""Numbered schema migrations. Append only: a released migration never changes."""

APPLICATION_ID = 0x42554C4C  # "BULL": tells our database from any other SQLite file

MIGRATIONS: list[str] = [
    # 1: the room
    """
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
        exit_code INTEGER,
        hook_status TEXT,
        hook_status_at REAL,
        last_activity REAL,
        created_at REAL NOT NULL
    );
    CREATE TABLE tasks (
        id INTEGER PRIMARY KEY,
        title TEXT NOT NULL,
        body TEXT NOT NULL DEFAULT '',
        status TEXT NOT NULL,
        assignee TEXT,
        created_by TEXT NOT NULL,
        summary TEXT,
        block_reason TEXT,
        created_at REAL NOT NULL,
        updated_at REAL NOT NULL
    );
    CREATE INDEX tasks_by_status ON tasks(status, id);
    CREATE TABLE task_links (
        parent INTEGER NOT NULL REFERENCES tasks(id),
        child INTEGER NOT NULL REFERENCES tasks(id),
        PRIMARY KEY (parent, child)
    );
    CREATE INDEX task_links_by_child ON task_links(child);
    CREATE TABLE task_comments (
        id INTEGER PRIMARY KEY,
        task INTEGER NOT NULL REFERENCES tasks(id),
        author TEXT NOT NULL,
        body TEXT NOT NULL,
        created_at REAL NOT NULL
    );
    CREATE TABLE notes (
        id INTEGER PRIMARY KEY,
        sender TEXT NOT NULL,
        recipient TEXT NOT NULL,
        body TEXT NOT NULL,
        reply_to INTEGER REFERENCES notes(id),
        task INTEGER,
        kind TEXT NOT NULL DEFAULT 'note',
        created_at REAL NOT NULL
    );
    CREATE TABLE deliveries (
        note INTEGER NOT NULL REFERENCES notes(id),
        recipient TEXT NOT NULL,
        state TEXT NOT NULL DEFAULT 'pending',
        via TEXT,
        delivered_at REAL,
        read_at REAL,
        PRIMARY KEY (note, recipient)
    );
    CREATE INDEX deliveries_by_recipient ON deliveries(recipient, state, note);
    CREATE TABLE notebook (
        id INTEGER PRIMARY KEY,
        author TEXT NOT NULL,
        body TEXT NOT NULL,
        private INTEGER NOT NULL DEFAULT 0,
        tag TEXT,
        created_at REAL NOT NULL
    );
    CREATE VIRTUAL TABLE notebook_fts USING fts5(
        body, tag, content='notebook', content_rowid='id'
    );
    CREATE TRIGGER notebook_fts_insert AFTER INSERT ON notebook BEGIN
        INSERT INTO notebook_fts(rowid, body, tag) VALUES (new.id, new.body, new.tag);
    END;
    CREATE TABLE reads (
        id INTEGER PRIMARY KEY,
        session TEXT NOT NULL,
        path TEXT NOT NULL,
        source TEXT NOT NULL,
        read_at REAL NOT NULL
    );
    CREATE INDEX reads_by_path ON reads(path, session);
    CREATE TABLE changes (
        id INTEGER PRIMARY KEY,
        changed_by TEXT NOT NULL,
        paths TEXT NOT NULL,
        commit_sha TEXT,
        message TEXT,
        created_at REAL NOT NULL
    );
    CREATE TABLE alerts (
        id INTEGER PRIMARY KEY,
        session TEXT NOT NULL,
        change INTEGER NOT NULL REFERENCES changes(id),
        path TEXT NOT NULL,
        paths TEXT NOT NULL,
        changed_by TEXT NOT NULL,
        commit_sha TEXT,
        note INTEGER REFERENCES notes(id),
        created_at REAL NOT NULL
    );
    CREATE INDEX alerts_by_session ON alerts(session, id);
    CREATE TABLE events (
        id INTEGER PRIMARY KEY,
        kind TEXT NOT NULL,
        session TEXT,
        ref INTEGER,
        data TEXT,
        created_at REAL NOT NULL
    );
    """,
    # 2: plans (tasks created once from bullpen.yaml), commit subscriptions, dispatch marks
    """
    ALTER TABLE sessions ADD COLUMN on_commit TEXT;
    CREATE TABLE plan_tasks (
        session TEXT PRIMARY KEY,
        task INTEGER NOT NULL REFERENCES tasks(id)
    );
    CREATE TABLE dispatched (
        key TEXT PRIMARY KEY,
        note INTEGER,
        created_at REAL NOT NULL
    );
    CREATE TABLE meta (
        key TEXT PRIMARY KEY,
        value TEXT
    );
    """,
    # 3: opt-in read detection from filesystem events, for agents without hooks
    """
    ALTER TABLE sessions ADD COLUMN fs_reads INTEGER NOT NULL DEFAULT 0;
    """,
    # 4: the audit trail of privileged actions and refusals; powers a plan grants a session
    """
    CREATE TABLE audit (
        id INTEGER PRIMARY KEY,
        actor TEXT NOT NULL,
        action TEXT NOT NULL,
        target TEXT,
        outcome TEXT NOT NULL,
        detail TEXT,
        created_at REAL NOT NULL
    );
    ALTER TABLE sessions ADD COLUMN may TEXT;
    """,
    # 5: machines: where each session runs, each coordinator's heartbeat, join requests
    """
    ALTER TABLE sessions ADD COLUMN machine TEXT;
    CREATE TABLE machines (
        name TEXT PRIMARY KEY,
        role TEXT,
        state TEXT NOT NULL DEFAULT 'approved',
        beat_at REAL,
        approved_by TEXT,
        approved_at REAL,
        created_at REAL NOT NULL
    );
    CREATE TABLE join_requests (
        machine TEXT NOT NULL,
        role TEXT NOT NULL,
        code_hash TEXT NOT NULL,
        state TEXT NOT NULL DEFAULT 'pending',
        created_at REAL NOT NULL,
        PRIMARY KEY (machine, code_hash)
    );
    CREATE TABLE pairing_attempts (
        outcome TEXT NOT NULL,
        created_at REAL NOT NULL
    );
    """,
    # 6: two-phase delivery with visible states (queued, held + reason, claimed, typed,
    # handed, read); a session's `deliver:` setting (type: typing into a generic agent)
    """
    ALTER TABLE deliveries ADD COLUMN held_reason TEXT;
    ALTER TABLE deliveries ADD COLUMN claimed_at REAL;
    ALTER TABLE deliveries ADD COLUMN claim_pane TEXT;
    ALTER TABLE deliveries ADD COLUMN possible_repeat INTEGER NOT NULL DEFAULT 0;
    ALTER TABLE sessions ADD COLUMN deliver TEXT;
    ALTER TABLE sessions ADD COLUMN status_reason TEXT;
    UPDATE deliveries SET state = 'queued' WHERE state = 'pending';
    UPDATE deliveries SET held_reason = 'capped' WHERE state = 'held';
    UPDATE deliveries SET read_at = coalesce(read_at, delivered_at),
        state = CASE WHEN via = 'pane' THEN 'typed' WHEN via = 'hook' THEN 'handed'
                     ELSE 'read' END
        WHERE state = 'delivered';
    """,
    # 7: code flow: predicted merge conflicts between sessions (and with the base branch),
    # landings on the base branch, and where a dependent's worktree starts (`base:`)
    """
    CREATE TABLE conflicts (
        id INTEGER PRIMARY KEY,
        a TEXT NOT NULL,
        b TEXT NOT NULL,
        with_base INTEGER NOT NULL DEFAULT 0,
        files TEXT NOT NULL,
        commits TEXT NOT NULL,
        since REAL NOT NULL,
        updated_at REAL NOT NULL,
        cleared_at REAL
    );
    CREATE INDEX conflicts_open ON conflicts(cleared_at, a, b);
    CREATE TABLE landings (
        id INTEGER PRIMARY KEY,
        session TEXT NOT NULL,
        base_branch TEXT NOT NULL,
        old_base TEXT NOT NULL,
        new_base TEXT NOT NULL,
        head TEXT NOT NULL,
        strategy TEXT NOT NULL,
        landed_by TEXT NOT NULL,
        created_at REAL NOT NULL
    );
    CREATE INDEX landings_by_session ON landings(session, id);
    ALTER TABLE sessions ADD COLUMN base_mode TEXT;
    """,
    # 8: pairing that holds (issue 22): a machine's stable id, a join request carrying
    # the password verifier of the role approval makes, wrong codes counted per request
    """
    ALTER TABLE machines ADD COLUMN id TEXT;
    ALTER TABLE join_requests ADD COLUMN id TEXT;
    ALTER TABLE join_requests ADD COLUMN verifier TEXT;
    ALTER TABLE join_requests ADD COLUMN wrong_codes INTEGER NOT NULL DEFAULT 0;
    """,
    # 9: the version of the agent a session runs (`claude --version`), read at launch
    """
    ALTER TABLE sessions ADD COLUMN agent_version TEXT;
    """,
    # 10: the machine each audited action was taken from (issue 22)
    """
    ALTER TABLE audit ADD COLUMN machine TEXT;
    """,
    # 11: deliveries.state defaults to a word the vocabulary knows (queued, not the old
    # pending). SQLite cannot change a column's default: the table is rebuilt as it was.
    """
    CREATE TABLE deliveries_rebuilt (
        note INTEGER NOT NULL REFERENCES notes(id),
        recipient TEXT NOT NULL,
        state TEXT NOT NULL DEFAULT 'queued',
        via TEXT,
        delivered_at REAL,
        read_at REAL,
        held_reason TEXT,
        claimed_at REAL,
        claim_pane TEXT,
        possible_repeat INTEGER NOT NULL DEFAULT 0,
        PRIMARY KEY (note, recipient)
    );
    INSERT INTO deliveries_rebuilt (note, recipient, state, via, delivered_at, read_at,
                                    held_reason, claimed_at, claim_pane, possible_repeat)
        SELECT note, recipient, state, via, delivered_at, read_at, held_reason, claimed_at,
               claim_pane, possible_repeat FROM deliveries;
    DROP TABLE deliveries;
    ALTER TABLE deliveries_rebuilt RENAME TO deliveries;
    CREATE INDEX deliveries_by_recipient ON deliveries(recipient, state, note);
    """,
    # 12: the loop guard (issue 21): each note's conversation chain and the agent-to-agent
    # hops since the chain's last progress; the chains themselves; the note that started
    # each session's current turn (its notes in that turn continue that note's chain)
    """
    ALTER TABLE notes ADD COLUMN chain INTEGER;
    ALTER TABLE notes ADD COLUMN chain_hops INTEGER;
    CREATE INDEX notes_by_chain ON notes(chain, id);
    CREATE INDEX notes_by_sender ON notes(sender, created_at);
    CREATE TABLE chains (
        id INTEGER PRIMARY KEY,
        state TEXT NOT NULL DEFAULT 'open',
        hops INTEGER NOT NULL DEFAULT 0,
        counted_since REAL NOT NULL,
        since_event INTEGER NOT NULL DEFAULT 0,
        reason TEXT,
        held_at REAL,
        created_at REAL NOT NULL
    );
    CREATE INDEX chains_by_state ON chains(state, id);
    CREATE TABLE turns (
        session TEXT PRIMARY KEY,
        note INTEGER NOT NULL,
        given_at REAL NOT NULL
    );
    """,
    # 13: spend read from each agent's own records (tokens by model; cost is computed
    # from the price table when shown) and budgets, from the plan or set by the operator
    """
    CREATE TABLE spend (
        session TEXT NOT NULL,
        model TEXT NOT NULL,
        input_tokens INTEGER NOT NULL DEFAULT 0,
        output_tokens INTEGER NOT NULL DEFAULT 0,
        cache_read_tokens INTEGER NOT NULL DEFAULT 0,
        cache_write_tokens INTEGER NOT NULL DEFAULT 0,
        source TEXT NOT NULL,
        updated_at REAL NOT NULL,
        PRIMARY KEY (session, model)
    );
    CREATE TABLE budgets (
        scope TEXT PRIMARY KEY,
        plan_tokens INTEGER,
        plan_cost REAL,
        set_tokens INTEGER,
        set_cost REAL,
        set_by TEXT,
        set_at REAL
    );
    """,
    # 14: an operator's ask to the machine that runs a session to stop or restart it
    # (lifecycle across machines, issue 22); that machine's coordinator answers
    """
    CREATE TABLE remote_asks (
        id INTEGER PRIMARY KEY,
        session TEXT NOT NULL,
        verb TEXT NOT NULL,
        options TEXT NOT NULL DEFAULT '',
        from_machine TEXT NOT NULL,
        to_machine TEXT NOT NULL,
        state TEXT NOT NULL DEFAULT 'asked',
        detail TEXT,
        created_at REAL NOT NULL,
        answered_at REAL
    );
    CREATE INDEX remote_asks_by_machine ON remote_asks(to_machine, state);
    """,
    # 15: the dashboard's unread count per session reads the unread rows only (a partial
    # index), not every delivery ever made: 50,000 rows scanned four times a second
    """
    CREATE INDEX deliveries_unread ON deliveries(recipient) WHERE read_at IS NULL;
    """,
    # 16: the commit the sender's worktree was at when it sent each note: the loop guard
    # sees a commit as progress before the watcher has recorded it
    """
    ALTER TABLE notes ADD COLUMN sender_head TEXT;
    """,
]
