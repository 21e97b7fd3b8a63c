// The operator's product key template (issue 20) and the customer table's file format, on their own; the tickets
// they serve are tested end to end in test/channels/connectors/cip4-samples.test.ts.
import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import { parseCustomerTable } from '../../../src/connectors/customers-csv.ts';
import { IntakeError } from '../../../src/domain/errors.ts';
import { candidateKeys, fillTemplate, parseProductKeyTemplate } from '../../../src/intake/connectors/product-key-template.ts';
import { readTree } from '../../../src/intake/connectors/xml-tree.ts';

const isValidation = (re: RegExp) => (e: unknown) => e instanceof IntakeError && e.code === 'VALIDATION' && re.test(e.messages.join(' '));

/** A Product as CIP4's book-product.xjdf writes it: no name, type or id, only intents. */
const poster = readTree(Buffer.from(`<Product Amount="250" IsRoot="true" xmlns="http://www.CIP4.org/JDFSchema_2_0">
  <Intent Name="LayoutIntent"><LayoutIntent FinishedDimensions="1683.779 2383.937 0.0" Sides="OneSided"/></Intent>
  <Intent Name="MediaIntent"><MediaIntent MediaQuality="135_GLOSS" MediaType="Paper"/></Intent>
</Product>`), undefined, 'XJDF').node;

void describe('product key template', () => {
  void it('fills placeholders from the product and its intents; a missing one gives no key', () => {
    assert.equal(fillTemplate('{MediaIntent/@MediaQuality} {LayoutIntent/@FinishedDimensions}', poster), '135_GLOSS 1683.779 2383.937 0.0');
    assert.equal(fillTemplate('{Intent/MediaIntent/@MediaType}-{@Amount}', poster), 'Paper-250');
    assert.equal(fillTemplate('{@DescriptiveName}', poster), undefined);
    assert.equal(fillTemplate('{MediaIntent/@MediaQuality} {ColorIntent/@Coatings}', poster), undefined);
  });

  void it('tries the alternatives in order, auto standing for the built-in keys', () => {
    const alts = parseProductKeyTemplate(' auto || {@DescriptiveName} || {MediaIntent/@MediaQuality} ');
    assert.deepEqual(candidateKeys(alts, poster, ['Poster']), ['Poster', '135_GLOSS']);
    assert.deepEqual(candidateKeys(undefined, poster, ['Poster']), ['Poster']);
    assert.deepEqual(candidateKeys(parseProductKeyTemplate('{@DescriptiveName}'), poster, ['Poster']), []);
  });

  void it('refuses templates that cannot work, saying why', () => {
    assert.throws(() => parseProductKeyTemplate(''), isValidation(/1 to 500 characters/));
    assert.throws(() => parseProductKeyTemplate('{DescriptiveName}'), isValidation(/placeholder that is not/));
    assert.throws(() => parseProductKeyTemplate('{@DescriptiveName}||||auto'), isValidation(/empty alternative/));
    assert.throws(() => parseProductKeyTemplate('flyer'), isValidation(/no placeholder/));
    assert.throws(() => parseProductKeyTemplate(Array(9).fill('auto').join('||')), isValidation(/at most 8/));
  });
});

void describe('customer table file', () => {
  void it('reads id_esterno;codice_cliente in any order and delimiter, ids trimmed and upper case', () => {
    assert.deepEqual(parseCustomerTable('\uFEFFcodice_cliente,ID_ESTERNO\nC001, mis-1 \nC002,MIS-2\n'), [
      { externalId: 'MIS-1', codice_cliente: 'C001' }, { externalId: 'MIS-2', codice_cliente: 'C002' },
    ]);
  });

  void it('names the line of every bad row, and refuses a missing header', () => {
    assert.throws(() => parseCustomerTable('id;codice\nA;B\n'), isValidation(/header needs id_esterno and codice_cliente/));
    assert.throws(() => parseCustomerTable('id_esterno;codice_cliente\nA;C001\n;C002\na;C003\nB;\n'),
      isValidation(/line 3: id_esterno must be 1 to 100.*line 4: id_esterno "A" repeats line 2.*line 5: codice_cliente is empty/));
  });
});
