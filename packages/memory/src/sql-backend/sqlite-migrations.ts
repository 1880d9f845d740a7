/**
 * The SQLite schema, one entry per version. `PRAGMA user_version` records the version a file is
 * at; opening applies every newer entry in one transaction. Never edit a shipped entry: add one.
 */
export const SQLITE_MIGRATIONS: readonly { version: number; sql: string }[] = [
  {
    version: 1,
    sql: `
      CREATE TABLE scratchpad (
        agent_id TEXT NOT NULL,
        key TEXT NOT NULL,
        type TEXT NOT NULL,
        summary TEXT NOT NULL,
        raw TEXT NOT NULL,
        created_at INTEGER NOT NULL,
        updated_at INTEGER NOT NULL,
        write_seq INTEGER NOT NULL,
        PRIMARY KEY (agent_id, key)
      );
      CREATE INDEX scratchpad_by_write ON scratchpad (agent_id, write_seq);
      CREATE TABLE conversation_senders (
        agent_id TEXT NOT NULL,
        sender_id TEXT NOT NULL,
        last_activity_at INTEGER NOT NULL,
        activity_seq INTEGER NOT NULL,
        PRIMARY KEY (agent_id, sender_id)
      );
      CREATE INDEX conversation_senders_by_activity ON conversation_senders (agent_id, activity_seq);
      CREATE TABLE conversation_exchanges (
        id INTEGER PRIMARY KEY AUTOINCREMENT,
        agent_id TEXT NOT NULL,
        sender_id TEXT NOT NULL,
        message_id TEXT NOT NULL,
        sender_body TEXT NOT NULL,
        agent_reply TEXT NOT NULL,
        turn_id TEXT NOT NULL,
        at INTEGER NOT NULL,
        FOREIGN KEY (agent_id, sender_id)
          REFERENCES conversation_senders (agent_id, sender_id) ON DELETE CASCADE
      );
      CREATE INDEX conversation_exchanges_by_sender
        ON conversation_exchanges (agent_id, sender_id, id);
      CREATE TABLE runs (
        id TEXT PRIMARY KEY,
        parent_id TEXT,
        status TEXT NOT NULL,
        config TEXT NOT NULL,
        usage TEXT NOT NULL,
        created_at INTEGER NOT NULL,
        updated_at INTEGER NOT NULL,
        ended_at INTEGER
      );
      CREATE TABLE run_events (
        run_id TEXT NOT NULL REFERENCES runs (id) ON DELETE CASCADE,
        seq INTEGER NOT NULL,
        event TEXT NOT NULL,
        PRIMARY KEY (run_id, seq)
      ) WITHOUT ROWID;
    `,
  },
  {
    version: 2,
    sql: `
      CREATE INDEX runs_by_created ON runs (created_at, id);
      CREATE INDEX runs_by_status ON runs (status, created_at);
      CREATE TABLE run_checkpoints (
        run_id TEXT NOT NULL REFERENCES runs (id) ON DELETE CASCADE,
        turn INTEGER NOT NULL,
        data TEXT NOT NULL,
        at INTEGER NOT NULL,
        PRIMARY KEY (run_id, turn)
      ) WITHOUT ROWID;
      CREATE TABLE run_trajectory (
        run_id TEXT NOT NULL REFERENCES runs (id) ON DELETE CASCADE,
        seq INTEGER NOT NULL,
        record TEXT NOT NULL,
        PRIMARY KEY (run_id, seq)
      ) WITHOUT ROWID;
      CREATE TABLE prompt_layers (
        agent_id TEXT NOT NULL,
        layer_id INTEGER NOT NULL,
        version INTEGER NOT NULL,
        content TEXT NOT NULL,
        written_by TEXT NOT NULL,
        at INTEGER NOT NULL,
        restored_from INTEGER,
        PRIMARY KEY (agent_id, layer_id, version)
      );
      CREATE TABLE memory_items (
        id INTEGER PRIMARY KEY AUTOINCREMENT,
        agent_id TEXT NOT NULL,
        kind TEXT NOT NULL,
        content TEXT NOT NULL,
        tags TEXT NOT NULL,
        source TEXT NOT NULL,
        at INTEGER NOT NULL
      );
      CREATE INDEX memory_items_by_agent ON memory_items (agent_id, id);
    `,
  },
  {
    // Runs get an owner for listRuns({ owner }). Runs written before it kept their owner, if at
    // all, as a string \`owner\` in their config (the server's convention), so it is carried over.
    version: 3,
    sql: `
      ALTER TABLE runs ADD COLUMN owner TEXT;
      UPDATE runs SET owner = json_extract(config, '$.owner')
        WHERE json_type(config, '$.owner') = 'text' AND json_extract(config, '$.owner') <> '';
      CREATE INDEX runs_by_owner ON runs (owner, created_at, id);
    `,
  },
  {
    // Who executes a run, until when (see RunStore.claimRun); one row per run, its epoch growing
    // with every claim so a holder that lost the run can tell.
    version: 4,
    sql: `
      CREATE TABLE run_leases (
        run_id TEXT PRIMARY KEY REFERENCES runs (id) ON DELETE CASCADE,
        holder TEXT NOT NULL,
        epoch INTEGER NOT NULL,
        expires_at REAL NOT NULL
      ) WITHOUT ROWID;
      CREATE INDEX run_leases_by_expiry ON run_leases (expires_at);
    `,
  },
  {
    // Layer texts an agent proposed in `proposal` mode, waiting for (or decided by) an admin.
    version: 5,
    sql: `
      CREATE TABLE prompt_layer_proposals (
        id INTEGER PRIMARY KEY AUTOINCREMENT,
        agent_id TEXT NOT NULL,
        layer_id INTEGER NOT NULL,
        content TEXT NOT NULL,
        proposed_by TEXT NOT NULL,
        at INTEGER NOT NULL,
        status TEXT NOT NULL,
        decided_by TEXT,
        decided_at INTEGER,
        applied_version INTEGER,
        reason TEXT
      );
      CREATE INDEX prompt_layer_proposals_by_agent ON prompt_layer_proposals (agent_id, id);
    `,
  },
  {
    // The sub-call cache: one stored reply per call key, shared by every process on the file.
    version: 6,
    sql: `
      CREATE TABLE call_cache (
        key TEXT PRIMARY KEY,
        response TEXT NOT NULL,
        paid_by_run_id TEXT NOT NULL,
        cost_usd REAL NOT NULL,
        tokens INTEGER NOT NULL,
        created_at REAL NOT NULL,
        hits INTEGER NOT NULL
      ) WITHOUT ROWID;
    `,
  },
];

/** The schema version this build writes; a file with a higher `user_version` is refused. */
export const SQLITE_SCHEMA_VERSION = SQLITE_MIGRATIONS.length;
