// libpq's environment variables (PGHOST, PGPASSWORD, …) for a postgres:// URL, so that the client
// programs `npm run db` starts get their connection details without a command line other users could read.

/** libpq's environment variables for a postgres:// URL: nothing secret on a command line. */
export function connectionEnvironment(url: string): Record<string, string> {
  // `user@/db?host=/dir` (libpq's and pg's form with the socket directory as a parameter) is not a URL
  // (credentials need a host): parsed with a placeholder host, which the parameter replaces.
  const parsed = new URL(url.replace(/@\//, '@localhost/'));
  const env: Record<string, string> = {
    // A socket directory is named by `host` (postgresql://user@/db?host=/var/run/postgresql) or by an
    // encoded host (postgresql://user@%2Fvar%2Frun%2Fpostgresql/db), as libpq reads them.
    PGHOST: parsed.searchParams.get('host') || decodeURIComponent(parsed.hostname.replace(/^\[(.*)\]$/, '$1')) || '127.0.0.1',
    PGPORT: parsed.searchParams.get('port') || parsed.port || '5432',
    PGUSER: decodeURIComponent(parsed.username || 'postgres'),
    PGDATABASE: decodeURIComponent(parsed.pathname.replace(/^\//, '')) || decodeURIComponent(parsed.username || 'postgres'),
  };
  if (parsed.password) env.PGPASSWORD = decodeURIComponent(parsed.password);
  const params: Record<string, string> = {
    sslmode: 'PGSSLMODE',
    sslrootcert: 'PGSSLROOTCERT',
    sslcert: 'PGSSLCERT',
    sslkey: 'PGSSLKEY',
    connect_timeout: 'PGCONNECT_TIMEOUT',
    options: 'PGOPTIONS',
  };
  for (const [param, variable] of Object.entries(params)) {
    const value = parsed.searchParams.get(param);
    if (value) env[variable] = value;
  }
  return env;
}
