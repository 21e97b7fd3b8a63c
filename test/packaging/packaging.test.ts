// The packaging, tested as far as this machine allows (no container runtime here; docs/operators/install.md says what
// was not run): the image's entry command and health check run on the host against a fresh data directory, the
// Dockerfile and compose.yaml checked against what the service really does, the systemd unit verified by
// systemd-analyze.
import { describe, it } from 'node:test';
import assert from 'node:assert/strict';
import { execFile, spawn } from 'node:child_process';
import { existsSync, readdirSync, readFileSync, realpathSync, rmSync, writeFileSync } from 'node:fs';
import { builtinModules } from 'node:module';
import { createInterface } from 'node:readline';
import path from 'node:path';
import { promisify } from 'node:util';
import { loadConfig } from '../../src/config.ts';
import { tempDir } from '../helpers/service.ts';
import { skipUnlessPresent } from '../helpers/required.ts';
import { waitFor } from '../helpers/wait.ts';

const run = promisify(execFile);
const root = realpathSync(path.resolve(import.meta.dirname, '../..'));
const dockerfile = readFileSync(path.join(root, 'Dockerfile'), 'utf8');
const unitFile = path.join(root, 'packaging/systemd/order-intake.service');

/** A Dockerfile instruction's JSON (exec) form, e.g. ENTRYPOINT ["…"]; continuation lines joined first. */
function execForm(instruction: string): string[] {
  const joined = dockerfile.replace(/\\\n\s*/g, '');
  const m = new RegExp(`^${instruction}\\s+(?:--\\S+\\s+)*(?:CMD\\s+)?(\\[.*\\])\\s*$`, 'm').exec(joined);
  assert.ok(m, `the Dockerfile has ${instruction} in exec form`);
  return JSON.parse(m[1]!) as string[];
}

/** The runtime stage's ENV (the last stage's lines), as the container gets them. */
function imageEnv(): Record<string, string> {
  const lastStage = dockerfile.slice(dockerfile.lastIndexOf('\nFROM '));
  const joined = lastStage.replace(/\\\n\s*/g, ' ');
  const env: Record<string, string> = {};
  for (const line of joined.split('\n').filter((l) => l.startsWith('ENV '))) {
    for (const [, k, v] of line.slice(4).matchAll(/(\w+)=(\S+)/g)) env[k!] = v!;
  }
  return env;
}

const DIST_MISSING = existsSync(path.join(root, 'dist/cli/main.js')) ? undefined : 'dist/ is not built (npm run build; npm ci does it)';
const NO_ANALYZE = await run('systemd-analyze', ['--version']).then(() => undefined, () => 'systemd-analyze is not installed (Debian package systemd)');

describe('the container image', () => {
  it('is built on Node 22, runs as a user of its own under tini, with /data, a health check on /readyz and every default port', () => {
    const froms = [...dockerfile.matchAll(/^FROM\s+(\S+)/gm)].map((m) => m[1]);
    assert.deepEqual(froms, ['node:22-bookworm-slim', 'node:22-bookworm-slim']);
    const user = /^USER\s+(\S+)/m.exec(dockerfile.slice(dockerfile.lastIndexOf('\nFROM ')))?.[1];
    assert.ok(user && !/^(root|0)(:|$)/.test(user), `runs as ${user}, not root`);
    assert.deepEqual(execForm('ENTRYPOINT').slice(0, 2), ['/usr/bin/tini', '--']);
    assert.match(dockerfile, /^VOLUME \["\/data"\]$/m);
    assert.equal(imageEnv().INTAKE_DATA_DIR, '/data');
    assert.match(execForm('HEALTHCHECK').join(' '), /\/readyz/);
    assert.match(dockerfile, /npm prune --omit=dev/);
    assert.match(dockerfile, /require\('better-sqlite3'\)/, 'the build checks that better-sqlite3 loads');
    // Every port the service opens by default is exposed: the defaults come from the one place that defines them.
    const c = loadConfig({});
    const expose = /^EXPOSE\s+(.+)$/m.exec(dockerfile)![1]!.split(/\s+/);
    for (const p of [c.httpPort, c.sftpPort, c.ftpPort, c.smtpPort]) assert.ok(expose.includes(String(p)), `EXPOSE ${p}`);
    assert.ok(expose.includes(`${c.ftpPasvRange.min}-${c.ftpPasvRange.max}`), 'EXPOSE the passive FTP range');
  });

  it('its entry command, run on the host against a fresh data directory, gets to /readyz 200, and its health check says so', { skip: skipUnlessPresent(DIST_MISSING) }, async () => {
    const dataDir = tempDir();
    // tini is not on the host: what it runs is the rest of the entry point, given the image's environment and CMD.
    const command = [...execForm('ENTRYPOINT').slice(2), ...execForm('CMD')].map((a) => a.replace(/^\/app\//, `${root}/`));
    assert.equal(command[0], 'node');
    const proc = spawn(process.execPath, command.slice(1), {
      cwd: dataDir,
      env: {
        PATH: process.env.PATH, ...imageEnv(), INTAKE_DATA_DIR: dataDir,
        INTAKE_HOST: '127.0.0.1', INTAKE_HTTP_PORT: '0', INTAKE_SFTP_PORT: '0', INTAKE_FTP_PORT: '0', INTAKE_SMTP_PORT: '0',
      },
      stdio: ['ignore', 'pipe', 'pipe'],
    });
    const lines: string[] = [];
    let stderr = '';
    proc.stderr.on('data', (d: Buffer) => { stderr += d.toString(); });
    createInterface({ input: proc.stdout }).on('line', (l) => lines.push(l));
    const exited = new Promise((resolve) => proc.on('exit', resolve));
    try {
      const port = await waitFor(() => {
        if (proc.exitCode !== null) throw new Error(`the entry command exited with ${proc.exitCode}\n${lines.join('\n')}\n${stderr}`);
        for (const l of lines) {
          const rec = l.startsWith('{') ? JSON.parse(l) as { channel?: string; port?: number } : {};
          if (rec.channel === 'http' && rec.port) return rec.port;
        }
        return undefined;
      }, 60_000, 'the HTTP port in the log');
      const ready = await waitFor(async () => {
        const r = await fetch(`http://127.0.0.1:${port}/readyz`);
        return r.status === 200 ? (await r.json()) as { status: string; channels: Record<string, boolean> } : undefined;
      }, 30_000, '/readyz 200');
      assert.equal(ready.status, 'ready');
      assert.deepEqual(Object.keys(ready.channels).sort(), ['ftp', 'http', 'sftp', 'smtp']);
      // Logged just after readiness turns on: waited for, not expected at the same instant.
      await waitFor(() => lines.some((l) => l.includes('"msg":"service ready"')) || undefined, 10_000, 'the JSON line "service ready" (INTAKE_LOG_FORMAT=json in the image)');
      assert.ok(existsSync(path.join(dataDir, 'intake.sqlite')) && existsSync(path.join(dataDir, 'secret.key')));
      // The HEALTHCHECK's own command, with the port this run got.
      const check = execForm('HEALTHCHECK');
      await run(process.execPath, check.slice(1), { env: { ...process.env, INTAKE_HTTP_PORT: String(port) } });
      await assert.rejects(run(process.execPath, check.slice(1), { env: { ...process.env, INTAKE_HTTP_PORT: '1' } }), 'unhealthy when nothing answers');
    } finally {
      proc.kill('SIGTERM');
      await exited;
      rmSync(dataDir, { recursive: true, force: true });
    }
  });
});

describe('the image\'s production dependencies', () => {
  it('every package the compiled service imports is a production dependency (npm prune --omit=dev keeps it)', { skip: skipUnlessPresent(DIST_MISSING) }, () => {
    const pkg = JSON.parse(readFileSync(path.join(root, 'package.json'), 'utf8')) as { dependencies: Record<string, string> };
    const files = readdirSync(path.join(root, 'dist'), { recursive: true, encoding: 'utf8' }).filter((f) => f.endsWith('.js'));
    assert.ok(files.length > 100);
    const used = new Set<string>();
    for (const f of files) {
      const text = readFileSync(path.join(root, 'dist', f), 'utf8');
      for (const m of text.matchAll(/(?:\bfrom\s*|\bimport\s*\(\s*|\brequire\(\s*|import\.meta\.resolve\(\s*)['"]([^'"./][^'"]*)['"]/g)) {
        const spec = m[1]!;
        // Only what names a package (the pattern also meets ordinary strings after a `from` in code).
        if (spec.startsWith('node:') || !/^(@[a-z0-9._-]+\/)?[a-z0-9._-]+(\/[\w./-]*)?$/.test(spec)) continue;
        used.add(spec.startsWith('@') ? spec.split('/').slice(0, 2).join('/') : spec.split('/')[0]!);
      }
    }
    // tsx is resolved only when the service runs from its TypeScript sources (a worker's loader), never from dist/.
    used.delete('tsx');
    const missing = [...used].filter((p) => !(p in pkg.dependencies) && !builtinModules.includes(p));
    assert.deepEqual(missing, [], 'imported by dist/ but not in dependencies');
  });
});

interface ComposeService {
  image?: string; command?: string[]; restart?: string; ports?: string[]; volumes?: string[];
  environment?: Record<string, string>; depends_on?: Record<string, { condition: string }>;
}

/** compose.yaml as Compose reads it (anchors and merge keys resolved), by PyYAML: no YAML parser among our packages. */
async function readCompose(): Promise<{ services: Record<string, ComposeService>; volumes: Record<string, unknown> }> {
  const { stdout } = await run('python3', ['-c', 'import json, sys, yaml; print(json.dumps(yaml.safe_load(open(sys.argv[1]))))', path.join(root, 'compose.yaml')]);
  return JSON.parse(stdout) as { services: Record<string, ComposeService>; volumes: Record<string, unknown> };
}

const NO_YAML = await run('python3', ['-c', 'import yaml']).then(() => undefined, () => 'PyYAML is not installed (Debian package python3-yaml)');

describe('compose.yaml', { skip: skipUnlessPresent(NO_YAML) }, () => {
  it('runs PostgreSQL, a one-shot migration the three instances wait for, and a shared hot folder', async () => {
    const { services, volumes } = await readCompose();
    assert.match(services.postgres!.image!, /^postgres:/);
    assert.deepEqual(services.migrate!.command, ['db', 'migrate']);
    assert.equal(services.migrate!.restart, 'no');
    const instances = Object.keys(services).filter((n) => n.startsWith('intake-')).sort();
    assert.deepEqual(instances, ['intake-1', 'intake-2', 'intake-3']);
    const ranges = new Set<string>();
    for (const name of instances) {
      const s = services[name]!;
      assert.deepEqual(s.depends_on?.migrate, { condition: 'service_completed_successfully' }, `${name} waits for the migration`);
      assert.deepEqual(s.depends_on?.postgres, { condition: 'service_healthy' });
      assert.ok(s.volumes?.includes('hotfolder:/hotfolder'), `${name} mounts the shared hot folder`);
      assert.ok(s.volumes?.some((v) => /^data-\d:\/data$/.test(v)), `${name} has a /data volume of its own`);
      assert.match(s.environment!.INTAKE_DATABASE_URL!, /^postgres:\/\/intake:.*@postgres:5432\/intake$/);
      assert.equal(s.environment!.INTAKE_SECRET_KEY, services.migrate!.environment!.INTAKE_SECRET_KEY, 'one key for all');
      // Each instance publishes, one to one, the passive range it is told to use, and no other instance uses it.
      const range = s.environment!.INTAKE_FTP_PASV_RANGE!;
      assert.ok(s.ports?.includes(`${range}:${range}`), `${name} publishes ${range}`);
      assert.ok(!ranges.has(range));
      ranges.add(range);
      // As Compose interpolates them, with the two required values given as the operator would.
      const given: Record<string, string> = { POSTGRES_PASSWORD: 'secret', INTAKE_SECRET_KEY: Buffer.alloc(32, 1).toString('base64') };
      const env = Object.fromEntries(Object.entries(s.environment!).map(([k, v]) => [k, v.replace(
        /\$\{(\w+)(?::-([^}]*)|:\?[^}]*)\}/g, (_m, key: string, fallback?: string) => given[key] ?? fallback ?? '')]));
      assert.doesNotThrow(() => loadConfig(env), `${name}'s settings load`);
    }
    assert.match(services.migrate!.environment!.INTAKE_SECRET_KEY!, /^\$\{INTAKE_SECRET_KEY:\?/, 'required, not defaulted');
    assert.ok('hotfolder' in volumes);
  });
});

describe('the systemd unit', { skip: skipUnlessPresent(NO_ANALYZE) }, () => {
  it('passes systemd-analyze verify without a warning, hardened, with MemoryDenyWriteExecute off for V8', async () => {
    const r = await run('systemd-analyze', ['verify', unitFile]);
    assert.equal(r.stderr.trim(), '', 'no warning (an unknown or misspelt setting is only a warning)');
    const unit = readFileSync(unitFile, 'utf8');
    for (const line of ['DynamicUser=yes', 'StateDirectory=order-intake', 'ProtectSystem=strict', 'NoNewPrivileges=yes',
      'MemoryDenyWriteExecute=no', 'Type=simple']) assert.match(unit, new RegExp(`^${line}$`, 'm'));
    assert.match(unit, /^RestrictAddressFamilies=AF_INET AF_INET6 AF_UNIX/m);
    assert.match(unit, /^ExecStartPost=.*\/readyz/m, 'started means ready');
    // systemd's own score of the sandbox (0 = fully locked down, 10 = none); the unit's is about 1.6.
    const sec = await run('systemd-analyze', ['security', '--offline=yes', unitFile]).catch((e: { stdout: string }) => e);
    const score = Number(/Overall exposure level for .*?: ([\d.]+)/.exec(sec.stdout)?.[1]);
    assert.ok(score <= 2.5, `exposure ${score}`);
  });

  it('a misspelt setting is caught: the check above would see it', async () => {
    const dir = tempDir();
    try {
      const bad = path.join(dir, 'order-intake.service');
      writeFileSync(bad, readFileSync(unitFile, 'utf8').replace('NoNewPrivileges=yes', 'NoNewPrivilegs=yes'));
      const r = await run('systemd-analyze', ['verify', bad]);
      assert.match(r.stderr, /Unknown key 'NoNewPrivilegs'/);
    } finally {
      rmSync(dir, { recursive: true, force: true });
    }
  });
});
