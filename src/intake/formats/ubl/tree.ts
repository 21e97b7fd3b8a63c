/** Walking a parsed UBL document (every element a list, attributes as `@name`, text as `#text`). */
export type XNode = Record<string, unknown>;
export const TEXT = '#text';

function asNode(v: unknown): XNode {
  if (typeof v === 'object' && v !== null && !Array.isArray(v)) return v as XNode;
  return typeof v === 'string' ? { [TEXT]: v } : {};
}

export function all(node: XNode | undefined, name: string): XNode[] {
  const v = node?.[name];
  return Array.isArray(v) ? v.map(asNode) : v === undefined ? [] : [asNode(v)];
}

export function one(node: XNode | undefined, ...path: string[]): XNode | undefined {
  let n = node;
  for (const p of path) n = all(n, p)[0];
  return n;
}

/** The trimmed text of the element at `path` (undefined when absent or empty). */
export function textAt(node: XNode | undefined, ...path: string[]): string | undefined {
  const v = one(node, ...path)?.[TEXT];
  if (typeof v !== 'string') return undefined;
  const t = v.trim();
  return t === '' ? undefined : t;
}

export function attrOf(node: XNode | undefined, name: string): string | undefined {
  const v = node?.[`@${name}`];
  return typeof v === 'string' && v.trim() !== '' ? v.trim() : undefined;
}

