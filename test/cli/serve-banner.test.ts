// The newcomer's path: `serve` on an empty data directory seeds the demo customer and prints a curl command;
// running that command, as printed, with the real curl registers an order. A second start prints no secrets.
import assert from 'node:assert/strict';
import { execFile } from 'node:child_process';
import { rmSync } from 'node:fs';
import { promisify } from 'node:util';
import { after, describe, it } from 'node:test';
import { spawnServe, stopServe, waitForLine } from '../helpers/child.ts';
import { tempDir } from '../helpers/service.ts';

const run = promisify(execFile);

void describe('serve: the demo banner', () => {
  const dir = tempDir();
  after(() => rmSync(dir, { recursive: true, force: true }));

  void it('prints a curl command that registers the demo order, once', async () => {
    const first = await spawnServe(dir);
    try {
      const [line] = await waitForLine(first, /^\s+curl -sS -X POST .*$/);
      const command = line.trim();
      assert.match(command, new RegExp(`http://127\\.0\\.0\\.1:${first.httpPort}/api/v1/ordini`));
      // Run it the way a person pasting it would: through a shell.
      const { stdout } = await run('sh', ['-c', `${command} -w '\\n%{http_code}'`]);
      const [body, status] = [stdout.slice(0, stdout.lastIndexOf('\n')), stdout.slice(stdout.lastIndexOf('\n') + 1)];
      assert.equal(status, '201', body);
      assert.match((JSON.parse(body) as { numero_ordine: string }).numero_ordine, /^\d{4}-\d{6}$/);
    } finally {
      assert.equal(await stopServe(first), 0);
    }
    const second = await spawnServe(dir);
    try {
      // The banner would come before this line: once it is out, the absence of the banner means something.
      await waitForLine(second, /"msg":"service ready"/);
      assert.ok(!second.lines.some((l) => l.includes('Demo customer created')), 'secrets are shown only at the first start');
    } finally {
      assert.equal(await stopServe(second), 0);
    }
  });
});
