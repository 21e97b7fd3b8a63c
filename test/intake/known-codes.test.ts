// The intake remembers catalog codes it found (known-codes.ts); what it must never do is remember a code it did
// not find, or an order for an article added later would stay refused, nor an article past its time, or one
// deactivated or removed would stay accepted.
import { describe, it } from 'node:test';
import assert from 'node:assert/strict';
import { rememberKnown } from '../../src/intake/known-codes.ts';
import { createIntake } from '../../src/intake/intake.ts';
import { createLogger } from '../../src/log.ts';
import { openSqliteStore } from '../../src/store/sqlite/store.ts';
import { order, TEST_ARTICLES } from '../helpers/service.ts';
import { seedIntakeStore } from './seed.ts';

describe('remembering known catalog codes', () => {
  it('asks the store only for codes not found before, and forgets the oldest past its bound', async () => {
    const asked: string[][] = [];
    const exists = new Set(['A', 'B', 'C']);
    const known = rememberKnown(async (codes) => {
      asked.push([...codes]);
      return new Set(codes.filter((c) => exists.has(c)));
    }, 2);
    assert.deepEqual([...await known(['A', 'X'])].sort(), ['A']);
    assert.deepEqual([...await known(['A', 'X'])].sort(), ['A'], 'A remembered, X asked again');
    assert.deepEqual(asked, [['A', 'X'], ['X']]);
    exists.add('X');
    assert.deepEqual([...await known(['X'])], ['X'], 'a code added later is found');
    await known(['B']); // bound 2: A (oldest) is forgotten
    asked.length = 0;
    await known(['A', 'B', 'X']);
    assert.deepEqual(asked, [['A']]);
  });

  it('asks again for a code found once its time is up, and then no longer has it if the store says so', async () => {
    let now = 1_000;
    const exists = new Set(['A']);
    let asked = 0;
    const known = rememberKnown(async (codes) => {
      asked++;
      return new Set(codes.filter((c) => exists.has(c)));
    }, 10, 5_000, () => now);
    assert.deepEqual([...await known(['A'])], ['A']);
    now += 4_999;
    assert.deepEqual([...await known(['A'])], ['A']);
    assert.equal(asked, 1, 'remembered within its time');
    exists.delete('A'); // deactivated or removed, by this process or another one
    now += 1;
    assert.deepEqual([...await known(['A'])], [], 'asked again, and gone');
    assert.equal(asked, 2);
    assert.deepEqual([...await known(['A'])], []);
    assert.equal(asked, 3, 'a code not found is never remembered');
  });

  it('accepts an order for an article imported after the same order was refused for it', async () => {
    const store = await openSqliteStore(':memory:');
    try {
      const principal = await seedIntakeStore(store);
      const intake = createIntake({ store, timeZone: 'Europe/Rome', log: createLogger('silent') });
      const known = TEST_ARTICLES[0]!;
      const righe = [
        { codice_articolo: 'NEW-1', quantita: 1, unita_misura: 'PZ' },
        { codice_articolo: known.codice_articolo, quantita: 2, unita_misura: known.unita_misura },
      ];
      const send = (ref: string) => intake.submit({
        principal, channel: 'rest', singleOrder: true, raw: Buffer.from(JSON.stringify(order('C001', ref, { righe }))),
      });
      const refused = await send('K-1');
      assert.equal(refused.outcome.orders[0]!.code, 'BUSINESS');
      await store.upsertArticles([{ codice_articolo: 'NEW-1', descrizione: 'Nuovo', unita_misura: 'PZ' }]);
      const accepted = await send('K-2');
      assert.equal(accepted.outcome.orders[0]!.esito, 'ok');
    } finally {
      await store.close();
    }
  });
});
