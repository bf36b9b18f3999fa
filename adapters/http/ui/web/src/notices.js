// What kg said about a write that it made all the same: the secrets it
// redacted (KG_SECRETS=redact) and the nodes a new one may duplicate
// (docs/design/trust.md). The result of a save carries them (`redacted`,
// `possible_duplicates`); the page keeps each as a notice until the person
// dismisses it, since both ask for a decision, not just a glance.

/**
 * The notices of one write's result.
 * @param {{kind: 'node'|'edge'|'merge', id: string, scope: object}} what the item written
 * @param {{redacted?: object[], possible_duplicates?: object[]}} result the API's answer
 */
export function noticesOf(what, result) {
  const out = [];
  const redacted = Array.isArray(result?.redacted) ? result.redacted : [];
  if (redacted.length) {
    out.push({ type: 'redacted', ...what, items: redacted.map(({ field, kind }) => ({ field, kind })) });
  }
  const dups = Array.isArray(result?.possible_duplicates) ? result.possible_duplicates : [];
  if (dups.length) {
    out.push({ type: 'duplicates', ...what, items: dups.map(({ id, by, score }) => ({ id, by, score })) });
  }
  return out;
}

/** "stored with a secret redacted: notes[1] aws-access-key" (and "2 secrets" for more). */
export function redactedText(items) {
  const what = items.length === 1 ? 'a secret' : `${items.length} secrets`;
  return `stored with ${what} redacted: ${items.map((r) => `${r.field} ${r.kind}`).join(', ')}`;
}

/** A possible duplicate's likeness: "0.86", or "same id" for a match by id. */
export function likeness(d) {
  return d.by === 'id' ? 'same id' : Number(d.score).toFixed(2);
}

/** The name of the item a notice is about, for a person. */
export function itemName(n) {
  if (n.kind === 'edge') return `edge ${n.id}`;
  return `node ${n.id}`;
}
