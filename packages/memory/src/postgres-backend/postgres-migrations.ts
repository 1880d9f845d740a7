/**
 * The Postgres schema, one entry per version; the table `rlm_schema_migrations` records which
 * versions a database has. Never edit a shipped entry: add one.
 *
 * Differences from the SQLite schema, on purpose: timestamps are `DOUBLE PRECISION` because the
 * stores accept any finite epoch-millisecond number (an injected clock may return fractions) and
 * must return exactly what was written; JSON columns are `json`, which checks the text but keeps
 * it byte for byte (the stores validate it with zod when reading); run ids sort with the "C"
 * collation, so `listRuns` pages in the same code-unit order as SQLite whatever the database's
 * locale.
 */
export const POSTGRES_MIGRATIONS: readonly { version: number; sql: string }[] = [
  {
    version: 1,
    sql: `
      CREATE TABLE scratchpad (
        agent_id TEXT NOT NULL,
        key TEXT NOT NULL,
        type TEXT NOT NULL,
        summary TEXT NOT NULL,
        raw JSON NOT NULL,
        created_at DOUBLE PRECISION NOT NULL,
        updated_at DOUBLE PRECISION NOT NULL,
        write_seq BIGINT NOT NULL,
        PRIMARY KEY (agent_id, key)
      );
      CREATE INDEX scratchpad_by_write ON scratchpad (agent_id, write_seq);
      CREATE TABLE conversation_senders (
        agent_id TEXT NOT NULL,
        sender_id TEXT NOT NULL,
        last_activity_at DOUBLE PRECISION NOT NULL,
        activity_seq BIGINT NOT NULL,
        PRIMARY KEY (agent_id, sender_id)
      );
      CREATE INDEX conversation_senders_by_activity ON conversation_senders (agent_id, activity_seq);
      CREATE TABLE conversation_exchanges (
        id BIGINT GENERATED ALWAYS AS IDENTITY PRIMARY KEY,
        agent_id TEXT NOT NULL,
        sender_id TEXT NOT NULL,
        message_id TEXT NOT NULL,
        sender_body TEXT NOT NULL,
        agent_reply TEXT NOT NULL,
        turn_id TEXT NOT NULL,
        at DOUBLE PRECISION NOT NULL,
        FOREIGN KEY (agent_id, sender_id)
          REFERENCES conversation_senders (agent_id, sender_id) ON DELETE CASCADE
      );
      CREATE INDEX conversation_exchanges_by_sender
        ON conversation_exchanges (agent_id, sender_id, id);
      CREATE TABLE runs (
        id TEXT COLLATE "C" PRIMARY KEY,
        parent_id TEXT COLLATE "C",
        owner TEXT,
        status TEXT NOT NULL,
        config JSON NOT NULL,
        usage JSON NOT NULL,
        created_at DOUBLE PRECISION NOT NULL,
        updated_at DOUBLE PRECISION NOT NULL,
        ended_at DOUBLE PRECISION
      );
      CREATE INDEX runs_by_created ON runs (created_at, id);
      CREATE INDEX runs_by_status ON runs (status, created_at);
      CREATE INDEX runs_by_owner ON runs (owner, created_at, id);
      CREATE TABLE run_events (
        run_id TEXT COLLATE "C" NOT NULL REFERENCES runs (id) ON DELETE CASCADE,
        seq INTEGER NOT NULL,
        event JSON NOT NULL,
        PRIMARY KEY (run_id, seq)
      );
      CREATE TABLE run_checkpoints (
        run_id TEXT COLLATE "C" NOT NULL REFERENCES runs (id) ON DELETE CASCADE,
        turn INTEGER NOT NULL,
        data JSON NOT NULL,
        at DOUBLE PRECISION NOT NULL,
        PRIMARY KEY (run_id, turn)
      );
      CREATE TABLE run_trajectory (
        run_id TEXT COLLATE "C" NOT NULL REFERENCES runs (id) ON DELETE CASCADE,
        seq INTEGER NOT NULL,
        record JSON NOT NULL,
        PRIMARY KEY (run_id, seq)
      );
      CREATE TABLE prompt_layers (
        agent_id TEXT NOT NULL,
        layer_id INTEGER NOT NULL,
        version INTEGER NOT NULL,
        content TEXT NOT NULL,
        written_by TEXT NOT NULL,
        at DOUBLE PRECISION NOT NULL,
        restored_from INTEGER,
        PRIMARY KEY (agent_id, layer_id, version)
      );
      CREATE TABLE memory_items (
        id BIGINT GENERATED ALWAYS AS IDENTITY PRIMARY KEY,
        agent_id TEXT NOT NULL,
        kind TEXT NOT NULL,
        content TEXT NOT NULL,
        tags JSON NOT NULL,
        source TEXT NOT NULL,
        at DOUBLE PRECISION NOT NULL
      );
      CREATE INDEX memory_items_by_agent ON memory_items (agent_id, id);
    `,
  },
  {
    // Replicas follow a run's events from the table; this wakes their waiting streams when an
    // event commits (notifications are delivered at commit, in commit order). The payload names
    // the schema, so stores in different schemas of one database can tell theirs apart, and
    // leaves out run ids too long for a notification (8000 bytes): a null runId means "any run".
    version: 2,
    sql: `
      CREATE FUNCTION rlm_announce_run_event() RETURNS trigger LANGUAGE plpgsql AS $$
      BEGIN
        PERFORM pg_notify('rlm_run_events', json_build_object(
          'schema', TG_TABLE_SCHEMA,
          'runId', CASE WHEN octet_length(NEW.run_id) <= 4000 THEN NEW.run_id END,
          'seq', NEW.seq)::text);
        RETURN NULL;
      END
      $$;
      CREATE TRIGGER run_events_announce AFTER INSERT ON run_events
        FOR EACH ROW EXECUTE FUNCTION rlm_announce_run_event();
    `,
  },
  {
    // Which process executes a run, until when (RunStore.claimRun): replicas claim runs, renew
    // the claim while they work, and another one takes over once it lapses.
    version: 3,
    sql: `
      CREATE TABLE run_leases (
        run_id TEXT COLLATE "C" PRIMARY KEY REFERENCES runs (id) ON DELETE CASCADE,
        holder TEXT NOT NULL,
        epoch BIGINT NOT NULL,
        expires_at DOUBLE PRECISION NOT NULL
      );
      CREATE INDEX run_leases_by_expiry ON run_leases (expires_at);
    `,
  },
  {
    // Layer texts an agent proposed in `proposal` mode, waiting for (or decided by) an admin.
    version: 4,
    sql: `
      CREATE TABLE prompt_layer_proposals (
        id BIGINT GENERATED ALWAYS AS IDENTITY PRIMARY KEY,
        agent_id TEXT NOT NULL,
        layer_id INTEGER NOT NULL,
        content TEXT NOT NULL,
        proposed_by TEXT NOT NULL,
        at DOUBLE PRECISION NOT NULL,
        status TEXT NOT NULL,
        decided_by TEXT,
        decided_at DOUBLE PRECISION,
        applied_version INTEGER,
        reason TEXT
      );
      CREATE INDEX prompt_layer_proposals_by_agent ON prompt_layer_proposals (agent_id, id);
    `,
  },
  {
    // The sub-call cache: one stored reply per call key, shared by every replica.
    version: 5,
    sql: `
      CREATE TABLE call_cache (
        key TEXT COLLATE "C" PRIMARY KEY,
        response TEXT NOT NULL,
        paid_by_run_id TEXT NOT NULL,
        cost_usd DOUBLE PRECISION NOT NULL,
        tokens BIGINT NOT NULL,
        created_at DOUBLE PRECISION NOT NULL,
        hits BIGINT NOT NULL
      );
    `,
  },
];

/** The schema version this build writes; a database at a higher version is refused. */
export const POSTGRES_SCHEMA_VERSION = POSTGRES_MIGRATIONS.length;

/** The channel `run_events` inserts are announced on (`LISTEN rlm_run_events`). */
export const RUN_EVENTS_CHANNEL = 'rlm_run_events';
