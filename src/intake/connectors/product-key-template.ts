/**
 * The operator's product key (issue 20): how a ticket's Product becomes the key looked up in the connector's table,
 * when the built-in order (identifier, ProductType, DescriptiveName: product-key.ts) does not fit the sender. CIP4's
 * own samples show why: `book-product.xjdf` has two posters with no name, type or identifier at all, only intents.
 *
 * A template is one or more alternatives separated by `||`, tried in order. An alternative is either the word
 * `auto` (the built-in keys) or text with placeholders `{…}`:
 *   {@DescriptiveName}                          an attribute of the Product
 *   {MediaIntent/@MediaQuality}                 an attribute of the first MediaIntent inside the Product that has it
 *   {LayoutIntent/@FinishedDimensions}          (element steps match at any depth, in order)
 * An alternative yields a key only when every placeholder in it is found; e.g.
 *   `{@DescriptiveName}||{MediaIntent/@MediaQuality} {LayoutIntent/@FinishedDimensions}`
 * gives "FLYER A6" for product.xjdf and "135_GLOSS 841.889 1190.551 0.0" for the A3 poster of book-product.xjdf.
 */
import { IntakeError } from '../../domain/errors.ts';
import { attr, descendants, type XNode } from './xml-tree.ts';

/** A template is an operator's setting, one line; long ones are a mistake (a file pasted instead). */
export const MAX_TEMPLATE_LENGTH = 500;
const MAX_ALTERNATIVES = 8;
const NAME = '[A-Za-z_][A-Za-z0-9_.-]*';
const PLACEHOLDER = new RegExp(`\\{((?:${NAME}/)*)@(${NAME})\\}`, 'g');

export type Alternative = { auto: true } | { auto: false; text: string };

/** Checks a template and splits it into alternatives; VALIDATION naming what is wrong. */
export function parseProductKeyTemplate(template: string): Alternative[] {
  const t = template.trim();
  if (t === '' || t.length > MAX_TEMPLATE_LENGTH) throw new IntakeError('VALIDATION', `a product key template must be 1 to ${MAX_TEMPLATE_LENGTH} characters`);
  const parts = t.split('||').map((p) => p.trim());
  if (parts.length > MAX_ALTERNATIVES) throw new IntakeError('VALIDATION', `a product key template has at most ${MAX_ALTERNATIVES} alternatives`);
  return parts.map((p) => {
    if (p.toLowerCase() === 'auto') return { auto: true };
    if (p === '') throw new IntakeError('VALIDATION', 'a product key template has an empty alternative (two || in a row?)');
    const stripped = p.replace(PLACEHOLDER, '');
    if (/[{}]/.test(stripped)) {
      throw new IntakeError('VALIDATION', `"${p}" has a placeholder that is not {@Attribute} or {Element/…/@Attribute}`);
    }
    if (stripped === p) throw new IntakeError('VALIDATION', `"${p}" has no placeholder: every product would get the same key`);
    return { auto: false, text: p };
  });
}

/** The value a placeholder names inside a product (the first element, in document order, on that path having it). */
function lookupPath(product: XNode, steps: string[], attribute: string): string | undefined {
  let scope: XNode[] = [product];
  for (const step of steps) {
    scope = [...new Set(scope.flatMap((n) => descendants(n, step)))];
    if (scope.length === 0) return undefined;
  }
  return scope.map((n) => attr(n, attribute)).find((v) => v !== undefined);
}

/** The key an alternative gives for a product, or undefined when one of its placeholders is missing. */
export function fillTemplate(text: string, product: XNode): string | undefined {
  let missing = false;
  const out = text.replace(PLACEHOLDER, (_m, path: string, attribute: string) => {
    const v = lookupPath(product, path.split('/').filter(Boolean), attribute);
    if (v === undefined) missing = true;
    return v ?? '';
  });
  return missing || out.trim() === '' ? undefined : out.trim();
}

/** The keys to try for a product: each alternative in order (`auto`: the built-in keys); no template: the built-in keys. */
export function candidateKeys(alternatives: readonly Alternative[] | undefined, product: XNode, builtIn: readonly string[]): string[] {
  if (!alternatives) return [...builtIn];
  return alternatives.flatMap((a) => {
    if (a.auto) return [...builtIn];
    const key = fillTemplate(a.text, product);
    return key === undefined ? [] : [key];
  });
}
