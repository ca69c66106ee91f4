import pg from 'pg';

/**
 * A run row held by `attempt` (running, `attempts` = attempt) with no agent, thread or session behind
 * it, so no worker ever claims it: for tests of the item path, whose writes land only for the attempt
 * that holds its run. Written with foreign keys off for this one transaction; writing it again moves
 * the same run to that attempt.
 */
export async function holdBareRun(databaseUrl: string, workspaceId: string, runId: string, attempt = 1): Promise<void> {
  const client = new pg.Client({ connectionString: databaseUrl });
  await client.connect();
  try {
    await client.query('BEGIN');
    await client.query('SET LOCAL session_replication_role = replica');
    await client.query(
      `INSERT INTO runs (id, workspace_id, session_id, thread_id, agent_id, agent_revision_id, principal_id, status, attempts)
       VALUES ($1, $2, 'ses_bare', 'thr_bare', 'agt_bare', 'rev_bare', 'p', 'running', $3)
       ON CONFLICT (id) DO UPDATE SET status = 'running', attempts = EXCLUDED.attempts`,
      [runId, workspaceId, attempt],
    );
    await client.query('COMMIT');
  } finally {
    await client.end();
  }
}
