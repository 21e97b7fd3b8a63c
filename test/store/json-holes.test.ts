// JSON texts with holes (src/store/postgres/json-holes.ts): what PostgreSQL's single-order statement stores is
// JSON.stringify of what the JavaScript builder made with the id and number it filled in, whatever the customer's
// text contains (the escape of a stand-in, quotes, backslashes, control characters). No database needed.
import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import { fillHoles, ID_HOLE, mayHoldStandIns, NUMBER_HOLE, withHoles } from '../../src/store/postgres/json-holes.ts';

const TRICKY = ['R1', 'a"b\\c', '\u0001\u0002', '\\u0001', '\\\\u0002"', 'x\u0003y', 'è già € 😀', '\u2028', ''];

void describe('JSON texts with holes', () => {
  void it('fill back to the text the builder makes with those values, whatever the customer wrote', () => {
    for (const ref of TRICKY) {
      const build = (id: string, numero: string) => [
        JSON.stringify({ riferimento_ordine: ref, id_ordine: id, numero_ordine: numero }),
        JSON.stringify({ messaggio: `L'ordine "${ref}" è già stato registrato (numero ${numero}) con un contenuto diverso`, ref }),
        JSON.stringify({ nothing: ref }),
      ];
      const templates = withHoles(build);
      // One build is enough when the other inputs hold no stand-in, and gives the same holes.
      assert.equal(mayHoldStandIns({ ref }), ref.includes('\u0001') || ref.includes('\u0002') || /\\u000[12]/.test(ref));
      if (!mayHoldStandIns({ ref })) assert.deepEqual(withHoles(build, false), templates);
      for (const [id, numero] of [['0190a1b2-c3d4-7e5f-8a9b-0c1d2e3f4a5b', '2025-000042'], ['id "odd" \\', '2026-1234567']] as const) {
        assert.deepEqual(templates.map((t) => fillHoles(t, id, numero)), build(id, numero), `reference ${JSON.stringify(ref)}`);
      }
      assert.equal(templates[2], JSON.stringify({ nothing: ref }), 'a text without the values has no holes');
      // Holes only where the values were: the customer's own \u0001 stays an escape.
      assert.equal(templates[0]!.split(ID_HOLE).length, 2);
      assert.equal(templates[1]!.split(NUMBER_HOLE).length, 2);
    }
  });

  void it('a single build with stand-ins in the inputs would be ambiguous: that is why they are built twice', () => {
    const ref = 'x\u0001y';
    const build = (id: string, numero: string) => [JSON.stringify({ ref, id, numero })];
    assert.ok(mayHoldStandIns({ ref }));
    assert.notDeepEqual(withHoles(build, false).map((t) => fillHoles(t, 'I', 'N')), build('I', 'N'));
    assert.deepEqual(withHoles(build).map((t) => fillHoles(t, 'I', 'N')), build('I', 'N'));
  });

  void it('refuses a builder that writes a value other than as string content', () => {
    assert.throws(() => withHoles((_id, numero) => [JSON.stringify({ n: numero.charCodeAt(0) })]), /other than as string content/);
    assert.throws(() => withHoles((id) => [`${id}`]), /other than as string content/);
    assert.throws(() => withHoles((_id, numero) => [numero === '\u0002' ? 'ab' : 'a']), /different shapes/);
  });
});
