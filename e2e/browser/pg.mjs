// A throwaway PostgreSQL for the browser tests of team mode, started as the
// Go tests start theirs (adapters/storage/postgres/pgtest): the Debian
// postgresql-15 binaries, initdb and postgres in a temporary folder,
// listening on a Unix socket only, run as the postgres OS user when the
// tests run as root (initdb refuses root). Nothing is downloaded.

import { spawn, spawnSync } from 'node:child_process';
import { chownSync, existsSync, mkdtempSync, rmSync } from 'node:fs';
import { join } from 'node:path';

const BIN_DIRS = ['/usr/lib/postgresql/15/bin', '/usr/lib/postgresql/16/bin', '/usr/lib/postgresql/17/bin'];

/** The folder holding initdb and postgres ($PG_BIN first), or null. */
export function postgresBin() {
  for (const d of [process.env.PG_BIN, ...BIN_DIRS]) {
    if (d && existsSync(join(d, 'initdb')) && existsSync(join(d, 'postgres'))) return d;
  }
  return null;
}

/** The uid and gid of the postgres OS user, when running as root; {} otherwise. */
function owner() {
  if (process.getuid() !== 0) return {};
  const id = (flag) => Number(spawnSync('id', [flag, 'postgres'], { encoding: 'utf8' }).stdout.trim());
  const uid = id('-u'); const gid = id('-g');
  if (!Number.isInteger(uid) || uid <= 0) throw new Error('running as root needs the postgres OS user for initdb');
  return { uid, gid };
}

/**
 * Starts a cluster in a new folder (under /tmp: a socket path must stay
 * short) and resolves, once it accepts connections, to {url, stop}: url is
 * the libpq URL of its postgres database.
 */
export async function startPostgres(bin) {
  const ids = owner();
  const dir = mkdtempSync('/tmp/kgpg-');
  if (ids.uid) chownSync(dir, ids.uid, ids.gid);
  const env = { PATH: '/usr/bin:/bin', LC_ALL: 'C' };
  const init = spawnSync(join(bin, 'initdb'), ['-D', join(dir, 'data'), '-U', 'kg', '--auth=trust', '-E', 'UTF8', '--locale=C', '--no-sync'],
    { ...ids, cwd: dir, env, encoding: 'utf8' });
  if (init.status !== 0) {
    rmSync(dir, { recursive: true, force: true });
    throw new Error(`initdb: ${init.stderr || init.error}`);
  }
  const proc = spawn(join(bin, 'postgres'), ['-D', join(dir, 'data'), '-c', 'listen_addresses=', '-c', `unix_socket_directories=${dir}`,
    '-c', 'fsync=off', '-c', 'full_page_writes=off', '-c', 'max_connections=100', '-c', 'shared_buffers=32MB'],
  { ...ids, cwd: dir, env, stdio: ['ignore', 'pipe', 'pipe'] });
  let log = '';
  await new Promise((resolve, reject) => {
    const onData = (b) => {
      log += b.toString();
      if (log.includes('ready to accept connections')) resolve();
    };
    proc.stdout.on('data', onData);
    proc.stderr.on('data', onData);
    proc.on('exit', (code) => reject(new Error(`postgres exited ${code} at start:\n${log}`)));
    setTimeout(() => reject(new Error(`postgres did not accept connections within 30 s:\n${log}`)), 30_000).unref();
  });
  return {
    url: `postgres://kg@/postgres?host=${encodeURIComponent(dir)}`,
    async stop() {
      if (proc.exitCode === null) {
        const done = new Promise((r) => proc.once('exit', r));
        proc.kill('SIGINT'); // fast shutdown
        await done;
      }
      rmSync(dir, { recursive: true, force: true });
    },
  };
}
