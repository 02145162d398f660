import { describe, expect, it } from 'vitest';
import { completePostgresUrl } from '../sim/cli/real.js';

describe('a PostgreSQL URL given to locklab real', () => {
  const account = () => 'ana';
  it('is completed as psql completes it: the user from PGUSER, else the account; the database from PGDATABASE, else the user', () => {
    expect(completePostgresUrl('postgres://127.0.0.1:5432', {}, account)).toBe('postgres://ana@127.0.0.1:5432/ana');
    expect(completePostgresUrl('postgresql://127.0.0.1:5432/', { PGUSER: 'app' }, account)).toBe('postgresql://app@127.0.0.1:5432/app');
    expect(completePostgresUrl('postgres://127.0.0.1:5432', { PGUSER: 'app', PGDATABASE: 'scratch' }, account)).toBe('postgres://app@127.0.0.1:5432/scratch');
    // A URL naming its user keeps it, and its password; the database defaults to that user.
    expect(completePostgresUrl('postgres://bo:secret@127.0.0.1:5432', { PGUSER: 'app' }, account)).toBe('postgres://bo:secret@127.0.0.1:5432/bo');
    expect(completePostgresUrl('postgres://127.0.0.1:5432/jobs?sslmode=disable', {}, account)).toBe('postgres://ana@127.0.0.1:5432/jobs?sslmode=disable');
  });

  it('is left exactly as written when it names both', () => {
    expect(completePostgresUrl('postgres://bo@127.0.0.1:5432/jobs', { PGUSER: 'app', PGDATABASE: 'x' }, account)).toBe('postgres://bo@127.0.0.1:5432/jobs');
  });
});
