// yearIn remembers its answer per quarter-hour (src/intake/register.ts); around New Year, in zones whose offset
// is not whole hours, it must still give the year a fresh formatter gives.
import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import { yearIn } from '../../src/intake/register.ts';

/**
 * The year as a formatter of the test's own gives it, independent of the code under test and its memory. One per
 * zone: formatting is pure, and building a formatter per call (23,000 of them) was most of this file's time.
 */
const formatters = new Map<string, Intl.DateTimeFormat>();
function fresh(at: Date, timeZone: string): number {
  let f = formatters.get(timeZone);
  if (!f) formatters.set(timeZone, f = new Intl.DateTimeFormat('en', { timeZone, year: 'numeric' }));
  return Number(f.format(at));
}

void describe('yearIn', () => {
  for (const zone of ['Europe/Rome', 'Asia/Kathmandu', 'America/St_Johns', 'Pacific/Chatham', 'UTC']) {
    void it(`gives the right year minute by minute across New Year in ${zone}`, () => {
      // Midnight local time falls at a different UTC minute in each zone: walk the whole UTC day around it.
      const start = Date.parse('2026-12-31T00:00:00Z');
      for (let m = 0; m <= 48 * 60; m += 1) {
        for (const s of [0, 59_999]) {
          const at = new Date(start + m * 60_000 + s);
          assert.equal(yearIn(at, zone), fresh(at, zone), `${zone} at ${at.toISOString()}`);
        }
      }
    });
  }

  void it('answers for times out of order too (a clock set back, a backlog)', () => {
    const times = ['2027-01-01T00:10:00Z', '2026-12-31T22:50:00Z', '2027-01-01T00:10:00Z', '2026-06-01T12:00:00Z'];
    for (const t of times) assert.equal(yearIn(new Date(t), 'Europe/Rome'), fresh(new Date(t), 'Europe/Rome'));
  });
});
