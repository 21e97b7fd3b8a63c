/**
 * Small helpers on plain objects, shared by the layers above (views, store rows, the intake's submissions).
 */

/**
 * `o` itself, with its properties whose value is undefined deleted: what a store answers and a view shows never
 * carries a key without a value (JSON would drop it; deepEqual and `in` would not).
 */
export function withoutUndefined<T extends object>(o: T): T {
  for (const k of Object.keys(o) as (keyof T)[]) if (o[k] === undefined) delete o[k];
  return o;
}
